"""The reducer and stalls (kconnect's extension): a stalled task stays RUNNING, its trace says why."""

from __future__ import annotations

from kconnect.herder import events as ev
from kconnect.herder.machine import apply
from kconnect.herder.state import HerderState
from kconnect.model import ConnectorTaskId, State, TargetState

from tests.unit.kconnect.herder.test_machine import NAME, T0, W, failed_task, in_target, running

TRACE = "kconnect: stalled since 2026-11-26T06:10:02Z: poll() has not returned for 63 s"


def generation(state: HerderState, index: int = 0) -> int:
    return state.connectors[NAME].tasks[index].generation


def test_a_stall_sets_the_running_tasks_trace_and_its_end_clears_it() -> None:
    state = running()
    state, effects = apply(state, ev.TaskStalled(T0, generation(state), TRACE))
    stalled = ev.Observed(State.RUNNING, TRACE, W)
    assert state.connectors[NAME].tasks[0].observed == stalled
    assert effects == [ev.PutTaskStatus(T0, stalled)], "status written (the status topic, distributed)"
    state, effects = apply(state, ev.TaskStallEnded(T0, generation(state)))
    assert state.connectors[NAME].tasks[0].observed == ev.Observed(State.RUNNING, None, W)
    assert effects == [ev.PutTaskStatus(T0, ev.Observed(State.RUNNING, None, W))]


def test_a_stall_end_of_a_task_that_was_not_stalled_writes_nothing() -> None:
    state = running()
    assert apply(state, ev.TaskStallEnded(T0, generation(state))) == (state, [])


def test_a_report_of_an_older_generation_is_ignored() -> None:
    state = running()
    assert apply(state, ev.TaskStalled(T0, generation(state) - 1, TRACE)) == (state, [])
    assert apply(state, ev.TaskStalled(T0, 0, TRACE)) == (state, [])


def test_only_a_running_task_shows_a_stall() -> None:
    paused = in_target(TargetState.PAUSED)
    assert apply(paused, ev.TaskStalled(T0, generation(paused), TRACE)) == (paused, [])
    failed = failed_task()
    stalled = ev.TaskStalled(ConnectorTaskId(NAME, 1), generation(failed, 1), TRACE)
    assert apply(failed, stalled) == (failed, [])


def test_a_task_that_reports_running_again_has_no_stall_trace() -> None:
    state = running()
    state, _ = apply(state, ev.TaskStalled(T0, generation(state), TRACE))
    state, _ = apply(state, ev.TaskRunning(T0, generation(state)))
    assert state.connectors[NAME].tasks[0].observed.trace is None
