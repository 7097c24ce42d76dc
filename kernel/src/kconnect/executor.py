"""The executor contract: where and how tasks run.

The worker owns one Executor (chosen through the ``create_executor`` hook). The herder tells it
to start, pause, resume and stop tasks; the executor runs the kernel's task loops
(`kconnect.runtime.source_loop`, `kconnect.runtime.sink_loop`) wherever it likes (the Spark
executor: inside Spark tasks) and reports back through a `TaskListener`. Records never come back
through this interface: only state changes, committed source offsets and topic names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from kconnect.config.configdef import ConfigDef
from kconnect.config.worker_settings import WorkerSettings
from kconnect.model import ConnectorTaskId, TargetState

SourcePartition = Mapping[str, Any]
SourceOffset = Mapping[str, Any]


@dataclass(frozen=True)
class TaskSpec:
    """Everything a task loop needs to run one task, picklable so it can travel to a Spark executor.

    `worker` holds the worker's settings, typed and read once (`WorkerSettings`: bootstrap servers,
    offset.flush.interval.ms...), with its raw properties for what the loop hands on unchanged
    (converters, producer. / consumer. overrides); `connector_config` the connector's properties
    (its converter and transform overrides); `task_config` what the connector's `task_configs` gave.
    `runtime` says what runs the task: ``python`` (the kernel's task loops) or ``java`` (a Java
    plugin's task in a JVM; `kconnect.plugin_host.PluginHost.task_runtime`).
    """

    id: ConnectorTaskId
    kind: Literal["source", "sink"]
    task_class: str
    connector_config: Mapping[str, str]
    task_config: Mapping[str, str]
    worker: WorkerSettings
    target_state: TargetState = TargetState.STARTED
    generation: int = 0
    plugins_disabled: tuple[str, ...] = field(default_factory=tuple)
    runtime: str = "python"


class TaskListener(Protocol):
    """How an executor reports back; the worker implements it and turns calls into herder events.

    Calls arrive on the worker's event loop.
    """

    def on_running(self, task: ConnectorTaskId, generation: int) -> None:
        """The task started (or resumed) and is moving records."""
        ...

    def on_paused(self, task: ConnectorTaskId, generation: int) -> None:
        """The task acknowledged a pause."""
        ...

    def on_failed(self, task: ConnectorTaskId, generation: int, trace: str) -> None:
        """The task ended without a stop request: it raised, or it died, or it lost its worker;
        `trace` says which (the task's traceback, or the executor's account of how it ended)."""
        ...

    def on_stopped(self, task: ConnectorTaskId, generation: int) -> None:
        """The task stopped cleanly after a stop request (offsets committed)."""
        ...

    def on_unassigned(self, task: ConnectorTaskId, generation: int, reason: str) -> None:
        """The task was handed to the executor but cannot start yet; `reason` says why (status
        shows UNASSIGNED with it as the trace), e.g. no free Spark task slot. A later
        `on_running` or `on_failed` ends the wait."""
        ...

    async def on_commit_source_offsets(
        self, task: ConnectorTaskId, offsets: Sequence[tuple[SourcePartition, SourceOffset | None]]
    ) -> None:
        """Durably store these source offsets; the task treats them as committed when this returns.

        Raises when they could not be stored; the executor hands the error to the task, which fails.
        """
        ...

    async def read_source_offsets(
        self, task: ConnectorTaskId, partitions: Sequence[SourcePartition]
    ) -> list[SourceOffset | None]:
        """The committed offsets of these source partitions (for the task's OffsetStorageReader)."""
        ...

    def on_topic_used(self, task: ConnectorTaskId, topic: str) -> None:
        """The task produced to or consumed from `topic` for the first time (KIP-558)."""
        ...

    def on_task_metrics(self, task: ConnectorTaskId, metrics: Mapping[str, Mapping[str, float]]) -> None:
        """The task's latest metrics, by Kafka's group and metric names (they replace the last ones)."""
        ...

    def on_stalled(self, task: ConnectorTaskId, generation: int, reason: str, stalled_s: float) -> None:
        """The running task has made no progress for its ``task.stall.timeout.ms``: `reason` says
        which call waits (``poll() has not returned for 63 s``), in flight for `stalled_s`."""
        ...

    def on_stall_ended(self, task: ConnectorTaskId, generation: int, stalled_s: float) -> None:
        """The stalled task moves again; the call had been in flight for `stalled_s`."""
        ...


@dataclass(frozen=True)
class TaskHost:
    """One unit that runs connector tasks (the Spark executor: a hosting Spark task)."""

    id: int
    #: RUNNING once started; WAITING while it waits for a slot (or for the executor to start).
    state: Literal["RUNNING", "WAITING"]
    #: The most tasks it takes.
    capacity: int
    #: Reserved for one task of a connector that asked for a host of its own.
    dedicated: bool
    tasks: tuple[ConnectorTaskId, ...]
    #: The share of a core the host used lately, as the executor measures it to place tasks; None
    #: when it does not measure it (yet).
    cpu: float | None = None


@dataclass(frozen=True)
class Placement:
    """Where a worker's tasks run, for operators (``GET /executor``)."""

    executor: str
    #: How many hosts can run at once (None when the executor cannot say).
    slots: int | None
    #: The default most tasks per shared host.
    tasks_per_host: int
    hosts: tuple[TaskHost, ...] = ()
    #: Tasks not placed on a host yet (the executor is still starting).
    unplaced: tuple[ConnectorTaskId, ...] = ()
    #: How long the executor took to start (Spark: its session), once it has; None before.
    startup_seconds: float | None = None


class Executor(Protocol):
    """Runs tasks. Every method returns quickly; outcomes are reported through the TaskListener."""

    name: str

    async def start(self, listener: TaskListener) -> None:
        """Begin accepting tasks. Must not wait for slow start-up (Spark): queue tasks meanwhile."""
        ...

    def ready(self) -> bool:
        """True once the executor can run tasks (e.g. the SparkSession is up)."""
        ...

    def startup_error(self) -> str | None:
        """Why the executor could not start (tasks cannot run), or None."""
        ...

    def start_task(self, spec: TaskSpec) -> None:
        """Start running a task with the target state in `spec`."""
        ...

    def set_target_state(self, task: ConnectorTaskId, state: TargetState) -> None:
        """Pause (PAUSED) or resume (STARTED) a running task; STOPPED is `stop_task`."""
        ...

    async def stop_task(self, task: ConnectorTaskId, timeout_s: float) -> None:
        """Stop a task gracefully (its offsets committed); forced after `timeout_s`."""
        ...

    def reset_active_topics(self, connector: str) -> None:
        """The connector's active topics were reset (KIP-558): its running tasks report each topic
        again on its next use (`TaskListener.on_topic_used`)."""
        ...

    def placement(self) -> Placement:
        """Where the tasks run now: slots, hosts and the tasks on each."""
        ...

    def connector_config_def(self) -> ConfigDef:
        """The connector keys this executor reads (e.g. a Spark task of its own); validation checks
        each one a config sets, so a bad value is an error before deploy, never ignored."""
        ...

    async def stop(self) -> None:
        """Stop every task gracefully, then release the executor's resources."""
        ...
