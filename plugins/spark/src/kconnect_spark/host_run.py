"""One Spark task that hosts connector tasks, as the worker sees it, and where a new task goes.

A host is one long-running Spark task (a one-partition Spark job) of one runtime: a Python host's
Python worker runs one event loop hosting many connector task loops
(`kconnect_spark.remote.run_host`); a Java host runs Java task loops, each in a thread of its own,
in the executor JVM (`kconnect_spark.java_job`, ``JavaHost.java``). The worker places each
connector task on a host of its runtime with room, or opens a new one (`place`), and tells the host
over the host's own control connection to run it; the task then opens its own task connection,
as a task with a Spark task of its own always did. Everything here is touched on the worker's
event loop only.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kconnect.config.configdef import ConfigDef, ConfigType, Importance
from kconnect.worker_config import ConfigFileError

from kconnect_spark.channel import encode


@dataclass(eq=False)
class HostRun:
    """One hosting Spark task: its token, the task runs placed on it and how its job is doing."""

    #: Start order among the executor's hosts (Spark gives free slots to earlier jobs first).
    order: int
    capacity: int
    #: Hosts only this task (a connector asked for a Spark task of its own).
    dedicated: bool = False
    #: The runtime of every task it hosts (`TaskSpec.runtime`): ``python`` or ``java``.
    runtime: str = "python"
    token: str = field(default_factory=lambda: secrets.token_hex(16))
    #: Task runs placed here and not finished, in placement order.
    runs: list[Any] = field(default_factory=list)
    writer: asyncio.StreamWriter | None = None
    #: The Spark job was submitted (False while Spark is still starting).
    launched: bool = False
    #: No task is placed here any more: the host ends once its tasks have.
    closing: bool = False
    #: The host's runs were told they wait for a Spark task slot.
    waiting_reported: bool = False
    spark_error: str | None = None
    job_ended: asyncio.Event = field(default_factory=asyncio.Event)
    #: The share of a core the host used over its last load report (a Python host's process, a Java
    #: host's task threads: ``HostLoad.java``; every `remote.LOAD_REPORT_INTERVAL_S`); None until one
    #: came, and always for a host whose JVM cannot measure a thread's CPU time.
    cpu: float | None = None
    #: Tasks placed here since that report: its figure does not include them yet.
    unmeasured: int = 0

    #: How logs, traces and Spark's UI name the host: ``task <id>`` for a host of one task (the
    #: task that opened it), else ``Spark task host <n>``.
    label: str = ""

    def __post_init__(self) -> None:
        self.label = self.label or f"Spark task host {self.order}"

    @property
    def job_group(self) -> str:
        """The Spark job group of this host (cancelling it ends every task it hosts):
        ``kconnect-<task>-<token>`` for a host of one task, else ``kconnect-host-<n>-<token>``."""
        stem = self.label.removeprefix("task ") if self.capacity == 1 else f"host-{self.order}"
        return f"kconnect-{stem}-{self.token[:8]}"

    @property
    def connected(self) -> bool:
        """The hosting Spark task has started and connected to the worker."""
        return self.writer is not None

    def take(self, run: Any) -> None:
        """Place `run` here (not yet measured in the host's load)."""
        self.runs.append(run)
        self.unmeasured += 1

    def measured(self, cpu: float) -> None:
        """The host reports its process used `cpu` of a core since its last report."""
        self.cpu = max(0.0, cpu)
        self.unmeasured = 0

    def has_room(self) -> bool:
        """Whether another task may be placed here."""
        return not self.closing and not self.job_ended.is_set() and len(self.runs) < self.capacity

    def send(self, message: dict[str, Any]) -> None:
        """Queue one message to the host, if it is connected."""
        if self.writer is not None and not self.writer.is_closing():
            self.writer.write(encode(message))

    def send_run(self, token: str, launch: str) -> None:
        """Have the host run a task: `launch` is what a host of this runtime starts a task from
        (`remote.encode_launch` for Python, `java_job.launch` for Java)."""
        self.send({"type": "run", "task": token, "launch": launch})

    def send_cancel(self, token: str) -> None:
        """Have the host abandon a task that did not stop in time."""
        self.send({"type": "cancel", "task": token})

    def close(self) -> None:
        """Place nothing more here; the host ends once its tasks have."""
        self.closing = True
        self.send({"type": "close"})


def place(hosts: Sequence[HostRun], *, spread: int, runtime: str = "python") -> HostRun | None:
    """The host a new (shared) task of `runtime` goes to, or None when a new host must be opened.

    Policy, among the hosts of `runtime` alone (a Java task runs in an executor JVM, a Python task
    in a Python worker): while fewer than `spread` shared hosts are open, each new task opens one
    (busy tasks get a core each, up to the cores Spark has); after that a task joins the open host
    with room that is least loaded (`estimated_load`, to `LOAD_STEP`), then with the fewest tasks,
    in host order; only when all are full does a new one open.
    """
    mine = [h for h in hosts if h.runtime == runtime and not h.dedicated]
    open_hosts = [h for h in mine if h.has_room()]
    shared = [h for h in mine if not h.closing and not h.job_ended.is_set()]
    if len(shared) < spread or not open_hosts:
        return None
    per_task = typical_task_load(shared)
    return min(
        open_hosts,
        key=lambda h: (round(estimated_load(h, per_task) / LOAD_STEP), len(h.runs), h.order),
    )


#: Loads are compared rounded to this share of a core; equal ones go by task count, so an idle
#: cluster's measurement noise does not decide where tasks go.
LOAD_STEP = 0.1


def typical_task_load(hosts: Sequence[HostRun]) -> float:
    """The share of a core a task took on average on the measured `hosts` (0.0 when none is)."""
    measured = [h for h in hosts if h.cpu is not None]
    tasks = sum(len(h.runs) - h.unmeasured for h in measured)
    return sum(h.cpu or 0.0 for h in measured) / tasks if tasks > 0 else 0.0


def estimated_load(host: HostRun, per_task: float) -> float:
    """The host's measured load, plus `per_task` for each task placed since it was measured (a
    burst of placements between two reports spreads out instead of piling onto one host)."""
    return (host.cpu or 0.0) + host.unmeasured * per_task


#: Worker key: the most connector tasks one Spark task hosts.
TASKS_PER_SPARK_TASK = "executor.tasks.per.spark.task"
DEFAULT_TASKS_PER_SPARK_TASK = 100
#: Connector key: each task of this connector runs in a Spark task of its own (a hot connector).
DEDICATED_SPARK_TASK = "executor.dedicated.spark.task"


def tasks_per_spark_task(props: Mapping[str, str], source: str) -> int:
    """The worker's `TASKS_PER_SPARK_TASK` (at least 1); ConfigFileError naming the file otherwise."""
    raw = props.get(TASKS_PER_SPARK_TASK, "").strip()
    if not raw:
        return DEFAULT_TASKS_PER_SPARK_TASK
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        raise ConfigFileError(
            f"{source}: {TASKS_PER_SPARK_TASK}: invalid value {raw!r}: must be an integer >= 1"
        )
    return value


def dedicated_config_def() -> ConfigDef:
    """The connector key `DEDICATED_SPARK_TASK`, as validation checks and describes it."""
    return ConfigDef().define(
        DEDICATED_SPARK_TASK,
        type=ConfigType.BOOLEAN,
        default=False,
        importance=Importance.LOW,
        documentation=(
            "Run each task of this connector in a Spark task of its own instead of sharing one with "
            "other connectors' tasks (kconnect's Spark executor): for a hot connector that should not "
            "share a Python process, and its GIL, with others. Each such task holds a Spark task slot."
        ),
        group="Executor",
        display_name="Dedicated Spark task",
    )


def wants_dedicated(connector_config: Mapping[str, str]) -> bool:
    """Whether the connector asked for a Spark task of its own per task (`DEDICATED_SPARK_TASK`;
    validation has refused any value but true or false)."""
    return connector_config.get(DEDICATED_SPARK_TASK, "false").strip().lower() == "true"
