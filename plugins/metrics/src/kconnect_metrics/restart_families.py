"""Automatic restarts (``auto.restart.*``, kconnect's extension) as Prometheus families: pure, a
snapshot in, families out. Each instance this worker runs of a connector that enables automatic
restarts (or still has a schedule) shows its count, when its next restart is due, and whether the
worker gave up; a connector's instance has the label ``task="connector"``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from kconnect.model import AutoRestarts, ConnectorAutoRestarts, ConnectorStateInfo
from prometheus_client.core import GaugeMetricFamily, Metric

CONNECTOR_LABEL = "connector"
"""The ``task`` label of a connector's own instance."""


def restart_families(
    worker_id: str, health: Sequence[ConnectorStateInfo], restarts: Mapping[str, ConnectorAutoRestarts]
) -> Iterable[Metric]:
    """The automatic restart families of the instances `worker_id` runs (as `health` says)."""
    labels = ["connector", "task"]
    count = GaugeMetricFamily(
        "kconnect_auto_restarts",
        "Automatic restarts made since the count last reset (auto.restart.enable).",
        labels=labels,
    )
    due = GaugeMetricFamily(
        "kconnect_auto_restart_next_attempt_timestamp_seconds",
        "When the next automatic restart is due (Unix seconds); 0 when none is scheduled.",
        labels=labels,
    )
    gave_up = GaugeMetricFamily(
        "kconnect_auto_restart_gave_up",
        "1 once the worker gave up restarting the instance (auto.restart.max.attempts), else 0.",
        labels=labels,
    )
    for status in health:
        connector = restarts.get(status.name)
        if connector is None:
            continue
        mine: list[tuple[str, AutoRestarts]] = []
        if status.connector.worker_id == worker_id:
            mine.append((CONNECTOR_LABEL, connector.connector))
        for task in status.tasks:
            if task.worker_id == worker_id and task.id in connector.tasks:
                mine.append((str(task.id), connector.tasks[task.id]))
        for task_label, state in mine:
            values = [status.name, task_label]
            count.add_metric(values, float(state.count))
            next_ms = state.next_attempt_ms
            due.add_metric(values, 0.0 if next_ms is None else next_ms / 1000)
            gave_up.add_metric(values, 1.0 if state.gave_up else 0.0)
    return [count, due, gave_up]
