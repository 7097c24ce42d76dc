"""REST extensions (Kafka's ConnectRestExtension): plugins that add routes, middleware or guards.

A plugin registers a factory through the ``register_rest_extensions`` hook::

    @hookimpl
    def register_rest_extensions(registry):
        registry.add(my_factory)

    def my_factory(worker_config: WorkerConfig, cluster_state: ClusterState) -> InitPluginProtocol:
        return MyLitestarPlugin(...)

Installed extensions are applied only when the worker property ``rest.extension.classes`` (Kafka's
key, comma-separated) names them by any of their names: Kafka class name, Python path or alias.
The factory is called once, when the REST app is built. It receives the worker's config and a
read-only `kconnect.cluster.ClusterState` (connectors, their configs and status, the Kafka cluster
id), never the herder; the state is the kernel's, so an extension needs nothing from this package.
The returned litestar ``InitPluginProtocol`` is applied to the app like any litestar plugin.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any, Protocol

from kconnect.cluster import ClusterState
from kconnect.errors import PluginError
from kconnect.plugin_host import PluginHost, PluginType
from kconnect.worker_config import WorkerConfig
from litestar.plugins import InitPluginProtocol

log = logging.getLogger(__name__)


class RestExtensionFactory(Protocol):
    """What ``register_rest_extensions`` registers: builds a litestar plugin for one app."""

    def __call__(self, worker_config: WorkerConfig, cluster_state: ClusterState) -> InitPluginProtocol:
        """Build the extension; called once per REST app."""
        ...


REST_EXTENSION_CLASSES_CONFIG = "rest.extension.classes"


def enabled_factories(
    plugin_host: PluginHost | None, worker_config: WorkerConfig
) -> list[tuple[str, RestExtensionFactory]]:
    """The registered extension factories that ``rest.extension.classes`` enables, in its order.

    Raises PluginError naming the key and the name if an enabled extension is not installed.
    """
    wanted = [
        n.strip() for n in worker_config.props.get(REST_EXTENSION_CLASSES_CONFIG, "").split(",") if n.strip()
    ]
    installed = plugin_host.plugins(PluginType.REST_EXTENSION) if plugin_host is not None else []
    factories: list[tuple[str, RestExtensionFactory]] = []
    for name in wanted:
        desc = next((d for d in installed if name in d.names()), None)
        if desc is None:
            where = f"{worker_config.source}: {REST_EXTENSION_CLASSES_CONFIG}"
            raise PluginError(f"{where}: no installed REST extension is named {name}")
        factories.append((desc.python_path, desc.cls))
    return factories


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
