"""Registers the dashboard as a REST extension (``rest.extension.classes=Dashboard``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kconnect import ClusterState, hookimpl
from kconnect.plugin_host import PluginRegistry

if TYPE_CHECKING:
    from kconnect.worker_config import WorkerConfig
    from litestar.plugins import InitPluginProtocol


def dashboard_extension(worker_config: WorkerConfig, cluster_state: ClusterState) -> InitPluginProtocol:
    """The REST extension factory: the routes that serve the dashboard's files."""
    # Imported here: a Spark task process loads every plugin but serves no REST API.
    from kconnect_dashboard.routes import DashboardPlugin

    return DashboardPlugin()


@hookimpl
def register_rest_extensions(registry: PluginRegistry) -> None:
    """Register the dashboard under its short names."""
    registry.add(dashboard_extension, aliases=["Dashboard", "KconnectDashboard"])
