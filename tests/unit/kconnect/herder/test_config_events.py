"""The distributed herder's edge to the config topic: the first snapshot's load events and rebalances."""

from __future__ import annotations

import pytest
from kconnect.herder import events as ev
from kconnect.herder.config_events import loaded_event, rebalance_reason, work_of
from kconnect.model import ConnectorTaskId, TargetState
from kconnect.storage.base import ClusterConfigState
from kconnect.storage.config_records import ConnectorConfigRecord, TaskCommitRecord, TaskConfigRecord
from kconnect.storage.config_topic_state import ConfigTopicState

A_CONFIG = {"name": "a", "connector.class": "X", "tasks.max": "2"}
B_CONFIG = {"name": "b", "connector.class": "Y"}
A_TASKS = ({"n": "0", "task.class": "T"}, {"n": "1", "task.class": "T"})
A0, A1 = ConnectorTaskId("a", 0), ConnectorTaskId("a", 1)

SNAPSHOT = ClusterConfigState(
    connector_configs={"a": A_CONFIG, "b": B_CONFIG},
    target_states={"a": TargetState.STARTED, "b": TargetState.PAUSED},
    task_configs={"a": A_TASKS},
    offset=12,
)


def snapshot(
    configs: dict[str, dict[str, str]],
    tasks: dict[str, int] | None = None,
    targets: dict[str, TargetState] | None = None,
) -> ClusterConfigState:
    """A snapshot with `configs`, and ``tasks[name]`` task configs ``{"n": i}`` per connector."""
    task_configs = {name: tuple({"n": str(i)} for i in range(n)) for name, n in (tasks or {}).items()}
    return ClusterConfigState(configs, targets or {}, task_configs)


# --- loaded_event ---------------------------------------------------------------------------------------


def test_loaded_event_lists_every_connector_by_name_with_target_and_tasks() -> None:
    first = ClusterConfigState(
        connector_configs={"b": B_CONFIG, "a": A_CONFIG},
        target_states={"b": TargetState.STOPPED},
        task_configs={"a": A_TASKS},
    )
    assert loaded_event(first) == ev.ConnectorsLoaded(
        (
            ev.ConnectorLoaded("a", A_CONFIG, TargetState.STARTED, A_TASKS),
            ev.ConnectorLoaded("b", B_CONFIG, TargetState.STOPPED, ()),
        )
    )


def test_loaded_event_of_an_empty_topic() -> None:
    assert loaded_event(ClusterConfigState()) == ev.ConnectorsLoaded(())


# --- work_of and rebalance_reason --------------------------------------------------------------------------


def test_work_of_names_every_connector_and_task() -> None:
    assert work_of(SNAPSHOT) == (frozenset({"a", "b"}), frozenset({A0, A1}))


def test_work_of_an_inconsistent_connector_has_no_tasks() -> None:
    state = ConfigTopicState()
    for offset, record in enumerate(
        [ConnectorConfigRecord("a", A_CONFIG), TaskConfigRecord(A0, {"n": "0"}), TaskCommitRecord("a", 2)]
    ):
        state.apply(record, offset)
    assert work_of(state.snapshot()) == (frozenset({"a"}), frozenset())


REBALANCE_TABLE = [
    # before, after, reason
    (snapshot({"a": A_CONFIG}, {"a": 2}), snapshot({"a": A_CONFIG}, {"a": 2}), None),
    (snapshot({"a": A_CONFIG}), snapshot({"a": A_CONFIG, "b": B_CONFIG}),
     "connectors changed (added ['b'], removed [])"),
    (snapshot({"a": A_CONFIG, "b": B_CONFIG}), snapshot({"b": B_CONFIG}),
     "connectors changed (added [], removed ['a'])"),
    (snapshot({"a": A_CONFIG}, {"a": 2}), snapshot({"b": B_CONFIG, "c": B_CONFIG}, {"b": 1}),
     "connectors changed (added ['b', 'c'], removed ['a'])"),
    (snapshot({"a": A_CONFIG}, {"a": 2}), snapshot({"a": A_CONFIG}, {"a": 3}), "tasks changed (2 -> 3)"),
    (snapshot({"a": A_CONFIG}, {"a": 2}), snapshot({"a": A_CONFIG}), "tasks changed (2 -> 0)"),
    (snapshot({"a": A_CONFIG, "b": B_CONFIG}, {"a": 2}),
     snapshot({"a": A_CONFIG, "b": B_CONFIG}, {"a": 1, "b": 1}), "tasks changed (2 -> 2)"),
    # the same tasks with other configs, another connector config or target: restarted in place
    (snapshot({"a": A_CONFIG}, {"a": 2}),
     ClusterConfigState({"a": A_CONFIG}, {}, {"a": A_TASKS}), None),
    (snapshot({"a": A_CONFIG}, {"a": 2}), snapshot({"a": {**A_CONFIG, "x": "1"}}, {"a": 2}), None),
    (snapshot({"a": A_CONFIG}, {"a": 2}),
     snapshot({"a": A_CONFIG}, {"a": 2}, {"a": TargetState.PAUSED}), None),
]  # fmt: skip


@pytest.mark.parametrize(("before", "after", "reason"), REBALANCE_TABLE)
def test_rebalance_reason(before: ClusterConfigState, after: ClusterConfigState, reason: str | None) -> None:
    assert rebalance_reason(before, after) == reason
