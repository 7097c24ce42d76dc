"""KIP-1004 ``tasks.max.enforce``: the rule, the reducer's check at task start, the adapter's check."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import pytest
from kconnect import hookimpl
from kconnect.herder import events as ev
from kconnect.herder.machine import apply
from kconnect.herder.state import HerderState, Owned
from kconnect.herder.tasks_max import (
    TooManyTasksError,
    failure_trace,
    too_many_tasks,
    too_many_tasks_warning,
)
from kconnect.model import ConnectorTaskId, State, TargetState
from kconnect.plugin_host import PluginHost

from tests.connectors import GreedySource
from tests.unit.kconnect.herder.herder_fakes import SwitchablePlugin, reaches, running_herder
from tests.unit.kconnect.herder.test_machine import W, control, settle

NAME = "c"
MESSAGE = (
    "The connector c has generated 3 tasks, which is greater than 2, the maximum number of tasks it is "
    "configured to create. This behaviour should be considered a bug and is disallowed. If necessary, it "
    "can be permitted by reconfiguring the connector with 'tasks.max.enforce' set to false; however, this "
    "option will be removed in a future release of Kafka Connect."
)
WARNING = (
    "The connector c has generated 3 tasks, which is greater than 2, the maximum number of tasks it is "
    "configured to create. This behavior should be considered a bug and will be disallowed in future "
    "releases of Kafka Connect. Please report this to the maintainers of the connector and request that "
    "they adjust their connector's taskConfigs() method to respect the maxTasks parameter."
)
CONFIG = {"name": NAME, "connector.class": "X", "tasks.max": "2"}
LAX = {**CONFIG, "tasks.max.enforce": "false"}
THREE = [{"n": str(i), "task.class": "T"} for i in range(3)]
R, F, U = State.RUNNING, State.FAILED, State.UNASSIGNED


# --- the rule ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("num_tasks", "config", "refused"),
    [
        (2, CONFIG, False),
        (3, CONFIG, True),
        (3, {**CONFIG, "tasks.max.enforce": "TRUE"}, True),
        (3, {**CONFIG, "tasks.max.enforce": " false "}, False),
        (3, LAX, False),
        (2, {"name": NAME}, True),  # tasks.max defaults to 1
        (3, {**CONFIG, "tasks.max": "${file:/etc/k.properties:max}"}, False),  # unresolved: not judged here
    ],
)
def test_too_many_tasks(num_tasks: int, config: Mapping[str, str], refused: bool) -> None:
    error = too_many_tasks(NAME, num_tasks, config)
    assert (error is not None) is refused


def test_error_and_warning_carry_kafkas_texts() -> None:
    error = TooManyTasksError(NAME, 3, 2)
    assert str(error) == MESSAGE
    assert error.java_class_name == "org.apache.kafka.connect.runtime.TooManyTasksException"
    assert failure_trace(error) == f"kconnect.herder.tasks_max.TooManyTasksError: {MESSAGE}\n"
    assert too_many_tasks_warning(NAME, 3, 2) == WARNING


# --- the reducer: a stored set larger than tasks.max fails each task it would start ------------------


def _loaded(config: Mapping[str, str]) -> ev.Event:
    return ev.ConnectorsLoaded((ev.ConnectorLoaded(NAME, config, TargetState.STARTED, THREE),))


def _read_by_owner(config: Mapping[str, str]) -> tuple[HerderState, ev.Event]:
    tasks = frozenset(ConnectorTaskId(NAME, i) for i in range(3))
    state = HerderState(W, owned=Owned(frozenset(), tasks))
    state, _ = apply(state, ev.ConnectorConfigRead(NAME, config, TargetState.STARTED))
    return state, ev.TaskConfigsRead(NAME, THREE)


STARTS_FROM_STORED_SET = {
    "loaded at start-up": lambda config: (HerderState(W), _loaded(config)),
    "read from the config topic": _read_by_owner,
}


@pytest.mark.parametrize("source", list(STARTS_FROM_STORED_SET))
@pytest.mark.parametrize(
    ("config", "starts", "task_states"),
    [
        (CONFIG, 0, [F, F, F]),
        (LAX, 3, [U, U, U]),
        ({**CONFIG, "tasks.max": "3"}, 3, [U, U, U]),
    ],
)
def test_tasks_of_an_oversized_set_fail_instead_of_starting(
    source: str, config: Mapping[str, str], starts: int, task_states: list[State]
) -> None:
    state, event = STARTS_FROM_STORED_SET[source](config)
    state, effects = apply(state, event)
    assert sum(isinstance(e, ev.StartTask) for e in effects) == starts
    tasks = state.connectors[NAME].tasks
    assert [t.observed.state for t in tasks] == task_states
    assert all(t.generation == 0 for t in tasks) is (starts == 0)
    if starts == 0:
        expected = f"kconnect.herder.tasks_max.TooManyTasksError: {MESSAGE}\n"
        assert [t.observed.trace for t in tasks] == [expected] * 3
        written = [e for e in effects if isinstance(e, ev.PutTaskStatus)]
        assert [(e.id.task, e.status.state) for e in written] == [(0, F), (1, F), (2, F)]


def test_a_restart_of_a_refused_task_is_refused_again() -> None:
    state, _ = apply(HerderState(W), _loaded(CONFIG))
    state, effects = apply(state, ev.TaskRestartRequested(ConnectorTaskId(NAME, 1)))
    assert control(effects) == []
    assert state.connectors[NAME].tasks[1].observed.state is F


def test_oversized_generation_when_not_enforced_runs_every_task() -> None:
    """The adapter posts all the configs when the limit is off; the reducer starts them all."""
    state = settle(HerderState(W), ev.ConnectorConfigured(NAME, LAX), task_configs=THREE)
    assert [t.observed.state for t in state.connectors[NAME].tasks] == [R, R, R]


def test_connector_refused_by_the_limit_leaves_running_tasks_alone() -> None:
    """Kafka fails the connector; the tasks of the configs stored before run on (no task is stopped)."""
    state = settle(HerderState(W), ev.ConnectorConfigured(NAME, CONFIG), task_configs=THREE[:2])
    state, effects = apply(state, ev.ConnectorConfigured(NAME, {**CONFIG, "n": "new"}))
    instance = state.connectors[NAME].instance
    state, _ = apply(state, ev.ConnectorStarted(NAME, instance))
    state, effects = apply(
        state, ev.ConnectorFailed(NAME, instance, failure_trace(TooManyTasksError(NAME, 3, 2)))
    )
    assert control(effects) == []
    record = state.connectors[NAME]
    assert record.observed.state is F and MESSAGE in (record.observed.trace or "")
    assert [t.observed.state for t in record.tasks] == [R, R]


# --- the connector adapter, through a standalone herder ----------------------------------------------


class GreedyPlugin:
    @hookimpl
    def register_connectors(self, registry: Any) -> None:
        registry.add(GreedySource, aliases=["Greedy"])


@pytest.fixture(scope="module")
def plugins() -> PluginHost:
    return PluginHost.load(
        extra_plugins=[SwitchablePlugin(), GreedyPlugin()], disabled=["file", "spark", "basic_auth"]
    )


GREEDY = {"connector.class": "Greedy", "tasks.max": "2", "topic": "t"}


async def test_generating_too_many_tasks_fails_the_connector(plugins: PluginHost) -> None:
    async with running_herder(plugins) as (herder, executor):
        await herder.put_connector_config(NAME, GREEDY, allow_replace=False)
        await reaches(herder, (F, []), NAME)
        status = await herder.connector_status(NAME)
        assert status.connector.trace is not None
        assert f"kconnect.herder.tasks_max.TooManyTasksError: {MESSAGE}" in status.connector.trace
        assert await herder.task_configs(NAME) == []
        assert [call for call in executor.calls if call[0] == "start"] == []


async def test_too_many_tasks_run_when_not_enforced(
    plugins: PluginHost, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="kconnect.herder.connectors")
    async with running_herder(plugins) as (herder, _):
        await herder.put_connector_config(NAME, {**GREEDY, "tasks.max.enforce": "false"}, allow_replace=False)
        await reaches(herder, (R, [R, R, R]), NAME)
        assert len(await herder.task_configs(NAME)) == 3
    assert WARNING in caplog.messages
