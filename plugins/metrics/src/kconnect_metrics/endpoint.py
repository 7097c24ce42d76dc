"""``GET /metrics``: one scrape reads the worker's state and renders it in Prometheus' text format.

`prometheus_metrics_extension` (`kconnect_metrics.plugin`) imports this module when the REST server
is built, so a process that serves no REST API (a Spark task process) imports neither litestar nor
prometheus_client. The worker's state comes through the kernel's `kconnect.cluster.ClusterState`,
as for any REST extension: no plugin imports the REST layer.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterable

from kconnect.cluster import ClusterState
from kconnect.errors import NotFoundError
from kconnect.model import ConnectorStateInfo
from litestar import Response, get
from litestar.config.app import AppConfig
from litestar.plugins import InitPluginProtocol
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import Metric
from prometheus_client.registry import Collector

from kconnect_metrics.families import WorkerSnapshot, families

METRICS_PATH = "/metrics"


class _Fixed(Collector):
    """A collector that yields families computed before the scrape is rendered."""

    def __init__(self, metrics: list[Metric]) -> None:
        self._metrics = metrics

    def collect(self) -> Iterable[Metric]:
        """The precomputed families."""
        return self._metrics


async def snapshot(cluster: ClusterState) -> WorkerSnapshot:
    """Read everything one scrape shows; a connector deleted meanwhile is left out."""
    connectors = cluster.connectors
    health: list[ConnectorStateInfo] = []
    for name in sorted(connectors):
        with contextlib.suppress(NotFoundError):
            health.append(await cluster.connector_health(name))
    return WorkerSnapshot(
        cluster.worker_id,
        connectors,
        health,
        cluster.task_metrics,
        cluster.placement,
        cluster.stalled_tasks,
        time.time(),
        cluster.auto_restarts,
    )


def render(worker: WorkerSnapshot) -> bytes:
    """The Prometheus text exposition of one snapshot."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Fixed(families(worker)))
    return generate_latest(registry)


class PrometheusMetricsPlugin(InitPluginProtocol):
    """Adds ``GET /metrics`` to the worker's REST app."""

    def __init__(self, cluster: ClusterState) -> None:
        self._cluster = cluster

    def on_app_init(self, app_config: AppConfig) -> AppConfig:
        """Called by litestar once, when the REST app is built."""
        cluster = self._cluster

        @get(METRICS_PATH, include_in_schema=False, sync_to_thread=False)
        async def metrics() -> Response[bytes]:
            body = render(await snapshot(cluster))
            return Response(body, media_type=CONTENT_TYPE_LATEST)

        app_config.route_handlers.append(metrics)
        return app_config
