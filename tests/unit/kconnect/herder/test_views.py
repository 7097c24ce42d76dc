"""`with_observed`: a record seen with the statuses its owners wrote (distributed mode's restart snapshot)."""

from __future__ import annotations

import pytest
from kconnect.herder.events import Observed
from kconnect.herder.state import ConnectorRecord, TaskRecord, restart_plan
from kconnect.herder.views import connector_status, with_observed
from kconnect.model import ConnectorStateInfo, ConnectorType, State, StateInfo, TargetState, TaskStateInfo

HERE = "w1:8083"
CONFIG = {"name": "c", "connector.class": "X"}
TASK_CONFIGS = ({"n": "0"}, {"n": "1"}, {"n": "2"})


def record() -> ConnectorRecord:
    """What this worker knows of connector ``c`` run by others: everything UNASSIGNED, seen here."""
    unassigned = Observed(State.UNASSIGNED, None, HERE)
    return ConnectorRecord(
        "c",
        CONFIG,
        TargetState.STARTED,
        unassigned,
        tasks=tuple(TaskRecord(c, unassigned, generation=0) for c in TASK_CONFIGS),
        instance=0,
        generation=7,
        applied_config=CONFIG,
    )


def status(*tasks: TaskStateInfo) -> ConnectorStateInfo:
    return ConnectorStateInfo("c", StateInfo(State.RUNNING, "w2:8083"), list(tasks), ConnectorType.SOURCE)


def test_the_owners_statuses_replace_what_this_worker_saw() -> None:
    seen = with_observed(
        record(),
        status(
            TaskStateInfo(State.FAILED, "w3:8083", "Traceback: boom", id=1),
            TaskStateInfo(State.RUNNING, "w2:8083", id=0),
        ),
    )
    assert seen.observed == Observed(State.RUNNING, None, "w2:8083")
    assert [t.observed for t in seen.tasks] == [
        Observed(State.RUNNING, None, "w2:8083"),
        Observed(State.FAILED, "Traceback: boom", "w3:8083"),
        Observed(State.UNASSIGNED, None, HERE),  # no status written yet: as this worker saw it
    ]


def test_only_the_observed_states_change() -> None:
    before = record()
    seen = with_observed(before, status(TaskStateInfo(State.PAUSED, "w2:8083", id=2)))
    assert (seen.name, seen.config, seen.target, seen.instance, seen.generation, seen.applied_config) == (
        before.name,
        before.config,
        before.target,
        before.instance,
        before.generation,
        before.applied_config,
    )
    assert [(t.config, t.generation) for t in seen.tasks] == [(t.config, t.generation) for t in before.tasks]
    assert before.observed == Observed(State.UNASSIGNED, None, HERE)  # the record itself is unchanged


def test_statuses_of_tasks_the_record_does_not_have_are_ignored() -> None:
    seen = with_observed(record(), status(TaskStateInfo(State.FAILED, "w2:8083", "old", id=3)))
    assert len(seen.tasks) == 3
    assert {t.observed.state for t in seen.tasks} == {State.UNASSIGNED}


@pytest.mark.parametrize(
    ("include_tasks", "only_failed", "connector", "tasks"),
    [
        (True, True, False, (1,)),
        (True, False, True, (0, 1, 2)),
        (False, True, False, ()),
    ],
)
def test_a_restart_plan_follows_the_owners_statuses(
    include_tasks: bool, only_failed: bool, connector: bool, tasks: tuple[int, ...]
) -> None:
    seen = with_observed(
        record(),
        status(
            TaskStateInfo(State.RUNNING, "w2:8083", id=0),
            TaskStateInfo(State.FAILED, "w3:8083", "boom", id=1),
            TaskStateInfo(State.RUNNING, "w3:8083", id=2),
        ),
    )
    plan = restart_plan(seen, include_tasks, only_failed)
    assert (plan.connector, plan.tasks) == (connector, tasks)


def test_the_restart_snapshot_shows_restarting_where_the_plan_applies() -> None:
    seen = with_observed(
        record(),
        status(
            TaskStateInfo(State.RUNNING, "w2:8083", id=0),
            TaskStateInfo(State.FAILED, "w3:8083", "boom", id=1),
        ),
    )
    snapshot = connector_status(seen, ConnectorType.SOURCE, restart_plan(seen, True, True))
    assert snapshot.connector == StateInfo(State.RUNNING, "w2:8083")
    assert [(t.id, t.state, t.worker_id) for t in snapshot.tasks] == [
        (0, State.RUNNING, "w2:8083"),
        (1, State.RESTARTING, "w3:8083"),
        (2, State.UNASSIGNED, HERE),
    ]
