"""Automatic restarts' schedule (pure), the reducer's `AutoRestartDue`, and the keys that set them."""

from __future__ import annotations

import pytest
from kconnect.config.auto_restart_keys import AutoRestartPolicy, auto_restart_config_def
from kconnect.herder import events as ev
from kconnect.herder import restart_schedule as schedule
from kconnect.herder.machine import apply
from kconnect.herder.state import HerderState, Owned
from kconnect.model import AutoRestarts, ConnectorTaskId, State

from tests.unit.kconnect.herder.test_machine import NAME, T1, W, failed_connector, failed_task, kinds, running

MINUTE = 60_000
STRIMZI = AutoRestartPolicy(enabled=True)


@pytest.mark.parametrize(
    ("made", "minutes"),
    [(0, 0), (1, 2), (2, 6), (3, 12), (4, 20), (5, 30), (6, 42), (7, 56), (8, 60), (20, 60)],
)
def test_backoff_is_strimzis_schedule_capped_at_an_hour(made: int, minutes: int) -> None:
    assert schedule.backoff_ms(STRIMZI, made) == minutes * MINUTE


def test_backoff_follows_the_unit_and_the_cap() -> None:
    policy = AutoRestartPolicy(enabled=True, backoff_ms=500, backoff_max_ms=4_000)
    assert [schedule.backoff_ms(policy, n) for n in range(4)] == [0, 1_000, 3_000, 4_000]


@pytest.mark.parametrize(
    ("count", "max_attempts", "due_in_ms", "gave_up"),
    [
        (0, -1, 0, False),  # the first restart is immediate
        (2, -1, 6 * MINUTE, False),  # third restart: 2 x 3 units
        (50, -1, 60 * MINUTE, False),  # -1 never gives up; the cap holds
        (2, 3, 6 * MINUTE, False),  # two made, three allowed
        (3, 3, None, True),  # three made, three allowed: give up
        (0, 0, None, True),  # 0 allows none
    ],
)
def test_a_failure_schedules_the_next_restart_or_gives_up(
    count: int, max_attempts: int, due_in_ms: int | None, gave_up: bool
) -> None:
    policy = AutoRestartPolicy(enabled=True, max_attempts=max_attempts)
    after = schedule.failed(AutoRestarts(count=count), policy, "boom", 1_000)
    assert after.count == count
    assert after.next_attempt_ms == (None if due_in_ms is None else 1_000 + due_in_ms)
    assert after.gave_up is gave_up
    assert (after.last_failure, after.last_failure_ms) == ("boom", 1_000)


@pytest.mark.parametrize(
    ("automatic", "count_after"),
    [(True, 3), (False, 0)],
)
def test_a_restart_counts_when_automatic_and_resets_when_manual(automatic: bool, count_after: int) -> None:
    before = AutoRestarts(count=2, last_failure="boom", last_failure_ms=5, next_attempt_ms=9, gave_up=True)
    after = schedule.restarted(before, automatic)
    assert after == AutoRestarts(count_after, "boom", 5, None, False)


@pytest.mark.parametrize(("count", "settle_minutes"), [(0, 1), (1, 2), (3, 12), (9, 60)])
def test_running_for_the_next_backoff_resets_the_count(count: int, settle_minutes: int) -> None:
    current = AutoRestarts(count=count, last_failure="boom", last_failure_ms=5)
    assert schedule.settle_ms(STRIMZI, current) == settle_minutes * MINUTE
    assert schedule.settled(current) == AutoRestarts(0, "boom", 5, None, False)


def test_unscheduled_keeps_the_count_and_drops_the_due_time() -> None:
    current = AutoRestarts(count=2, next_attempt_ms=99)
    assert schedule.unscheduled(current) == AutoRestarts(count=2)


# --- the keys ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ({}, AutoRestartPolicy()),
        ({"auto.restart.enable": "true"}, AutoRestartPolicy(enabled=True)),
        (
            {
                "auto.restart.enable": "TRUE",
                "auto.restart.max.attempts": "3",
                "auto.restart.backoff.ms": "500",
                "auto.restart.backoff.max.ms": "2000",
            },
            AutoRestartPolicy(True, 3, 500, 2000),
        ),
        ({"auto.restart.enable": "yes"}, AutoRestartPolicy()),  # does not parse: off
        ({"auto.restart.enable": "true", "auto.restart.backoff.ms": "soon"}, AutoRestartPolicy()),
    ],
)
def test_policy_from_a_connector_config(config: dict[str, str], expected: AutoRestartPolicy) -> None:
    assert AutoRestartPolicy.of(config) == expected


@pytest.mark.parametrize(
    ("policy", "active"),
    [(AutoRestartPolicy(), False), (STRIMZI, True), (AutoRestartPolicy(True, 0), False)],
)
def test_restarts_are_active_only_when_enabled_with_attempts_left(
    policy: AutoRestartPolicy, active: bool
) -> None:
    assert policy.active is active


def test_the_keys_validate_as_config_keys() -> None:
    config_def = auto_restart_config_def()
    values = config_def.validate({"auto.restart.max.attempts": "-2"})
    assert values["auto.restart.max.attempts"].errors
    assert not values["auto.restart.enable"].errors


# --- the reducer -------------------------------------------------------------------------------------------


def test_a_due_restart_of_a_failed_task_restarts_it_as_a_manual_restart_does() -> None:
    state = failed_task()
    manual = apply(state, ev.TaskRestartRequested(T1))
    automatic = apply(state, ev.AutoRestartDue(NAME, 1))
    assert automatic == manual
    assert kinds(automatic[1]) == ["StopTask", "StartTask"]
    assert automatic[0].connectors[NAME].tasks[1].observed.state is State.RESTARTING


def test_a_due_restart_of_a_failed_connector_restarts_the_connector_alone() -> None:
    state = failed_connector()
    new_state, effects = apply(state, ev.AutoRestartDue(NAME))
    assert kinds(effects) == ["StopConnector", "StartConnector"]
    assert new_state.connectors[NAME].observed.state is State.RESTARTING


@pytest.mark.parametrize(
    "event", [ev.AutoRestartDue(NAME, 1), ev.AutoRestartDue(NAME), ev.AutoRestartDue("other", 0)]
)
def test_a_due_restart_of_an_instance_no_longer_failed_is_ignored(event: ev.AutoRestartDue) -> None:
    state = running()
    assert apply(state, event) == (state, [])


def test_a_due_restart_not_only_of_failed_instances_restarts_a_running_task() -> None:
    state = running()
    _, effects = apply(state, ev.AutoRestartDue(NAME, 1, only_failed=False))
    assert kinds(effects) == ["StopTask", "StartTask"]


def test_a_due_restart_of_a_task_another_worker_now_runs_is_ignored() -> None:
    state = failed_task()
    elsewhere = HerderState(W, state.connectors, owned=Owned(frozenset({NAME}), frozenset()))
    assert apply(elsewhere, ev.AutoRestartDue(NAME, 1)) == (elsewhere, [])
    assert apply(elsewhere, ev.AutoRestartDue(NAME, 7)) == (elsewhere, [])


def test_task_ids_of_the_test_connector() -> None:
    assert T1 == ConnectorTaskId(NAME, 1)
