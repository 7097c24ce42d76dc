"""The reducer in distributed mode: config-topic reads, assignments and ownership, without an event loop.

Every worker folds every connector in; it runs, and writes the status of, only what its assignment
(`Owned`) holds. A standalone state (``owned=None``) runs everything, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest
from kconnect.herder import events as ev
from kconnect.herder.machine import apply
from kconnect.herder.state import HerderState, Owned
from kconnect.model import ConnectorTaskId, State, TargetState

from tests.unit.kconnect.herder.test_machine import control, kinds, summary

W = "w1:8083"
NAME = "c"
CONFIG = {"name": NAME, "connector.class": "X", "tasks.max": "2"}
NEW_CONFIG = {**CONFIG, "value.converter": "StringConverter"}
TASKS = [{"n": "0", "task.class": "T"}, {"n": "1", "task.class": "T"}]
NEW_TASKS = [{"n": "new-0", "task.class": "T"}, {"n": "new-1", "task.class": "T"}]
T0, T1 = ConnectorTaskId(NAME, 0), ConnectorTaskId(NAME, 1)
R, P, S, U = State.RUNNING, State.PAUSED, State.STOPPED, State.UNASSIGNED
STATUS_EFFECTS = (ev.PutConnectorStatus, ev.PutTaskStatus, ev.RemoveStatus, ev.RemoveTaskStatus)


def owning(connectors: Sequence[str] = (), tasks: Sequence[ConnectorTaskId] = ()) -> HerderState:
    """An empty distributed worker state assigned `connectors` and `tasks`."""
    return HerderState(W, owned=Owned(frozenset(connectors), frozenset(tasks)))


def play(
    state: HerderState, events: Sequence[ev.Event], task_configs: Sequence[dict[str, str]] = TASKS
) -> tuple[HerderState, list[list[ev.Effect]]]:
    """Apply `events`, playing a well-behaved adapter, executor and cluster until nothing is left;
    returns the state and every `apply`'s effects, in order.

    As `settle` in the standalone reducer tests, plus the config topic: task configs this worker
    asks to write are read back (`TaskConfigsRead`), as every worker reads what the leader wrote.
    """
    seen: list[list[ev.Effect]] = []
    for event in events:  # each settles before the next
        pending: list[ev.Event] = [event]
        while pending:
            state, effects = apply(state, pending.pop(0))
            seen.append(effects)
            for effect in effects:
                pending.extend(_answers(state, effect, task_configs))
    return state, seen


def _answers(state: HerderState, effect: ev.Effect, task_configs: Sequence[dict[str, str]]) -> list[ev.Event]:
    """What a well-behaved adapter, executor and config topic answer to `effect`."""
    if isinstance(effect, ev.StartConnector):
        return [ev.ConnectorStarted(effect.name, effect.generation)]
    if isinstance(effect, ev.GenerateTaskConfigs):
        return [ev.TaskConfigsGenerated(effect.name, effect.generation, task_configs)]
    if isinstance(effect, ev.PersistTaskConfigs):
        return [ev.TaskConfigsRead(effect.name, effect.configs)]
    if isinstance(effect, ev.StartTask):
        done = ev.TaskPaused if effect.target is TargetState.PAUSED else ev.TaskRunning
        return [done(effect.id, effect.generation)]
    if isinstance(effect, ev.SetTaskTargetState):
        generation = state.connectors[effect.id.connector].tasks[effect.id.task].generation
        done = ev.TaskPaused if effect.target is TargetState.PAUSED else ev.TaskRunning
        return [done(effect.id, generation)]
    return []


def settle(
    state: HerderState, event: ev.Event, task_configs: Sequence[dict[str, str]] = TASKS
) -> HerderState:
    """The state once `event` and everything it leads to are folded in (see `play`)."""
    return play(state, [event], task_configs)[0]


def owner_running() -> HerderState:
    """This worker owns the connector and both tasks; all run."""
    return settle(owning([NAME], [T0, T1]), ev.ConnectorConfigRead(NAME, CONFIG, TargetState.STARTED))


def follower(tasks: Sequence[ConnectorTaskId] = ()) -> HerderState:
    """Another worker owns the connector; this one owns `tasks` (running) and knows both task configs."""
    state = settle(owning([], tasks), ev.ConnectorConfigRead(NAME, CONFIG, TargetState.STARTED))
    return settle(state, ev.TaskConfigsRead(NAME, TASKS))


def statuses(effects: list[ev.Effect]) -> list[ev.Effect]:
    """Only the status-store effects."""
    return [e for e in effects if isinstance(e, STATUS_EFFECTS)]


def observed(state: State) -> ev.Observed:
    return ev.Observed(state, None, W)


# --- ConnectorConfigRead -------------------------------------------------------------------------------


def test_new_connector_read_is_started_by_its_owner_with_status() -> None:
    state, effects = apply(owning([NAME]), ev.ConnectorConfigRead(NAME, CONFIG, TargetState.STARTED))
    assert effects == [ev.StartConnector(NAME, CONFIG, 1), ev.PutConnectorStatus(NAME, observed(U))]
    assert state.connectors[NAME].instance == 1


def test_new_connector_read_elsewhere_is_known_but_not_started() -> None:
    state, effects = apply(owning(), ev.ConnectorConfigRead(NAME, CONFIG, TargetState.STARTED))
    assert effects == []
    record = state.connectors[NAME]
    assert (record.config, record.target, record.instance) == (CONFIG, TargetState.STARTED, 0)
    assert record.observed == observed(U)


@pytest.mark.parametrize(
    ("target", "owned", "expected_effects", "expected_state"),
    [
        (TargetState.PAUSED, True, [ev.PutConnectorStatus(NAME, observed(P))], P),
        (TargetState.STOPPED, True, [ev.PutConnectorStatus(NAME, observed(S))], S),
        (TargetState.PAUSED, False, [], P),
        (TargetState.STOPPED, False, [], S),
    ],
)
def test_new_connector_read_in_a_suspended_target_does_not_start(
    target: TargetState, owned: bool, expected_effects: list[ev.Effect], expected_state: State
) -> None:
    state, effects = apply(owning([NAME] if owned else []), ev.ConnectorConfigRead(NAME, CONFIG, target))
    assert effects == expected_effects
    record = state.connectors[NAME]
    assert (record.target, record.observed.state, record.instance) == (target, expected_state, 0)


def test_changed_config_read_restarts_the_owned_connector_without_writing() -> None:
    before = owner_running()
    state, effects = apply(before, ev.ConnectorConfigRead(NAME, NEW_CONFIG, TargetState.STARTED))
    generation = state.connectors[NAME].instance
    assert generation > before.connectors[NAME].instance
    assert control(effects) == [ev.StopConnector(NAME), ev.StartConnector(NAME, NEW_CONFIG, generation)]
    assert ev.PutConnectorStatus(NAME, observed(U)) in effects


def test_changed_config_read_restarts_owned_tasks_with_the_new_connector_config() -> None:
    """KAFKA-9228 across the cluster: the same task configs, the tasks still restart."""
    state = settle(owner_running(), ev.ConnectorConfigRead(NAME, NEW_CONFIG, TargetState.STARTED))
    record = state.connectors[NAME]
    assert summary(state) == (R, [R, R], TargetState.STARTED)
    assert record.applied_config == NEW_CONFIG
    assert [t.generation for t in record.tasks] == [5, 6]  # 1-3 before, 4 the new connector instance


def test_changed_config_read_on_a_worker_not_owning_the_connector_does_nothing_yet() -> None:
    before = follower([T0])
    state, effects = apply(before, ev.ConnectorConfigRead(NAME, NEW_CONFIG, TargetState.STARTED))
    assert effects == []
    assert state.connectors[NAME].config == NEW_CONFIG
    assert state.connectors[NAME].tasks == before.connectors[NAME].tasks  # restarted by TaskConfigsRead


@pytest.mark.parametrize("make", [owner_running, follower], ids=["owner", "follower"])
def test_unchanged_config_read_is_a_no_op(make: Callable[[], HerderState]) -> None:
    state = make()
    assert apply(state, ev.ConnectorConfigRead(NAME, dict(CONFIG), TargetState.STARTED)) == (state, [])


# --- ConnectorConfigDeleted ------------------------------------------------------------------------------


def test_deletion_read_by_the_owner_stops_everything_and_removes_the_status() -> None:
    state, effects = apply(owner_running(), ev.ConnectorConfigDeleted(NAME))
    assert NAME not in state.connectors
    assert effects == [ev.StopTask(T0), ev.StopTask(T1), ev.StopConnector(NAME), ev.RemoveStatus(NAME)]


def test_deletion_read_by_a_task_owner_stops_its_task_and_leaves_the_status() -> None:
    state, effects = apply(follower([T1]), ev.ConnectorConfigDeleted(NAME))
    assert NAME not in state.connectors
    assert effects == [ev.StopTask(T1)]


def test_deletion_read_by_a_worker_owning_nothing_only_forgets() -> None:
    state, effects = apply(follower(), ev.ConnectorConfigDeleted(NAME))
    assert (dict(state.connectors), effects) == ({}, [])


def test_deletion_of_an_unknown_connector_is_a_no_op() -> None:
    state = owner_running()
    assert apply(state, ev.ConnectorConfigDeleted("other")) == (state, [])


# --- TargetStateRead -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("target", "expected_control", "expected_statuses"),
    [
        (
            TargetState.PAUSED,
            [
                ev.SetTaskTargetState(T0, TargetState.PAUSED),
                ev.SetTaskTargetState(T1, TargetState.PAUSED),
                ev.StopConnector(NAME),
            ],
            [ev.PutConnectorStatus(NAME, observed(P))],
        ),
        (
            TargetState.STOPPED,
            [ev.StopTask(T0), ev.StopTask(T1), ev.StopConnector(NAME)],
            [ev.PutConnectorStatus(NAME, observed(S)), ev.RemoveTaskStatus(T0), ev.RemoveTaskStatus(T1)],
        ),
    ],
)
def test_target_read_by_the_owner_is_applied_without_writing(
    target: TargetState, expected_control: list[ev.Effect], expected_statuses: list[ev.Effect]
) -> None:
    state, effects = apply(owner_running(), ev.TargetStateRead(NAME, target))
    assert control(effects) == expected_control
    assert statuses(effects) == expected_statuses
    assert state.connectors[NAME].target is target


@pytest.mark.parametrize(
    ("start", "target", "expected"),
    [
        (TargetState.STARTED, TargetState.PAUSED, (P, [P, P], TargetState.PAUSED)),
        (TargetState.STARTED, TargetState.STOPPED, (S, [], TargetState.STOPPED)),
        (TargetState.PAUSED, TargetState.STARTED, (R, [R, R], TargetState.STARTED)),
        (TargetState.PAUSED, TargetState.STOPPED, (S, [], TargetState.STOPPED)),
        (TargetState.STOPPED, TargetState.STARTED, (R, [R, R], TargetState.STARTED)),
        (TargetState.STOPPED, TargetState.PAUSED, (P, [], TargetState.PAUSED)),
    ],
)
def test_target_read_by_the_owner_reaches_the_target(
    start: TargetState, target: TargetState, expected: Any
) -> None:
    state = owner_running()
    if start is not TargetState.STARTED:
        state = settle(state, ev.TargetStateRead(NAME, start))
    assert summary(settle(state, ev.TargetStateRead(NAME, target))) == expected


@pytest.mark.parametrize("target", list(TargetState))
@pytest.mark.parametrize("make", [owner_running, follower], ids=["owner", "follower"])
def test_target_read_never_writes_the_config_store(
    make: Callable[[], HerderState], target: TargetState
) -> None:
    state = make()
    for step in (TargetState.PAUSED, TargetState.STOPPED, TargetState.STARTED, target):
        state, effects = apply(state, ev.TargetStateRead(NAME, step))
        assert [e for e in effects if isinstance(e, ev.STORE_WRITES)] == []


def test_resume_read_by_the_owner_resumes_tasks_and_starts_the_connector() -> None:
    state = settle(owner_running(), ev.TargetStateRead(NAME, TargetState.PAUSED))
    state, effects = apply(state, ev.TargetStateRead(NAME, TargetState.STARTED))
    assert control(effects) == [
        ev.SetTaskTargetState(T0, TargetState.STARTED),
        ev.SetTaskTargetState(T1, TargetState.STARTED),
        ev.StartConnector(NAME, CONFIG, state.connectors[NAME].instance),
    ]


@pytest.mark.parametrize(
    ("tasks", "target", "expected"),
    [
        ((), TargetState.PAUSED, []),
        ((T1,), TargetState.PAUSED, [ev.SetTaskTargetState(T1, TargetState.PAUSED)]),
        ((), TargetState.STOPPED, []),
        ((T1,), TargetState.STOPPED, [ev.StopTask(T1), ev.RemoveTaskStatus(T1)]),
    ],
)
def test_target_read_elsewhere_touches_only_owned_tasks(
    tasks: tuple[ConnectorTaskId, ...], target: TargetState, expected: list[ev.Effect]
) -> None:
    state, effects = apply(follower(tasks), ev.TargetStateRead(NAME, target))
    assert effects == expected
    assert state.connectors[NAME].target is target


def test_target_read_for_an_unknown_connector_or_the_same_target_is_a_no_op() -> None:
    state = owner_running()
    assert apply(state, ev.TargetStateRead("other", TargetState.PAUSED)) == (state, [])
    assert apply(state, ev.TargetStateRead(NAME, TargetState.STARTED)) == (state, [])


# --- TaskConfigsRead -------------------------------------------------------------------------------------


def test_task_configs_read_start_only_owned_tasks() -> None:
    state = settle(owning([], [T0]), ev.ConnectorConfigRead(NAME, CONFIG, TargetState.STARTED))
    state, effects = apply(state, ev.TaskConfigsRead(NAME, TASKS))
    assert effects == [
        ev.StartTask(T0, CONFIG, TASKS[0], TargetState.STARTED, 1),
        ev.PutTaskStatus(T0, observed(U)),
    ]
    record = state.connectors[NAME]
    assert record.task_configs == tuple(TASKS)
    assert [t.generation for t in record.tasks] == [1, 0]


def test_new_task_configs_read_restart_owned_tasks_only() -> None:
    state, effects = apply(follower([T0]), ev.TaskConfigsRead(NAME, NEW_TASKS))
    generation = state.connectors[NAME].tasks[0].generation
    assert control(effects) == [
        ev.StopTask(T0),
        ev.StartTask(T0, CONFIG, NEW_TASKS[0], TargetState.STARTED, generation),
    ]
    assert statuses(effects) == [ev.PutTaskStatus(T0, observed(U))]
    assert state.connectors[NAME].tasks[1].generation == 0


def test_fewer_task_configs_read_remove_the_status_of_an_owned_task_only() -> None:
    _, effects = apply(follower([T1]), ev.TaskConfigsRead(NAME, NEW_TASKS[:1]))
    assert effects == [ev.StopTask(T1), ev.RemoveTaskStatus(T1)]
    state, effects = apply(follower([T0]), ev.TaskConfigsRead(NAME, NEW_TASKS[:1]))
    generation = state.connectors[NAME].tasks[0].generation
    assert effects == [
        ev.StopTask(T0),
        ev.StartTask(T0, CONFIG, NEW_TASKS[0], TargetState.STARTED, generation),
        ev.PutTaskStatus(T0, observed(U)),
    ]


@pytest.mark.parametrize("make", [owner_running, lambda: follower([T0])], ids=["owner", "follower"])
def test_same_task_configs_read_with_the_applied_config_restart_nothing(
    make: Callable[[], HerderState],
) -> None:
    state = make()
    assert apply(state, ev.TaskConfigsRead(NAME, [dict(c) for c in TASKS])) == (state, [])


def test_same_task_configs_read_after_a_config_change_restart_owned_tasks() -> None:
    """KAFKA-9228 on a worker running only tasks: the connector config changed, the task configs did not."""
    state = settle(follower([T0]), ev.ConnectorConfigRead(NAME, NEW_CONFIG, TargetState.STARTED))
    state, effects = apply(state, ev.TaskConfigsRead(NAME, TASKS))
    generation = state.connectors[NAME].tasks[0].generation
    assert control(effects) == [
        ev.StopTask(T0),
        ev.StartTask(T0, NEW_CONFIG, TASKS[0], TargetState.STARTED, generation),
    ]
    assert state.connectors[NAME].applied_config == NEW_CONFIG


def test_task_configs_read_for_a_paused_connector_start_paused() -> None:
    state = settle(owning([], [T0, T1]), ev.ConnectorConfigRead(NAME, CONFIG, TargetState.PAUSED))
    _, effects = apply(state, ev.TaskConfigsRead(NAME, TASKS))
    assert [(e.id, e.target) for e in control(effects) if isinstance(e, ev.StartTask)] == [
        (T0, TargetState.PAUSED),
        (T1, TargetState.PAUSED),
    ]


def test_task_configs_read_for_a_stopped_connector_start_nothing() -> None:
    state = settle(owning([], [T0, T1]), ev.ConnectorConfigRead(NAME, CONFIG, TargetState.STOPPED))
    state, effects = apply(state, ev.TaskConfigsRead(NAME, TASKS))
    assert kinds(effects) == []
    assert state.connectors[NAME].task_configs == tuple(TASKS)


def test_task_configs_read_for_an_unknown_connector_are_ignored() -> None:
    state = owning([NAME], [T0])
    assert apply(state, ev.TaskConfigsRead(NAME, TASKS)) == (state, [])


# --- AssignmentChanged -----------------------------------------------------------------------------------


A0, B0 = ConnectorTaskId("a", 0), ConnectorTaskId("b", 0)
A_CONFIG = {"name": "a", "connector.class": "X"}
B_CONFIG = {"name": "b", "connector.class": "X"}


def two_connectors() -> HerderState:
    """Connectors ``b`` then ``a`` (in that order), one task each; this worker runs ``a`` and ``a-0``."""
    state = owning(["a"], [A0])
    state = settle(state, ev.ConnectorConfigRead("b", B_CONFIG, TargetState.STARTED), TASKS[:1])
    state = settle(state, ev.TaskConfigsRead("b", TASKS[:1]))
    return settle(state, ev.ConnectorConfigRead("a", A_CONFIG, TargetState.STARTED), TASKS[:1])


def test_revoked_instances_stop_before_added_ones_start() -> None:
    before = two_connectors()
    assert list(before.connectors) == ["b", "a"]  # the added connector comes first in the state
    state, effects = apply(before, ev.AssignmentChanged(frozenset({"b"}), frozenset({B0})))
    b = state.connectors["b"]
    assert effects == [
        ev.StopTask(A0),
        ev.StopConnector("a"),
        ev.StartConnector("b", B_CONFIG, b.instance),
        ev.StartTask(B0, B_CONFIG, TASKS[0], TargetState.STARTED, b.tasks[0].generation),
    ]
    assert state.owned == Owned(frozenset({"b"}), frozenset({B0}))
    assert state.connectors["a"].observed.state is U and state.connectors["a"].tasks[0].generation == 0


def test_a_move_writes_no_status_for_the_revoked_instances() -> None:
    """The revoked 'a' and 'a-0' became UNASSIGNED here, but their new owner writes their statuses."""
    _, effects = apply(two_connectors(), ev.AssignmentChanged(frozenset({"b"}), frozenset({B0})))
    assert statuses(effects) == []


def test_status_writes_follow_ownership_through_a_settled_move() -> None:
    _, seen = play(two_connectors(), [ev.AssignmentChanged(frozenset({"b"}), frozenset({B0}))], TASKS[:1])
    written = [e for effects in seen for e in statuses(effects)]
    assert written == [ev.PutConnectorStatus("b", observed(R)), ev.PutTaskStatus(B0, observed(R))]


def test_the_same_assignment_again_changes_nothing() -> None:
    state = two_connectors()
    assert apply(state, ev.AssignmentChanged(frozenset({"a"}), frozenset({A0}))) == (state, [])


def test_revoking_the_connector_keeps_its_tasks_running() -> None:
    state, effects = apply(owner_running(), ev.AssignmentChanged(frozenset(), frozenset({T0, T1})))
    assert effects == [ev.StopConnector(NAME)]
    assert [t.observed.state for t in state.connectors[NAME].tasks] == [R, R]


def test_revoking_a_task_stops_it_without_a_status_write() -> None:
    state, effects = apply(owner_running(), ev.AssignmentChanged(frozenset({NAME}), frozenset({T0})))
    assert effects == [ev.StopTask(T1)]
    assert state.connectors[NAME].tasks[1].observed == observed(U)


def test_an_assignment_read_before_the_config_starts_on_the_config() -> None:
    state, effects = apply(
        HerderState(W, owned=Owned()), ev.AssignmentChanged(frozenset({NAME}), frozenset({T0}))
    )
    assert (dict(state.connectors), effects) == ({}, [])
    state, effects = apply(state, ev.ConnectorConfigRead(NAME, CONFIG, TargetState.STARTED))
    assert control(effects) == [ev.StartConnector(NAME, CONFIG, 1)]
    state, effects = apply(state, ev.TaskConfigsRead(NAME, TASKS))
    assert control(effects) == [ev.StartTask(T0, CONFIG, TASKS[0], TargetState.STARTED, 2)]


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        (TargetState.STARTED, [(T0, TargetState.STARTED), (T1, TargetState.STARTED)]),
        (TargetState.PAUSED, [(T0, TargetState.PAUSED), (T1, TargetState.PAUSED)]),
        (TargetState.STOPPED, []),
    ],
)
def test_added_tasks_start_in_the_connectors_target(
    target: TargetState, expected: list[tuple[ConnectorTaskId, TargetState]]
) -> None:
    state = settle(owning(), ev.ConnectorConfigRead(NAME, CONFIG, target))
    state = settle(state, ev.TaskConfigsRead(NAME, TASKS if target is not TargetState.STOPPED else []))
    _, effects = apply(state, ev.AssignmentChanged(frozenset(), frozenset({T0, T1})))
    assert [(e.id, e.target) for e in effects if isinstance(e, ev.StartTask)] == expected


def test_added_connector_starts_with_status_once_running() -> None:
    state = settle(follower(), ev.AssignmentChanged(frozenset({NAME}), frozenset({T0, T1})))
    assert summary(state) == (R, [R, R], TargetState.STARTED)
    assert state.connectors[NAME].observed == observed(R)


@pytest.mark.parametrize(("target", "state"), [(TargetState.PAUSED, P), (TargetState.STOPPED, S)])
def test_added_suspended_connector_gets_its_status_written_by_the_new_owner(
    target: TargetState, state: State
) -> None:
    before = settle(owning(), ev.ConnectorConfigRead(NAME, CONFIG, target))
    _, effects = apply(before, ev.AssignmentChanged(frozenset({NAME}), frozenset()))
    assert ev.PutConnectorStatus(NAME, observed(state)) in effects


# --- standalone: owned=None runs everything, as before --------------------------------------------------


EVERYTHING = Owned(frozenset({NAME}), frozenset({T0, T1}))
SCENARIOS: list[list[ev.Event]] = [
    [ev.ConnectorConfigured(NAME, CONFIG)],
    [ev.ConnectorConfigured(NAME, CONFIG), ev.TargetStateSet(NAME, TargetState.PAUSED)],
    [ev.ConnectorConfigured(NAME, CONFIG), ev.TargetStateSet(NAME, TargetState.STOPPED)],
    [ev.ConnectorConfigured(NAME, CONFIG), ev.ConnectorConfigured(NAME, NEW_CONFIG)],
    [ev.ConnectorConfigured(NAME, CONFIG), ev.RestartRequest(NAME, include_tasks=True)],
    [ev.ConnectorConfigured(NAME, CONFIG), ev.ConnectorRemoved(NAME)],
    [ev.ConnectorsLoaded((ev.ConnectorLoaded(NAME, CONFIG, TargetState.PAUSED, TASKS),))],
    [ev.ConnectorConfigRead(NAME, CONFIG, TargetState.STARTED), ev.TargetStateRead(NAME, TargetState.PAUSED)],
    [ev.ConnectorConfigRead(NAME, CONFIG, TargetState.STARTED), ev.ConnectorConfigDeleted(NAME)],
]


@pytest.mark.parametrize("events", SCENARIOS, ids=lambda es: "-".join(type(e).__name__ for e in es))
def test_a_worker_owning_everything_behaves_as_a_standalone_worker(events: list[ev.Event]) -> None:
    standalone, standalone_effects = play(HerderState(W), events)
    distributed, distributed_effects = play(HerderState(W, owned=EVERYTHING), events)
    assert distributed_effects == standalone_effects
    assert distributed.connectors == standalone.connectors


def test_standalone_state_starts_everything_read_and_writes_every_status() -> None:
    state, effects = apply(HerderState(W), ev.ConnectorConfigRead(NAME, CONFIG, TargetState.STARTED))
    assert state.owned is None
    assert effects == [ev.StartConnector(NAME, CONFIG, 1), ev.PutConnectorStatus(NAME, observed(U))]
    state, effects = apply(state, ev.TaskConfigsRead(NAME, TASKS))
    assert effects == [
        ev.StartTask(T0, CONFIG, TASKS[0], TargetState.STARTED, 2),
        ev.StartTask(T1, CONFIG, TASKS[1], TargetState.STARTED, 3),
        ev.PutTaskStatus(T0, observed(U)),
        ev.PutTaskStatus(T1, observed(U)),
    ]
