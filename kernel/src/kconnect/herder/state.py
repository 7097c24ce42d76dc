"""The herder's state as immutable values: what the reducer (`kconnect.herder.machine`) folds events into.

Desired state (config, target state, task configs) is kept apart from observed state (the
connector's and each task's `Observed`), as in Kafka. Pure data and pure queries, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from kconnect.herder.events import Observed
from kconnect.model import ConnectorTaskId, State, TargetState

Config = Mapping[str, str]


@dataclass(frozen=True)
class TaskRecord:
    """One task: its config, observed state and the generation of its running instance (0: none)."""

    config: Config
    observed: Observed
    generation: int = 0


@dataclass(frozen=True)
class ConnectorRecord:
    """One connector's desired and observed state.

    `instance` is the generation of the running connector instance (0: none); `generation` is the
    last number handed out, for connector and task instances alike. `applied_config` is the
    connector config the current tasks were configured with (Kafka's AppliedConnectorConfig,
    KAFKA-9228): when it differs from `config`, the tasks are restarted with the new config even
    if the connector's `task_configs` did not change. `configs_from` is the connector instance
    whose `task_configs` gave the current tasks (0: loaded from the store, or none yet).
    """

    name: str
    config: Config
    target: TargetState
    observed: Observed
    tasks: tuple[TaskRecord, ...] = ()
    instance: int = 0
    generation: int = 0
    applied_config: Config | None = None
    configs_from: int = 0

    @property
    def task_configs(self) -> tuple[Config, ...]:
        """The task configs, in task order."""
        return tuple(t.config for t in self.tasks)

    def task_ids(self) -> list[ConnectorTaskId]:
        """The ids of the connector's tasks, in task order."""
        return [ConnectorTaskId(self.name, i) for i in range(len(self.tasks))]


@dataclass(frozen=True)
class Owned:
    """The connectors and tasks a distributed worker was assigned (runs, and writes statuses of)."""

    connectors: frozenset[str] = frozenset()
    tasks: frozenset[ConnectorTaskId] = frozenset()


@dataclass(frozen=True)
class HerderState:
    """Everything the herder knows, as one immutable value.

    `owned` is None for a standalone worker (it runs everything); a distributed worker folds every
    connector into its state but runs, and reports the status of, only what `owned` holds.
    """

    worker_id: str = ""
    connectors: Mapping[str, ConnectorRecord] = field(default_factory=dict)
    owned: Owned | None = None

    def owns_connector(self, name: str) -> bool:
        """Whether this worker runs the connector's instance."""
        return self.owned is None or name in self.owned.connectors

    def owns_task(self, task: ConnectorTaskId) -> bool:
        """Whether this worker runs the task."""
        return self.owned is None or task in self.owned.tasks

    def with_connector(self, record: ConnectorRecord) -> HerderState:
        """A copy with `record` added or replaced."""
        return replace(self, connectors={**self.connectors, record.name: record})

    def without(self, name: str) -> HerderState:
        """A copy without the connector `name`."""
        return replace(self, connectors={k: v for k, v in self.connectors.items() if k != name})


@dataclass(frozen=True)
class RestartPlan:
    """Which instances a KIP-745 restart restarts (Kafka's RestartPlan)."""

    connector: bool
    tasks: tuple[int, ...]


def restart_plan(record: ConnectorRecord, include_tasks: bool, only_failed: bool) -> RestartPlan:
    """The connector restarts iff not `only_failed` or it FAILED; a task iff `include_tasks` and likewise."""

    def chosen(observed: Observed) -> bool:
        return not only_failed or observed.state is State.FAILED

    tasks = tuple(i for i, t in enumerate(record.tasks) if include_tasks and chosen(t.observed))
    return RestartPlan(chosen(record.observed), tasks)


def awaiting_task_configs(state: HerderState, name: str) -> bool:
    """True while the connector should be running but its current instance has not yet started and
    produced task configs (nor failed). A config write waits for this to end before it answers with
    the connector's tasks, as Kafka's standalone herder does."""
    record = state.connectors.get(name)
    return (
        record is not None
        and record.target is TargetState.STARTED
        and record.instance != 0
        and record.observed.state is not State.FAILED
        and record.configs_from != record.instance
    )
