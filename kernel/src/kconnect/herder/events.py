"""What the herder's reducer consumes (events) and asks for (effects). Plain frozen values, no behaviour.

Events come from four places: the front door (a REST call recorded as a fact), the config topic
in distributed mode (the config store's changes, `kconnect.storage.config_changes`, folded in as
they are), the connector adapter (user code started, failed, produced task configs) and the
executor (task states). A restart request is the vocabulary's `RestartRequest` wherever it comes
from (REST, the config topic, a connector's reload). Each
task or connector event from an adapter carries the `generation` of the instance it is about; the
reducer ignores it when that instance has since been replaced (a stale event).

Effects are carried out in order, first in first out, by the herder's owner task
(`kconnect.herder.owner`); an effect that stops a task completes before the next effect starts.
Connector calls (`StartConnector`, `GenerateTaskConfigs`, `StopConnector`) are user code: they run
in the connector's own thread, one at a time in order, and answer later with events.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kconnect.model import ConnectorTaskId, State, TargetState
from kconnect.model import RestartRequest as RestartRequest
from kconnect.storage.config_changes import Config as Config
from kconnect.storage.config_changes import ConnectorConfigDeleted as ConnectorConfigDeleted
from kconnect.storage.config_changes import ConnectorConfigRead as ConnectorConfigRead
from kconnect.storage.config_changes import LoggerLevelRead as LoggerLevelRead
from kconnect.storage.config_changes import TargetStateRead as TargetStateRead
from kconnect.storage.config_changes import TaskConfigsRead as TaskConfigsRead


@dataclass(frozen=True)
class Observed:
    """An observed state (Kafka's AbstractStatus): the state, its trace when FAILED, and where."""

    state: State
    trace: str | None = None
    worker_id: str = ""


# --- events: the front door -----------------------------------------------------------------------


@dataclass(frozen=True)
class ConnectorLoaded:
    """A connector read from the config store when the herder starts (one of `ConnectorsLoaded`)."""

    name: str
    config: Config
    target: TargetState
    task_configs: Sequence[Config]


@dataclass(frozen=True)
class ConnectorsLoaded:
    """Every connector read from the config store when the herder starts, folded in one step (one
    event per connector copied the connector map once each: quadratic at thousands of connectors)."""

    connectors: tuple[ConnectorLoaded, ...]


@dataclass(frozen=True)
class ConnectorConfigured:
    """A validated config was put for a connector (created when new; `initial_target` only applies then)."""

    name: str
    config: Config
    initial_target: TargetState | None = None


@dataclass(frozen=True)
class ConnectorRemoved:
    """The user deleted the connector."""

    name: str


@dataclass(frozen=True)
class TargetStateSet:
    """The user paused, resumed or stopped the connector."""

    name: str
    target: TargetState


@dataclass(frozen=True)
class TaskRestartRequested:
    """The user restarted one task."""

    id: ConnectorTaskId


@dataclass(frozen=True)
class ReconfigurationRequested:
    """The connector asked for `task_configs` to be called again (request_task_reconfiguration)."""

    name: str


@dataclass(frozen=True)
class AutoRestartDue:
    """An automatic restart's timer fired (`kconnect.herder.restart_scheduler`): restart the connector's
    instance (`task` None) or one task, as a manual restart does, if this worker runs it and it is still
    FAILED (whatever its state when `only_failed` is False)."""

    connector: str
    task: int | None = None
    only_failed: bool = True


@dataclass(frozen=True)
class ShutdownRequested:
    """The worker is stopping: stop every task and connector, keep configs."""


# --- events: the group (distributed mode) ---------------------------------------------------------


@dataclass(frozen=True)
class AssignmentChanged:
    """The group gave this worker a new assignment: run exactly these connectors and tasks."""

    connectors: frozenset[str]
    tasks: frozenset[ConnectorTaskId]


# --- events: the connector adapter ---------------------------------------------------------------


@dataclass(frozen=True)
class ConnectorStarted:
    """The connector instance's `start` returned."""

    name: str
    generation: int


@dataclass(frozen=True)
class ConnectorFailed:
    """The connector instance failed (in `start`, `task_configs` or through `raise_error`)."""

    name: str
    generation: int
    trace: str


@dataclass(frozen=True)
class ConnectorStopped:
    """The connector instance ended (its `stop` returned or raised)."""

    name: str
    generation: int


@dataclass(frozen=True)
class TaskConfigsGenerated:
    """The connector's `task_configs` returned these configs (each with ``task.class``)."""

    name: str
    generation: int
    configs: Sequence[Config]


# --- events: the executor ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TaskRunning:
    """The task started or resumed."""

    id: ConnectorTaskId
    generation: int


@dataclass(frozen=True)
class TaskPaused:
    """The task acknowledged a pause."""

    id: ConnectorTaskId
    generation: int


@dataclass(frozen=True)
class TaskFailed:
    """The task failed with this trace."""

    id: ConnectorTaskId
    generation: int
    trace: str


@dataclass(frozen=True)
class TaskStopped:
    """The task's run ended cleanly (its offsets committed). After a stop request the report is
    stale; for the current instance it means the task stopped unasked, which shows as FAILED."""

    id: ConnectorTaskId
    generation: int


@dataclass(frozen=True)
class TaskUnassigned:
    """The executor holds the task but cannot start it yet; `reason` says why (no free Spark slot)."""

    id: ConnectorTaskId
    generation: int
    reason: str


@dataclass(frozen=True)
class TaskStalled:
    """The RUNNING task has made no progress for its ``task.stall.timeout.ms``; `trace` says why
    (``kconnect: stalled since <time>: poll() has not returned for 63 s``). It stays RUNNING."""

    id: ConnectorTaskId
    generation: int
    trace: str


@dataclass(frozen=True)
class TaskStallEnded:
    """The stalled task moves again."""

    id: ConnectorTaskId
    generation: int


Event = (
    ConnectorsLoaded
    | ConnectorConfigured
    | ConnectorRemoved
    | TargetStateSet
    | RestartRequest
    | TaskRestartRequested
    | AutoRestartDue
    | ReconfigurationRequested
    | ShutdownRequested
    | ConnectorConfigRead
    | ConnectorConfigDeleted
    | TargetStateRead
    | TaskConfigsRead
    | LoggerLevelRead
    | AssignmentChanged
    | ConnectorStarted
    | ConnectorFailed
    | ConnectorStopped
    | TaskConfigsGenerated
    | TaskRunning
    | TaskPaused
    | TaskFailed
    | TaskStopped
    | TaskUnassigned
    | TaskStalled
    | TaskStallEnded
)


# --- effects -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StartConnector:
    """Instantiate the connector class, `initialize` and `start(config)` it; report Started / Failed."""

    name: str
    config: Config
    generation: int


@dataclass(frozen=True)
class StopConnector:
    """Call the running instance's `stop` (if any) and drop it; report ConnectorStopped."""

    name: str


@dataclass(frozen=True)
class GenerateTaskConfigs:
    """Call the running instance's `task_configs(tasks.max)`; report TaskConfigsGenerated / Failed."""

    name: str
    generation: int


@dataclass(frozen=True)
class StartTask:
    """Hand the task to the executor, starting in `target` (STARTED or PAUSED)."""

    id: ConnectorTaskId
    connector_config: Config
    task_config: Config
    target: TargetState
    generation: int


@dataclass(frozen=True)
class SetTaskTargetState:
    """Pause (PAUSED) or resume (STARTED) a running task."""

    id: ConnectorTaskId
    target: TargetState


@dataclass(frozen=True)
class StopTask:
    """Stop a task gracefully and wait for it."""

    id: ConnectorTaskId


@dataclass(frozen=True)
class SetLoggerLevel:
    """Set this worker's level of a logger namespace, by the level's name (Kafka's setWorkerLoggerLevel)."""

    namespace: str
    level: str


@dataclass(frozen=True)
class PersistConfig:
    """Write the connector's config (and its target state when given) to the config store."""

    name: str
    config: Config
    target: TargetState | None


@dataclass(frozen=True)
class PersistTargetState:
    """Write the connector's target state to the config store."""

    name: str
    target: TargetState


@dataclass(frozen=True)
class PersistTaskConfigs:
    """Write the connector's task configs to the config store (empty: none)."""

    name: str
    configs: Sequence[Config]


@dataclass(frozen=True)
class RemoveConfig:
    """Remove the connector from the config store."""

    name: str


@dataclass(frozen=True)
class PutConnectorStatus:
    """Record the connector's observed state in the status store."""

    name: str
    status: Observed


@dataclass(frozen=True)
class PutTaskStatus:
    """Record a task's observed state in the status store."""

    id: ConnectorTaskId
    status: Observed


@dataclass(frozen=True)
class RemoveTaskStatus:
    """Forget a removed task's status."""

    id: ConnectorTaskId


@dataclass(frozen=True)
class RemoveStatus:
    """Forget a deleted connector's status, its tasks' statuses and its active topics."""

    name: str


Effect = (
    StartConnector
    | StopConnector
    | GenerateTaskConfigs
    | StartTask
    | SetTaskTargetState
    | StopTask
    | SetLoggerLevel
    | PersistConfig
    | PersistTargetState
    | PersistTaskConfigs
    | RemoveConfig
    | PutConnectorStatus
    | PutTaskStatus
    | RemoveTaskStatus
    | RemoveStatus
)

STORE_WRITES = (PersistConfig, PersistTargetState, PersistTaskConfigs, RemoveConfig)
"""The config-store writes: the reducer puts them before every other effect of an event."""
