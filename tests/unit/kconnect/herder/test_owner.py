"""The herder's owner: effects first-in-first-out, and what a failing effect does to the state."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from kconnect.herder import events as ev
from kconnect.herder.owner import fold
from kconnect.herder.state import HerderState
from kconnect.model import ConnectorTaskId, State, TargetState
from kconnect.storage import StoreError

W = "worker:8083"
NAME = "c"
CONFIG = {"name": NAME, "connector.class": "X", "tasks.max": "2"}
TASKS = [{"n": "0", "task.class": "T"}, {"n": "1", "task.class": "T"}]
T0, T1 = ConnectorTaskId(NAME, 0), ConnectorTaskId(NAME, 1)


class Adapters:
    """An effect runner that records every effect it runs and answers as well-behaved adapters."""

    def __init__(self, fail: Callable[[ev.Effect], bool] = lambda _: False) -> None:
        self.ran: list[ev.Effect] = []
        self.fail = fail

    async def __call__(self, effect: ev.Effect) -> list[ev.Event]:
        self.ran.append(effect)
        if self.fail(effect):
            raise StoreError(f"/state/configs.json: cannot write ({type(effect).__name__})")
        if isinstance(effect, ev.StartConnector):
            return [ev.ConnectorStarted(effect.name, effect.generation)]
        if isinstance(effect, ev.GenerateTaskConfigs):
            return [ev.TaskConfigsGenerated(effect.name, effect.generation, TASKS)]
        if isinstance(effect, ev.StartTask):
            return [ev.TaskRunning(effect.id, effect.generation)]
        return []


def running_put(task: ConnectorTaskId) -> ev.PutTaskStatus:
    return ev.PutTaskStatus(task, ev.Observed(State.RUNNING, None, W))


async def running() -> HerderState:
    folded = await fold(HerderState(W), ev.ConnectorConfigured(NAME, CONFIG), Adapters())
    assert folded.error is None
    return folded.state


async def test_follow_up_events_queue_behind_the_remaining_effects() -> None:
    adapters = Adapters()
    folded = await fold(HerderState(W), ev.ConnectorConfigured(NAME, CONFIG), adapters)
    ran = adapters.ran
    # Both tasks are started before either task's RUNNING report is folded in (depth first would
    # put T0's RUNNING status between the two starts).
    start_t1 = next(i for i, e in enumerate(ran) if isinstance(e, ev.StartTask) and e.id == T1)
    assert start_t1 < ran.index(running_put(T0)) < ran.index(running_put(T1))
    # The connector's follow-ups in the order they were asked for.
    control = [type(e).__name__ for e in ran if not type(e).__name__.startswith(("Put", "Remove"))]
    assert control == [
        "PersistConfig",
        "StartConnector",
        "GenerateTaskConfigs",
        "PersistTaskConfigs",
        "StartTask",
        "StartTask",
    ]
    record = folded.state.connectors[NAME]
    assert [t.observed.state for t in record.tasks] == [State.RUNNING, State.RUNNING]


async def test_every_effect_of_an_event_runs_before_its_answers() -> None:
    state = await running()
    adapters = Adapters()
    await fold(state, ev.RestartRequest(NAME, include_tasks=True), adapters)
    kinds = [type(e).__name__ for e in adapters.ran]
    first_answer = kinds.index("GenerateTaskConfigs")  # what ConnectorStarted asks for
    assert kinds[:first_answer].count("StartTask") == 2
    assert "StartConnector" in kinds[:first_answer]


async def test_a_failed_store_write_drops_the_event() -> None:
    state = await running()
    adapters = Adapters(fail=lambda e: isinstance(e, ev.PersistConfig))
    folded = await fold(state, ev.ConnectorConfigured(NAME, {**CONFIG, "x": "1"}), adapters)
    assert folded.state == state
    assert isinstance(folded.error, StoreError) and "configs.json" in str(folded.error)
    assert isinstance(folded.failed, ev.PersistConfig)
    assert adapters.ran == [folded.failed]  # the connector was not restarted


@pytest.mark.parametrize(
    "event",
    [
        ev.TargetStateSet(NAME, TargetState.STOPPED),
        ev.TargetStateSet(NAME, TargetState.PAUSED),
        ev.ConnectorRemoved(NAME),
    ],
)
async def test_a_failed_store_write_touches_nothing_else(event: ev.Event) -> None:
    state = await running()
    adapters = Adapters(fail=lambda e: isinstance(e, ev.STORE_WRITES))
    folded = await fold(state, event, adapters)
    assert folded.state == state
    assert len(adapters.ran) == 1 and isinstance(adapters.ran[0], ev.STORE_WRITES)


async def test_a_later_failure_still_runs_the_remaining_effects() -> None:
    state = await running()
    adapters = Adapters(fail=lambda e: isinstance(e, ev.StopTask) and e.id == T0)
    folded = await fold(state, ev.TargetStateSet(NAME, TargetState.STOPPED), adapters)
    assert isinstance(folded.failed, ev.StopTask)
    assert ev.StopTask(T1) in adapters.ran and ev.StopConnector(NAME) in adapters.ran
    record = folded.state.connectors[NAME]
    assert (record.target, record.tasks, record.observed.state) == (TargetState.STOPPED, (), State.STOPPED)
