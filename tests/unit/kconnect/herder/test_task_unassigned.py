"""A task the executor cannot start yet (no free Spark task slot): UNASSIGNED with the reason as trace."""

from __future__ import annotations

from kconnect.herder import events as ev
from kconnect.herder.machine import apply
from kconnect.herder.state import HerderState
from kconnect.model import ConnectorTaskId, State

W, NAME = "worker:8083", "c"
T0 = ConnectorTaskId(NAME, 0)
REASON = (
    "Waiting for a Spark task slot: Spark has 2 task slots and 3 Spark tasks hosting connector tasks need one"
)


def started() -> tuple[HerderState, int]:
    """A connector whose one task was handed to the executor and has not reported yet."""
    state, pending = HerderState(W), [ev.ConnectorConfigured(NAME, {"connector.class": "X"})]
    generation = 0
    while pending:
        state, effects = apply(state, pending.pop(0))
        for effect in effects:
            if isinstance(effect, ev.StartConnector):
                pending.append(ev.ConnectorStarted(effect.name, effect.generation))
            elif isinstance(effect, ev.GenerateTaskConfigs):
                pending.append(ev.TaskConfigsGenerated(effect.name, effect.generation, [{"task.class": "T"}]))
            elif isinstance(effect, ev.StartTask):
                generation = effect.generation
    return state, generation


def test_a_waiting_task_shows_unassigned_with_the_reason_then_running() -> None:
    state, generation = started()
    state, effects = apply(state, ev.TaskUnassigned(T0, generation, REASON))
    task = state.connectors[NAME].tasks[0]
    assert task.observed == ev.Observed(State.UNASSIGNED, REASON, W)
    assert task.generation == generation, "the waiting run is still the current instance"
    assert ev.PutTaskStatus(T0, task.observed) in effects

    state, _ = apply(state, ev.TaskRunning(T0, generation))
    assert state.connectors[NAME].tasks[0].observed == ev.Observed(State.RUNNING, None, W)


def test_a_stale_waiting_report_is_ignored() -> None:
    state, generation = started()
    assert apply(state, ev.TaskUnassigned(T0, generation + 99, REASON)) == (state, [])
