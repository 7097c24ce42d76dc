"""Kafka Connect's metrics as Prometheus metric families (pure: a snapshot in, families out).

Names follow what Prometheus users of Kafka Connect already chart (the JMX exporter's usual rule):
``kafka_connect_<group>_<metric>`` with dashes as underscores, e.g. Kafka's
``source-task-metrics`` / ``source-record-poll-total`` becomes
``kafka_connect_source_task_metrics_source_record_poll_total{connector="...",task="0"}``.
Totals are counters; Kafka's rates are not served, since Prometheus computes them from the
totals (``rate(..._source_record_poll_total[1m])``). kconnect's own figures start with
``kconnect_``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from kconnect.config.connector_keys import CONNECTOR_CLASS_CONFIG
from kconnect.executor import Placement
from kconnect.model import ConnectorAutoRestarts, ConnectorStateInfo, ConnectorTaskId
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from kconnect_metrics.restart_families import restart_families

PREFIX = "kafka_connect_"
WORKER_GROUP = "connect-worker-metrics"
TASK_STATES = ("running", "paused", "failed", "unassigned", "restarting")


def metric_name(group: str, name: str) -> str:
    """The Prometheus name of Kafka metric `name` of `group` (``-total`` names become counters)."""
    return PREFIX + f"{group}_{name}".replace("-", "_").replace(".", "_")


@dataclass(frozen=True)
class WorkerSnapshot:
    """What one scrape reads from the worker."""

    worker_id: str
    connectors: Mapping[str, Mapping[str, str]]
    health: Sequence[ConnectorStateInfo]
    task_metrics: Mapping[ConnectorTaskId, Mapping[str, Mapping[str, float]]]
    placement: Placement | None
    #: Each stalled task of this worker and since when (Unix seconds), and when the scrape was taken.
    stalled_tasks: Mapping[ConnectorTaskId, float] = field(default_factory=dict)
    taken_at: float = 0.0
    #: The automatic restarts of each connector that enables them (`kconnect_metrics.restart_families`).
    auto_restarts: Mapping[str, ConnectorAutoRestarts] = field(default_factory=dict)


def families(snapshot: WorkerSnapshot) -> list[Metric]:
    """Every metric family of one scrape."""
    return [
        *_worker_families(snapshot),
        *_connector_families(snapshot),
        *_task_families(snapshot.task_metrics),
        *_stall_families(snapshot),
        *restart_families(snapshot.worker_id, snapshot.health, snapshot.auto_restarts),
        *_executor_families(snapshot.placement),
    ]


def _mine(snapshot: WorkerSnapshot, worker_id: str) -> bool:
    return worker_id == snapshot.worker_id


def _worker_families(snapshot: WorkerSnapshot) -> Iterable[Metric]:
    connectors = GaugeMetricFamily(
        metric_name(WORKER_GROUP, "connector-count"), "The number of connectors run in this worker."
    )
    tasks = GaugeMetricFamily(
        metric_name(WORKER_GROUP, "task-count"), "The number of tasks run in this worker."
    )
    mine = [h for h in snapshot.health if _mine(snapshot, h.connector.worker_id)]
    connectors.add_metric([], len(mine))
    tasks.add_metric([], sum(1 for h in snapshot.health for t in h.tasks if _mine(snapshot, t.worker_id)))
    yield connectors
    yield tasks
    per_state = {
        state: GaugeMetricFamily(
            metric_name(WORKER_GROUP, f"connector-{state}-task-count"),
            f"The number of {state} tasks of the connector on this worker.",
            labels=["connector"],
        )
        for state in ("total", *TASK_STATES)
    }
    for health in snapshot.health:
        here = [t for t in health.tasks if _mine(snapshot, t.worker_id)]
        per_state["total"].add_metric([health.name], len(here))
        for state in TASK_STATES:
            count = sum(1 for t in here if t.state.value.lower() == state)
            per_state[state].add_metric([health.name], count)
    yield from per_state.values()


def _connector_families(snapshot: WorkerSnapshot) -> Iterable[Metric]:
    info = GaugeMetricFamily(
        metric_name("connector-metrics", "info"),
        "1 for each connector run in this worker; its class, type, version and status as labels.",
        labels=["connector", "connector_class", "connector_type", "connector_version", "status"],
    )
    task_status = GaugeMetricFamily(
        metric_name("connector-task-metrics", "status"),
        "1 for each task run in this worker, its status as a label.",
        labels=["connector", "task", "status"],
    )
    for health in snapshot.health:
        if _mine(snapshot, health.connector.worker_id):
            config = snapshot.connectors.get(health.name, {})
            info.add_metric(
                [
                    health.name,
                    config.get(CONNECTOR_CLASS_CONFIG, ""),
                    health.type.value,
                    health.connector.version or "",
                    health.connector.state.value.lower(),
                ],
                1,
            )
        for task in health.tasks:
            if _mine(snapshot, task.worker_id):
                task_status.add_metric([health.name, str(task.id), task.state.value.lower()], 1)
    yield info
    yield task_status


def _task_families(
    task_metrics: Mapping[ConnectorTaskId, Mapping[str, Mapping[str, float]]],
) -> Iterable[Metric]:
    built: dict[str, GaugeMetricFamily | CounterMetricFamily] = {}
    for task_id in sorted(task_metrics, key=lambda t: (t.connector, t.task)):
        for group, values in sorted(task_metrics[task_id].items()):
            for name, value in sorted(values.items()):
                full = metric_name(group, name)
                family = built.get(full)
                if family is None:
                    doc = f"Kafka Connect's {group} {name}."
                    family = (
                        CounterMetricFamily(full, doc, labels=["connector", "task"])
                        if name.endswith("-total")
                        else GaugeMetricFamily(full, doc, labels=["connector", "task"])
                    )
                    built[full] = family
                family.add_metric([task_id.connector, str(task_id.task)], float(value))
    return built.values()


def _stall_families(snapshot: WorkerSnapshot) -> Iterable[Metric]:
    """``task.stall.timeout.ms`` (kconnect's extension): which running tasks of this worker are stalled."""
    stalled = GaugeMetricFamily(
        "kconnect_task_stalled",
        "1 while the task is stalled (no progress for task.stall.timeout.ms while it has work), else 0.",
        labels=["connector", "task"],
    )
    seconds = GaugeMetricFamily(
        "kconnect_task_stalled_seconds",
        "How long the task has been stalled; 0 when it is not.",
        labels=["connector", "task"],
    )
    running = {
        ConnectorTaskId(h.name, t.id)
        for h in snapshot.health
        for t in h.tasks
        if _mine(snapshot, t.worker_id) and t.state.value == "RUNNING"
    }
    for task in sorted(running | set(snapshot.stalled_tasks), key=lambda t: (t.connector, t.task)):
        since = snapshot.stalled_tasks.get(task)
        labels = [task.connector, str(task.task)]
        stalled.add_metric(labels, 0.0 if since is None else 1.0)
        seconds.add_metric(labels, 0.0 if since is None else max(snapshot.taken_at - since, 0.0))
    count = GaugeMetricFamily(
        "kconnect_worker_stalled_task_count", "The number of stalled tasks run in this worker."
    )
    count.add_metric([], len(snapshot.stalled_tasks))
    yield stalled
    yield seconds
    yield count


def _executor_families(placement: Placement | None) -> Iterable[Metric]:
    if placement is None:
        return
    hosts = [h for h in placement.hosts if h.state == "RUNNING"]
    tasks = sum(len(h.tasks) for h in hosts)
    gauges: list[tuple[str, str, float | None]] = [
        ("kconnect_executor_startup_seconds", "How long the executor (Spark) took to start.",
         placement.startup_seconds),
        ("kconnect_executor_slots", "Task slots the executor (Spark) has.", placement.slots),
        ("kconnect_executor_slots_used", "Slots held by running task hosts.", len(hosts)),
        ("kconnect_executor_tasks_per_slot", "Connector tasks per slot in use.",
         tasks / len(hosts) if hosts else 0.0),
        ("kconnect_executor_unplaced_tasks", "Tasks waiting for a slot.", len(placement.unplaced)),
    ]  # fmt: skip
    for name, doc, value in gauges:
        if value is not None:
            family = GaugeMetricFamily(name, doc, labels=["executor"])
            family.add_metric([placement.executor], float(value))
            yield family
    measured = [h for h in hosts if h.cpu is not None]
    if measured:
        cpu = GaugeMetricFamily(
            "kconnect_executor_host_cpu",
            "Share of a core each task host used lately (new tasks go to the least loaded).",
            labels=["executor", "host"],
        )
        for host in measured:
            cpu.add_metric([placement.executor, str(host.id)], float(host.cpu or 0.0))
        yield cpu
