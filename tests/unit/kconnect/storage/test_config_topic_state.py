"""Folding the config topic (Kafka's rules): commits apply task configs, inconsistencies, deletions."""

from __future__ import annotations

from kconnect.model import ConnectorTaskId, RestartRequest, SessionKey, TargetState
from kconnect.storage.config_changes import (
    ConfigChange,
    ConnectorConfigDeleted,
    ConnectorConfigRead,
    LoggerLevelRead,
    TargetStateRead,
    TaskConfigsRead,
)
from kconnect.storage.config_records import (
    ConfigRecord,
    ConnectorConfigRecord,
    TargetStateRecord,
    TaskCommitRecord,
    TaskConfigRecord,
    TaskCountRecord,
    parse_config_record,
)
from kconnect.storage.config_topic_state import ConfigTopicState

from tests.unit.kconnect.storage.java_records import CONFIG_TOPIC


def fold(
    *records: ConfigRecord, state: ConfigTopicState | None = None
) -> tuple[ConfigTopicState, list[ConfigChange]]:
    state = state or ConfigTopicState()
    updates: list[ConfigChange] = []
    for record in records:
        updates += state.apply(record, state.offset + 1)
    return state, updates


def task(connector: str, n: int, **config: str) -> TaskConfigRecord:
    return TaskConfigRecord(ConnectorTaskId(connector, n), {"n": str(n), **config})


def test_javas_config_topic_folds_to_what_java_shows() -> None:
    state = ConfigTopicState()
    for offset, (_, key, value) in enumerate(CONFIG_TOPIC):
        state.apply(parse_config_record(key.decode(), value), offset)
    snapshot = state.snapshot()
    assert snapshot.connectors() == ["gold-src"]  # gold-gone was deleted
    assert snapshot.target_state("gold-src") is TargetState.STOPPED
    assert snapshot.task_count("gold-src") == 0  # stopped: zero tasks committed
    assert snapshot.offset == len(CONFIG_TOPIC)
    assert state.session_key is not None and state.session_key.algorithm == "HmacSHA256"


def test_task_configs_are_invisible_until_their_commit() -> None:
    state, updates = fold(ConnectorConfigRecord("a", {"k": "v"}), task("a", 0), task("a", 1))
    assert state.snapshot().task_count("a") == 0
    assert updates == [ConnectorConfigRead("a", {"k": "v"}, TargetState.STARTED)]
    _, updates = fold(TaskCommitRecord("a", 2), state=state)
    assert state.snapshot().task_configs["a"] == ({"n": "0"}, {"n": "1"})
    assert updates == [TaskConfigsRead("a", ({"n": "0"}, {"n": "1"}))]


def test_committed_task_configs_are_told_in_task_order() -> None:
    _, updates = fold(ConnectorConfigRecord("a", {}), task("a", 1), task("a", 0), TaskCommitRecord("a", 2))
    assert updates == [
        ConnectorConfigRead("a", {}, TargetState.STARTED),
        TaskConfigsRead("a", ({"n": "0"}, {"n": "1"})),
    ]


def test_a_commit_of_zero_tasks_is_told_with_no_configs() -> None:
    _, updates = fold(ConnectorConfigRecord("a", {}), TaskCommitRecord("a", 0))
    assert updates == [ConnectorConfigRead("a", {}, TargetState.STARTED), TaskConfigsRead("a", ())]


def test_a_reconfiguration_written_halfway_keeps_the_committed_tasks() -> None:
    state, _ = fold(ConnectorConfigRecord("a", {}), task("a", 0), task("a", 1), TaskCommitRecord("a", 2))
    fold(task("a", 0, new="yes"), state=state)  # the leader died before task 1 and the commit
    assert state.snapshot().task_configs["a"] == ({"n": "0"}, {"n": "1"})


def test_a_commit_missing_task_configs_flags_the_connector_inconsistent() -> None:
    # Compaction removed task 0's record of the first round; the commit cannot be applied.
    state, updates = fold(ConnectorConfigRecord("a", {}), task("a", 1), TaskCommitRecord("a", 2))
    snapshot = state.snapshot()
    assert snapshot.inconsistent == frozenset({"a"})
    assert snapshot.task_count("a") == 0
    assert updates == [ConnectorConfigRead("a", {}, TargetState.STARTED)]
    _, updates = fold(task("a", 0), task("a", 1), TaskCommitRecord("a", 2), state=state)
    assert state.snapshot().inconsistent == frozenset()
    assert state.snapshot().task_count("a") == 2


def test_fewer_tasks_after_compaction_is_consistent() -> None:
    state, _ = fold(ConnectorConfigRecord("a", {}), task("a", 1), task("a", 0), TaskCommitRecord("a", 1))
    assert state.snapshot().task_configs["a"] == ({"n": "0"},)


def test_deletion_forgets_config_target_and_tasks() -> None:
    state, _ = fold(
        ConnectorConfigRecord("a", {}), task("a", 0), TaskCommitRecord("a", 1),
        TargetStateRecord("a", TargetState.PAUSED),
    )  # fmt: skip
    _, updates = fold(ConnectorConfigRecord("a", None), TargetStateRecord("a", None), state=state)
    assert updates == [ConnectorConfigDeleted("a")]
    assert not state.snapshot().contains("a") and state.snapshot().task_configs == {}
    _, updates = fold(ConnectorConfigRecord("a", {"again": "1"}), state=state)
    assert updates == [ConnectorConfigRead("a", {"again": "1"}, TargetState.STARTED)]
    assert state.snapshot().target_state("a") is TargetState.STARTED
    assert state.snapshot().task_count("a") == 0


def test_a_commit_for_a_deleted_and_compacted_connector_is_ignored() -> None:
    state, updates = fold(task("gone", 0), TaskCommitRecord("gone", 1))
    assert updates == [] and state.snapshot().task_configs == {}


def test_target_state_changes_are_told_only_for_existing_connectors_and_real_changes() -> None:
    state, updates = fold(TargetStateRecord("a", TargetState.PAUSED), ConnectorConfigRecord("a", {}))
    assert updates == [ConnectorConfigRead("a", {}, TargetState.PAUSED)]  # KIP-980: created paused
    assert state.snapshot().target_state("a") is TargetState.PAUSED  # created paused
    _, updates = fold(
        TargetStateRecord("a", TargetState.PAUSED), TargetStateRecord("a", TargetState.STOPPED), state=state
    )
    assert updates == [TargetStateRead("a", TargetState.STOPPED)]


def test_restart_requests_are_told() -> None:
    request = RestartRequest("a", only_failed=True, include_tasks=True)
    assert fold(request)[1] == [request]


def test_a_session_key_is_kept_and_not_told() -> None:
    key = SessionKey(b"k" * 32, "HmacSHA256", 1000)
    state, updates = fold(key)
    assert updates == [] and state.session_key == key


def test_logger_levels_are_told_and_change_no_config() -> None:
    """KIP-976 records are news for the listener only; the store adds nothing to the snapshot."""
    state, updates = fold(ConnectorConfigRecord("a", {}), LoggerLevelRead("org.x", "DEBUG"))
    assert updates == [ConnectorConfigRead("a", {}, TargetState.STARTED), LoggerLevelRead("org.x", "DEBUG")]
    assert state.snapshot().connectors() == ["a"]


def test_a_task_count_record_is_kept_as_the_last_fenced_generation_and_forgotten_with_its_connector() -> None:
    """Kafka's taskCountRecord: what a fencing round before modifying a stopped connector's offsets
    fences, after the stop emptied its task configs; no news for a listener."""
    state, updates = fold(
        ConnectorConfigRecord("a", {}), task("a", 0), task("a", 1), TaskCommitRecord("a", 2),
        TaskCountRecord("a", 2), TaskCommitRecord("a", 0),
    )  # fmt: skip
    assert updates[-1] == TaskConfigsRead("a", ())
    assert state.snapshot().task_count_records == {"a": 2} and state.snapshot().task_count("a") == 0
    fold(TaskCountRecord("a", 0), state=state)
    assert state.snapshot().task_count_records == {"a": 0}
    fold(ConnectorConfigRecord("a", None), state=state)
    assert state.snapshot().task_count_records == {}
