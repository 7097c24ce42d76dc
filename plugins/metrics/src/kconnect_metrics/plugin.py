"""The metrics REST extension: ``GET /metrics`` in Prometheus' text format.

Enable it like any REST extension, with the worker property::

    rest.extension.classes=PrometheusMetrics

Each scrape reads the worker's live state (connectors, statuses, executor placement) and the
latest metrics each task sent from inside its Spark task, and renders them through
prometheus_client (`kconnect_metrics.endpoint` serves them, `kconnect_metrics.families` names them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kconnect import ClusterState, hookimpl
from kconnect.plugin_host import PluginRegistry

if TYPE_CHECKING:
    from kconnect.worker_config import WorkerConfig

    from kconnect_metrics.endpoint import PrometheusMetricsPlugin


def prometheus_metrics_extension(
    worker_config: WorkerConfig, cluster_state: ClusterState
) -> PrometheusMetricsPlugin:
    """The REST extension factory."""
    # Imported here, for laziness: litestar and prometheus_client would cost time and memory in a
    # Spark task process, which loads every plugin but serves no REST API.
    from kconnect_metrics.endpoint import PrometheusMetricsPlugin

    return PrometheusMetricsPlugin(cluster_state)


@hookimpl
def register_rest_extensions(registry: PluginRegistry) -> None:
    """Register the metrics extension under its short names."""
    registry.add(
        prometheus_metrics_extension, aliases=["PrometheusMetrics", "PrometheusMetricsRestExtension"]
    )
