"""REST extensions (Kafka's ConnectRestExtension): plugins that add routes, middleware or guards.

A plugin registers a factory through the ``register_rest_extensions`` hook::

    @hookimpl
    def register_rest_extensions(registry):
        registry.add(my_factory)

    def my_factory(worker_config: WorkerConfig, cluster_state: ClusterState) -> InitPluginProtocol:
        return MyLitestarPlugin(...)

The factory is called once, when the REST app is built. It receives the worker's config and a
read-only `ClusterState` (connectors and their configs, the Kafka cluster id), never the herder.
The returned litestar ``InitPluginProtocol`` is applied to the app like any litestar plugin.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol

from kconnect.errors import PluginError
from kconnect.herder.api import ClusterView
from kconnect.plugin_host import PluginHost, PluginType
from kconnect.worker_config import WorkerConfig
from litestar.plugins import InitPluginProtocol

log = logging.getLogger(__name__)


class ClusterState:
    """A live, read-only view of the cluster for extensions (Kafka's ConnectClusterState).

    Each read takes a fresh snapshot (`Herder.cluster_view`), so an extension sees connectors
    created after it was built.
    """

    def __init__(self, snapshot: Callable[[], ClusterView]) -> None:
        self._snapshot = snapshot

    @property
    def connectors(self) -> Mapping[str, Mapping[str, str]]:
        """Connector name -> its config, as of now."""
        return self._snapshot().connectors

    def connector_config(self, name: str) -> Mapping[str, str] | None:
        """One connector's config, or None if there is no such connector."""
        return self._snapshot().connectors.get(name)

    @property
    def kafka_cluster_id(self) -> str | None:
        """The Kafka cluster id of the worker's broker, once known."""
        return self._snapshot().kafka_cluster_id


class RestExtensionFactory(Protocol):
    """What ``register_rest_extensions`` registers: builds a litestar plugin for one app."""

    def __call__(self, worker_config: WorkerConfig, cluster_state: ClusterState) -> InitPluginProtocol:
        """Build the extension; called once per REST app."""
        ...


def registered_factories(plugin_host: PluginHost | None) -> list[tuple[str, RestExtensionFactory]]:
    """The REST extension factories plugins registered, with their names, in registration order."""
    if plugin_host is None:
        return []
    return [(desc.python_path, desc.cls) for desc in plugin_host.plugins(PluginType.REST_EXTENSION)]


def build_extensions(
    factories: Iterable[tuple[str, RestExtensionFactory]],
    worker_config: WorkerConfig,
    cluster_state: ClusterState,
) -> list[InitPluginProtocol]:
    """Call each factory; PluginError naming the extension if one fails or returns no litestar plugin."""
    plugins: list[InitPluginProtocol] = []
    for name, factory in factories:
        try:
            plugin: Any = factory(worker_config, cluster_state)
        except Exception as exc:
            raise PluginError(f"REST extension {name} failed to start: {exc}") from exc
        if not isinstance(plugin, InitPluginProtocol):
            raise PluginError(
                f"REST extension {name} returned {type(plugin).__name__}, not a litestar InitPlugin"
            )
        log.info("Applying REST extension %s", name)
        plugins.append(plugin)
    return plugins
