"""The herder's state as REST's result types (`kconnect.herder.api`): pure functions of a ConnectorRecord."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from kconnect.herder.connectors import TASK_CLASS_CONFIG
from kconnect.herder.events import Observed
from kconnect.herder.state import ConnectorRecord, RestartPlan
from kconnect.model import (
    ConnectorInfo,
    ConnectorStateInfo,
    ConnectorType,
    State,
    StateInfo,
    TaskInfo,
    TaskStateInfo,
)


@dataclass(frozen=True)
class Versions:
    """Plugin versions a status shows (Kafka 4.1's ``version``): the connector's, then each task's."""

    connector: str | None = None
    tasks: Sequence[str | None] = ()

    def task(self, index: int) -> str | None:
        """Task `index`'s version, None when unknown."""
        return self.tasks[index] if 0 <= index < len(self.tasks) else None


NO_VERSIONS = Versions()


def versions(
    record: ConnectorRecord,
    plugin: Callable[[Mapping[str, str]], Any],
    task_version: Callable[[Mapping[str, str], str], str | None],
) -> Versions:
    """The connector plugin's version (`plugin(config).version`) and each task class's
    (`task_version(config, task.class)`, resolved through the registered connector, never by
    importing the text); none if the plugin cannot be found."""
    try:
        connector = _defined(plugin(record.config).version)
    except Exception:
        return NO_VERSIONS
    tasks = [
        _defined(task_version(record.config, t.config.get(TASK_CLASS_CONFIG, ""))) or connector
        for t in record.tasks
    ]
    return Versions(connector, tasks)


def _defined(version: str | None) -> str | None:
    return None if version in (None, "", "undefined") else version


def _state(observed: Observed, restarting: bool = False, version: str | None = None) -> StateInfo:
    state = State.RESTARTING if restarting else observed.state
    return StateInfo(state, observed.worker_id, observed.trace, version)


def _task_state(
    index: int, observed: Observed, restarting: bool = False, version: str | None = None
) -> TaskStateInfo:
    state = State.RESTARTING if restarting else observed.state
    return TaskStateInfo(state, observed.worker_id, observed.trace, version, id=index)


def connector_info(record: ConnectorRecord, kind: ConnectorType) -> ConnectorInfo:
    """`GET /connectors/{name}`: config, task ids (0..n-1) and type."""
    return ConnectorInfo(record.name, dict(record.config), record.task_ids(), kind)


def task_infos(record: ConnectorRecord) -> list[TaskInfo]:
    """`GET /connectors/{name}/tasks`: each task's id and config (with ``task.class``)."""
    return [
        TaskInfo(task_id, dict(t.config)) for task_id, t in zip(record.task_ids(), record.tasks, strict=True)
    ]


def task_status(record: ConnectorRecord, index: int, versions: Versions = NO_VERSIONS) -> TaskStateInfo:
    """One task's observed state."""
    return _task_state(index, record.tasks[index].observed, version=versions.task(index))


def connector_status(
    record: ConnectorRecord,
    kind: ConnectorType,
    plan: RestartPlan | None = None,
    versions: Versions = NO_VERSIONS,
) -> ConnectorStateInfo:
    """The connector's and its tasks' observed states; with `plan`, Kafka's pre-restart snapshot
    (RESTARTING for what the plan restarts, everything else as it is)."""
    restarting_tasks = set(plan.tasks) if plan is not None else set()
    return ConnectorStateInfo(
        record.name,
        _state(record.observed, plan is not None and plan.connector, versions.connector),
        [
            _task_state(i, t.observed, i in restarting_tasks, versions.task(i))
            for i, t in enumerate(record.tasks)
        ],
        kind,
    )


def with_observed(record: ConnectorRecord, status: ConnectorStateInfo) -> ConnectorRecord:
    """`record` with the observed states of `status` (read from the status topic in distributed mode),
    so that a restart plan (`kconnect.herder.state.restart_plan`) sees what the owners reported."""
    by_id = {t.id: t for t in status.tasks}

    def observed(info: StateInfo | None, current: Observed) -> Observed:
        return current if info is None else Observed(info.state, info.trace, info.worker_id)

    tasks = tuple(replace(t, observed=observed(by_id.get(i), t.observed)) for i, t in enumerate(record.tasks))
    return replace(record, observed=observed(status.connector, record.observed), tasks=tasks)
