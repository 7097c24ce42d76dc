"""The herder's reducer, transition by transition, without an event loop."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest
from kconnect.herder import events as ev
from kconnect.herder.machine import apply
from kconnect.herder.state import HerderState, restart_plan
from kconnect.model import ConnectorTaskId, State, TargetState

W = "worker:8083"
NAME = "c"
CONFIG = {"name": NAME, "connector.class": "X", "tasks.max": "2"}
TASKS = [{"n": "0", "task.class": "T"}, {"n": "1", "task.class": "T"}]
T0, T1 = ConnectorTaskId(NAME, 0), ConnectorTaskId(NAME, 1)


def settle(
    state: HerderState, event: ev.Event, task_configs: Sequence[dict[str, str]] = TASKS
) -> HerderState:
    """Apply `event` and play a well-behaved connector adapter and executor until nothing is left."""
    pending: list[ev.Event] = [event]
    while pending:
        state, effects = apply(state, pending.pop(0))
        for effect in effects:
            if isinstance(effect, ev.StartConnector):
                pending.append(ev.ConnectorStarted(effect.name, effect.generation))
            elif isinstance(effect, ev.GenerateTaskConfigs):
                pending.append(ev.TaskConfigsGenerated(effect.name, effect.generation, task_configs))
            elif isinstance(effect, ev.StartTask):
                done = ev.TaskPaused if effect.target is TargetState.PAUSED else ev.TaskRunning
                pending.append(done(effect.id, effect.generation))
            elif isinstance(effect, ev.SetTaskTargetState):
                record = state.connectors[effect.id.connector]
                gen = record.tasks[effect.id.task].generation
                done = ev.TaskPaused if effect.target is TargetState.PAUSED else ev.TaskRunning
                pending.append(done(effect.id, gen))
    return state


def control(effects: list[ev.Effect]) -> list[ev.Effect]:
    """The effects without status-store bookkeeping."""
    status = (ev.PutConnectorStatus, ev.PutTaskStatus, ev.RemoveTaskStatus, ev.RemoveStatus)
    return [e for e in effects if not isinstance(e, status)]


def kinds(effects: list[ev.Effect]) -> list[str]:
    return [type(e).__name__ for e in control(effects)]


def summary(state: HerderState, name: str = NAME) -> tuple[State, list[State], TargetState]:
    record = state.connectors[name]
    return record.observed.state, [t.observed.state for t in record.tasks], record.target


def running() -> HerderState:
    return settle(HerderState(W), ev.ConnectorConfigured(NAME, CONFIG))


def in_target(target: TargetState) -> HerderState:
    return settle(running(), ev.TargetStateSet(NAME, target))


def failed_connector() -> HerderState:
    state = running()
    gen = state.connectors[NAME].instance
    return settle(state, ev.ConnectorFailed(NAME, gen, "boom"))


def failed_task() -> HerderState:
    state = running()
    gen = state.connectors[NAME].tasks[1].generation
    return settle(state, ev.TaskFailed(T1, gen, "task boom"))


STATES: dict[str, Callable[[], HerderState]] = {
    "running": running,
    "paused": lambda: in_target(TargetState.PAUSED),
    "stopped": lambda: in_target(TargetState.STOPPED),
    "failed": failed_connector,
    "task_failed": failed_task,
    "stopped_then_paused": lambda: settle(
        in_target(TargetState.STOPPED), ev.TargetStateSet(NAME, TargetState.PAUSED)
    ),
}

R, P, F, S, X = State.RUNNING, State.PAUSED, State.FAILED, State.STOPPED, State.RESTARTING


# --- creation ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("initial", "expected"),
    [
        (None, (R, [R, R], TargetState.STARTED)),
        (TargetState.STARTED, (R, [R, R], TargetState.STARTED)),
        (TargetState.PAUSED, (P, [], TargetState.PAUSED)),
        (TargetState.STOPPED, (S, [], TargetState.STOPPED)),
    ],
)
def test_create_in_initial_state(initial: TargetState | None, expected: Any) -> None:
    state = settle(HerderState(W), ev.ConnectorConfigured(NAME, CONFIG, initial))
    assert summary(state) == expected


def test_create_effects_in_order() -> None:
    state, effects = apply(HerderState(W), ev.ConnectorConfigured(NAME, CONFIG))
    assert control(effects) == [
        ev.PersistConfig(NAME, CONFIG, TargetState.STARTED),
        ev.StartConnector(NAME, CONFIG, 1),
    ]
    assert ev.PutConnectorStatus(NAME, ev.Observed(State.UNASSIGNED, None, W)) in effects
    state, effects = apply(state, ev.ConnectorStarted(NAME, 1))
    assert control(effects) == [ev.GenerateTaskConfigs(NAME, 1)]
    state, effects = apply(state, ev.TaskConfigsGenerated(NAME, 1, TASKS))
    assert kinds(effects) == ["PersistTaskConfigs", "StartTask", "StartTask"]
    assert [e.generation for e in control(effects) if isinstance(e, ev.StartTask)] == [2, 3]


# --- pause / resume / stop: every target from every state ------------------------------------------


TARGET_TABLE = [
    # from state, target, expected (connector, tasks, target)
    ("running", TargetState.PAUSED, (P, [P, P], TargetState.PAUSED)),
    ("running", TargetState.STOPPED, (S, [], TargetState.STOPPED)),
    ("running", TargetState.STARTED, (R, [R, R], TargetState.STARTED)),
    ("paused", TargetState.STARTED, (R, [R, R], TargetState.STARTED)),
    ("paused", TargetState.PAUSED, (P, [P, P], TargetState.PAUSED)),
    ("paused", TargetState.STOPPED, (S, [], TargetState.STOPPED)),
    ("stopped", TargetState.PAUSED, (P, [], TargetState.PAUSED)),
    ("stopped", TargetState.STARTED, (R, [R, R], TargetState.STARTED)),
    ("stopped", TargetState.STOPPED, (S, [], TargetState.STOPPED)),
    ("stopped_then_paused", TargetState.STARTED, (R, [R, R], TargetState.STARTED)),
    ("failed", TargetState.STOPPED, (S, [], TargetState.STOPPED)),
    ("failed", TargetState.PAUSED, (F, [P, P], TargetState.PAUSED)),
    ("task_failed", TargetState.PAUSED, (P, [P, F], TargetState.PAUSED)),
    ("task_failed", TargetState.STOPPED, (S, [], TargetState.STOPPED)),
]


@pytest.mark.parametrize(("start", "target", "expected"), TARGET_TABLE)
def test_target_state_transitions(start: str, target: TargetState, expected: Any) -> None:
    assert summary(settle(STATES[start](), ev.TargetStateSet(NAME, target))) == expected


@pytest.mark.parametrize("start", list(STATES))
@pytest.mark.parametrize("target", list(TargetState))
def test_target_state_is_idempotent(start: str, target: TargetState) -> None:
    once = settle(STATES[start](), ev.TargetStateSet(NAME, target))
    twice, effects = apply(once, ev.TargetStateSet(NAME, target))
    assert twice == once
    assert effects == []


def test_stop_writes_the_store_first_then_stops_tasks_and_connector() -> None:
    _, effects = apply(running(), ev.TargetStateSet(NAME, TargetState.STOPPED))
    assert control(effects) == [
        ev.PersistTaskConfigs(NAME, ()),
        ev.PersistTargetState(NAME, TargetState.STOPPED),
        ev.StopTask(T0),
        ev.StopTask(T1),
        ev.StopConnector(NAME),
    ]
    assert ev.RemoveTaskStatus(T0) in effects and ev.RemoveTaskStatus(T1) in effects


def test_pause_stops_the_connector_and_pauses_tasks() -> None:
    _, effects = apply(running(), ev.TargetStateSet(NAME, TargetState.PAUSED))
    assert control(effects) == [
        ev.PersistTargetState(NAME, TargetState.PAUSED),
        ev.SetTaskTargetState(T0, TargetState.PAUSED),
        ev.SetTaskTargetState(T1, TargetState.PAUSED),
        ev.StopConnector(NAME),
    ]


def test_failed_connector_stays_failed_on_resume_but_tasks_resume() -> None:
    state = settle(failed_connector(), ev.TargetStateSet(NAME, TargetState.PAUSED))
    state = settle(state, ev.TargetStateSet(NAME, TargetState.STARTED))
    assert summary(state) == (F, [R, R], TargetState.STARTED)


def test_failed_task_gets_no_target_changes() -> None:
    _, effects = apply(failed_task(), ev.TargetStateSet(NAME, TargetState.PAUSED))
    assert ev.SetTaskTargetState(T1, TargetState.PAUSED) not in effects


def test_resume_from_stopped_regenerates_tasks() -> None:
    state = settle(
        in_target(TargetState.STOPPED), ev.TargetStateSet(NAME, TargetState.STARTED), task_configs=TASKS[:1]
    )
    assert summary(state) == (R, [R], TargetState.STARTED)


def test_paused_tasks_start_paused_after_reconfiguration_is_skipped() -> None:
    state = in_target(TargetState.PAUSED)
    _, effects = apply(state, ev.ReconfigurationRequested(NAME))
    assert effects == []


# --- failures and stale events ---------------------------------------------------------------------


def test_task_failure_keeps_trace_and_leaves_other_tasks_alone() -> None:
    record = failed_task().connectors[NAME]
    assert record.tasks[1].observed == ev.Observed(State.FAILED, "task boom", W)
    assert record.tasks[0].observed.state is State.RUNNING
    assert record.observed.state is State.RUNNING


def test_connector_failure_keeps_trace_and_tasks() -> None:
    record = failed_connector().connectors[NAME]
    assert record.observed == ev.Observed(State.FAILED, "boom", W)
    assert [t.observed.state for t in record.tasks] == [R, R]


@pytest.mark.parametrize(
    "event",
    [
        ev.TaskRunning(T0, 999),
        ev.TaskPaused(T0, 999),
        ev.TaskFailed(T0, 999, "old"),
        ev.TaskStopped(T0, 999),
        ev.TaskRunning(ConnectorTaskId(NAME, 7), 2),
        ev.TaskRunning(ConnectorTaskId("other", 0), 2),
        ev.ConnectorStarted(NAME, 999),
        ev.ConnectorFailed(NAME, 999, "old"),
        ev.ConnectorStopped(NAME, 999),
        ev.TaskConfigsGenerated(NAME, 999, [{"new": "x"}]),
        ev.ConnectorRemoved("other"),
        ev.TargetStateSet("other", TargetState.PAUSED),
        ev.RestartRequest("other"),
        ev.TaskRestartRequested(ConnectorTaskId(NAME, 5)),
    ],
)
def test_stale_or_unknown_events_are_ignored(event: ev.Event) -> None:
    state = running()
    assert apply(state, event) == (state, [])


def test_task_that_stops_unasked_fails_with_a_reason() -> None:
    state = running()
    gen = state.connectors[NAME].tasks[0].generation
    state, effects = apply(state, ev.TaskStopped(T0, gen))
    task = state.connectors[NAME].tasks[0]
    assert task.observed.state is State.FAILED and task.generation == gen  # as any failed task
    assert task.observed.trace is not None
    assert "stopped although the worker did not ask it to stop" in task.observed.trace
    assert ev.PutTaskStatus(T0, task.observed) in effects
    # A reconfiguration does not start it again behind the user's back; a restart does.
    record = state.connectors[NAME]
    assert apply(state, ev.TaskConfigsGenerated(NAME, record.instance, TASKS))[1] == []
    state = settle(state, ev.TaskRestartRequested(T0))
    assert state.connectors[NAME].tasks[0].observed == ev.Observed(State.RUNNING, None, W)


def test_task_stopped_after_a_stop_request_is_stale() -> None:
    state = running()
    gen = state.connectors[NAME].tasks[0].generation
    state, _ = apply(state, ev.TaskRestartRequested(T0))
    assert apply(state, ev.TaskStopped(T0, gen)) == (state, [])


# --- reconfiguration ---------------------------------------------------------------------------------


def test_same_task_configs_restart_nothing() -> None:
    state = running()
    state, effects = apply(state, ev.ReconfigurationRequested(NAME))
    assert control(effects) == [ev.GenerateTaskConfigs(NAME, state.connectors[NAME].instance)]
    _, effects = apply(state, ev.TaskConfigsGenerated(NAME, state.connectors[NAME].instance, TASKS))
    assert effects == []


def test_changed_task_configs_restart_all_tasks() -> None:
    state = running()
    gen = state.connectors[NAME].instance
    new = [{"n": "new", "task.class": "T"}]
    state, effects = apply(state, ev.TaskConfigsGenerated(NAME, gen, new))
    assert kinds(effects) == ["PersistTaskConfigs", "StopTask", "StopTask", "StartTask"]
    assert ev.RemoveTaskStatus(T1) in effects
    assert state.connectors[NAME].task_configs == tuple(new)


def test_reconfiguration_with_the_same_connector_config_keeps_tasks() -> None:
    state = running()
    task_gens = [t.generation for t in state.connectors[NAME].tasks]
    state = settle(state, ev.ReconfigurationRequested(NAME))
    state = settle(state, ev.RestartRequest(NAME))
    assert [t.generation for t in state.connectors[NAME].tasks] == task_gens


CONNECTOR_LEVEL_CHANGES = [
    {"value.converter": "org.apache.kafka.connect.storage.StringConverter"},
    {"key.converter.schemas.enable": "false"},
    {"header.converter": "org.apache.kafka.connect.storage.SimpleHeaderConverter"},
    {"transforms": "mask", "transforms.mask.type": "MaskField$Value"},
    {"predicates": "p", "predicates.p.type": "TopicNameMatches"},
    {"errors.tolerance": "all"},
    {"producer.override.linger.ms": "5"},
    {"consumer.override.max.poll.records": "10"},
    {"anything.at.all": "1"},
]


@pytest.mark.parametrize("change", CONNECTOR_LEVEL_CHANGES)
def test_connector_config_change_restarts_tasks_with_the_new_config(change: dict[str, str]) -> None:
    """KAFKA-9228: the task configs the connector gives are the same, the tasks still restart."""
    state = running()
    old_gens = [t.generation for t in state.connectors[NAME].tasks]
    new_config = {**CONFIG, **change}
    state, effects = apply(state, ev.ConnectorConfigured(NAME, new_config))
    assert control(effects) == [
        ev.PersistConfig(NAME, new_config, None),
        ev.StopConnector(NAME),
        ev.StartConnector(NAME, new_config, state.connectors[NAME].instance),
    ]
    state, _ = apply(state, ev.ConnectorStarted(NAME, state.connectors[NAME].instance))
    state, effects = apply(state, ev.TaskConfigsGenerated(NAME, state.connectors[NAME].instance, TASKS))
    assert kinds(effects) == ["PersistTaskConfigs", "StopTask", "StopTask", "StartTask", "StartTask"]
    starts = [e for e in effects if isinstance(e, ev.StartTask)]
    assert [e.connector_config for e in starts] == [new_config, new_config]
    assert [e.task_config for e in starts] == TASKS
    record = state.connectors[NAME]
    assert record.applied_config == new_config
    assert all(t.generation not in old_gens for t in record.tasks)
    # Applied: a further reconfiguration with the same configs restarts nothing.
    _, effects = apply(state, ev.TaskConfigsGenerated(NAME, record.instance, TASKS))
    assert control(effects) == []


def test_config_change_while_paused_restarts_tasks_on_resume() -> None:
    new_config = {**CONFIG, "value.converter": "StringConverter"}
    state = settle(in_target(TargetState.PAUSED), ev.ConnectorConfigured(NAME, new_config))
    assert summary(state) == (P, [P, P], TargetState.PAUSED)
    assert state.connectors[NAME].applied_config == CONFIG
    state = settle(state, ev.TargetStateSet(NAME, TargetState.STARTED))
    assert summary(state) == (R, [R, R], TargetState.STARTED)
    assert state.connectors[NAME].applied_config == new_config


def test_config_update_keeps_target_state() -> None:
    state = settle(in_target(TargetState.STOPPED), ev.ConnectorConfigured(NAME, {**CONFIG, "extra": "1"}))
    assert summary(state) == (S, [], TargetState.STOPPED)
    state = settle(in_target(TargetState.PAUSED), ev.ConnectorConfigured(NAME, {**CONFIG, "extra": "1"}))
    assert summary(state) == (P, [P, P], TargetState.PAUSED)


def test_config_update_of_failed_connector_starts_it_again() -> None:
    state = settle(failed_connector(), ev.ConnectorConfigured(NAME, {**CONFIG, "extra": "1"}))
    assert summary(state) == (R, [R, R], TargetState.STARTED)


# --- restarts (KIP-745) -----------------------------------------------------------------------------


STOP2, START2 = ["StopTask"] * 2, ["StartTask"] * 2
RESTART_TABLE = [
    # from, include_tasks, only_failed, plan (connector, tasks), effects
    ("running", False, False, (True, ()), ["StopConnector", "StartConnector"]),
    ("running", True, False, (True, (0, 1)), ["StopConnector", *STOP2, "StartConnector", *START2]),
    ("running", False, True, (False, ()), []),
    ("running", True, True, (False, ()), []),
    ("failed", False, True, (True, ()), ["StopConnector", "StartConnector"]),
    ("failed", True, True, (True, ()), ["StopConnector", "StartConnector"]),
    ("task_failed", True, True, (False, (1,)), ["StopTask", "StartTask"]),
    ("task_failed", False, True, (False, ()), []),
    ("stopped", True, False, (True, ()), []),
    ("paused", True, False, (True, (0, 1)), ["StopTask", "StopTask", "StartTask", "StartTask"]),
]  # fmt: skip


@pytest.mark.parametrize(("start", "include_tasks", "only_failed", "plan", "effects"), RESTART_TABLE)
def test_restart_plan_and_effects(
    start: str, include_tasks: bool, only_failed: bool, plan: tuple[bool, tuple[int, ...]], effects: list[str]
) -> None:
    state = STATES[start]()
    got = restart_plan(state.connectors[NAME], include_tasks, only_failed)
    assert (got.connector, got.tasks) == plan
    _, produced = apply(state, ev.RestartRequest(NAME, include_tasks=include_tasks, only_failed=only_failed))
    assert kinds(produced) == effects


def test_restart_marks_restarting_until_reported() -> None:
    state, _ = apply(failed_task(), ev.RestartRequest(NAME, include_tasks=True, only_failed=False))
    assert summary(state) == (X, [X, X], TargetState.STARTED)
    state = settle(failed_task(), ev.RestartRequest(NAME, include_tasks=True, only_failed=False))
    assert summary(state) == (R, [R, R], TargetState.STARTED)
    assert state.connectors[NAME].tasks[1].observed.trace is None


def test_restarted_paused_connector_stays_paused_and_tasks_restart_paused() -> None:
    state = settle(in_target(TargetState.PAUSED), ev.RestartRequest(NAME, include_tasks=True))
    assert summary(state) == (P, [P, P], TargetState.PAUSED)


def test_old_task_events_after_restart_are_ignored() -> None:
    before = failed_task()
    old_gen = before.connectors[NAME].tasks[1].generation
    state = settle(before, ev.TaskRestartRequested(T1))
    assert state.connectors[NAME].tasks[1].observed.state is State.RUNNING
    assert apply(state, ev.TaskStopped(T1, old_gen)) == (state, [])


def test_task_restart_effects() -> None:
    state, effects = apply(failed_task(), ev.TaskRestartRequested(T1))
    assert kinds(effects) == ["StopTask", "StartTask"]
    assert state.connectors[NAME].tasks[1].observed.state is State.RESTARTING


# --- delete, load, shutdown -------------------------------------------------------------------------


@pytest.mark.parametrize("start", list(STATES))
def test_delete_from_any_state(start: str) -> None:
    before = STATES[start]()
    state, effects = apply(before, ev.ConnectorRemoved(NAME))
    assert NAME not in state.connectors
    assert control(effects)[0] == ev.RemoveConfig(NAME)
    assert effects[-1] == ev.RemoveStatus(NAME)
    running_tasks = sum(1 for t in before.connectors[NAME].tasks if t.generation)
    assert kinds(effects).count("StopTask") == running_tasks


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        (TargetState.STARTED, (R, [R, R], TargetState.STARTED)),
        (TargetState.PAUSED, (P, [P, P], TargetState.PAUSED)),
        (TargetState.STOPPED, (S, [], TargetState.STOPPED)),
    ],
)
def test_loaded_connectors_resume_their_target(target: TargetState, expected: Any) -> None:
    tasks = [] if target is TargetState.STOPPED else TASKS
    state = settle(HerderState(W), ev.ConnectorsLoaded((ev.ConnectorLoaded(NAME, CONFIG, target, tasks),)))
    assert summary(state) == expected


def test_loaded_tasks_are_not_restarted_when_configs_match() -> None:
    loaded = ev.ConnectorLoaded(NAME, CONFIG, TargetState.STARTED, TASKS)
    state, effects = apply(HerderState(W), ev.ConnectorsLoaded((loaded,)))
    assert kinds(effects) == ["StartConnector", "StartTask", "StartTask"]
    state = settle(state, ev.ConnectorStarted(NAME, state.connectors[NAME].instance))
    assert [t.generation for t in state.connectors[NAME].tasks] == [2, 3]


def test_loading_every_connector_in_one_event_is_loading_each_alone() -> None:
    loads = (
        ev.ConnectorLoaded("a", CONFIG, TargetState.STARTED, TASKS),
        ev.ConnectorLoaded("b", CONFIG, TargetState.PAUSED, TASKS),
        ev.ConnectorLoaded("c", CONFIG, TargetState.STOPPED, []),
    )
    together, effects = apply(HerderState(W), ev.ConnectorsLoaded(loads))
    each_effects = []
    for load in loads:
        alone, more = apply(HerderState(W), ev.ConnectorsLoaded((load,)))
        assert together.connectors[load.name] == alone.connectors[load.name]
        each_effects.extend(more)
    assert sorted(map(repr, effects)) == sorted(map(repr, each_effects))
    assert "StartConnector" in kinds(effects)


def test_shutdown_stops_everything_and_keeps_configs() -> None:
    state, effects = apply(running(), ev.ShutdownRequested())
    assert kinds(effects) == ["StopTask", "StopTask", "StopConnector"]
    assert summary(state) == (State.UNASSIGNED, [State.UNASSIGNED, State.UNASSIGNED], TargetState.STARTED)
    assert state.connectors[NAME].task_configs == tuple(TASKS)


# --- effect order the owner relies on ----------------------------------------------------------------


COMMANDS: list[ev.Event] = [
    ev.ConnectorConfigured(NAME, {**CONFIG, "extra": "1"}),
    ev.ConnectorRemoved(NAME),
    *(ev.TargetStateSet(NAME, target) for target in TargetState),
    ev.RestartRequest(NAME, include_tasks=True),
    ev.TaskRestartRequested(T0),
]


@pytest.mark.parametrize("start", list(STATES))
@pytest.mark.parametrize("command", COMMANDS, ids=lambda e: type(e).__name__)
def test_store_writes_come_before_every_other_effect(start: str, command: ev.Event) -> None:
    """So a failed write can drop the whole event before anything outside the stores changed."""
    _, effects = apply(STATES[start](), command)
    stores = [isinstance(e, ev.STORE_WRITES) for e in control(effects)]
    assert stores == sorted(stores, reverse=True), kinds(effects)


def test_new_task_configs_are_stored_before_the_old_tasks_stop() -> None:
    state = running()
    new = [{"n": "new", "task.class": "T"}]
    _, effects = apply(state, ev.TaskConfigsGenerated(NAME, state.connectors[NAME].instance, new))
    assert isinstance(control(effects)[0], ev.PersistTaskConfigs)
