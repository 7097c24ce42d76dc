"""The hooks a kconnect plugin can implement: the whole contract between the kernel and plugins.

A plugin is a module listed under the entry-point group ``kconnect`` of its distribution::

    [project.entry-points.kconnect]
    file = "kconnect_file.plugin"

and implements any of the hooks below with ``@kconnect.hookimpl``. Every hook runs once, when the
worker starts (pluggy is synchronous: no hook runs on the data path). The plugin host calls each
hook through pluggy's hook caller, so ``tryfirst``/``trylast``, hook wrappers and tracing work. For
the registration hooks every implementation receives the same registry, in pluggy's call order;
where two plugins register one name, the first in that order wins (the plugin registered last,
unless ``tryfirst``/``trylast`` reorder them): see docs/plugins.md.
"""

from __future__ import annotations

import pluggy

from kconnect.executor import Executor
from kconnect.plugin_registry import PluginRegistry
from kconnect.worker_config import WorkerConfig

PROJECT_NAME = "kconnect"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


# --- registration hooks: each receives a registry and adds classes to it ------------------------


@hookspec
def register_connectors(registry: PluginRegistry) -> None:
    """Add SourceConnector and SinkConnector classes with ``registry.add(cls, aliases=...)``.

    Called once by the plugin host when it loads plugins. The class's ``java_class_names`` are
    added as aliases, so a Java connector properties file naming them runs unchanged.
    """


@hookspec
def register_converters(registry: PluginRegistry) -> None:
    """Add Converter classes (key and value converters) with ``registry.add(cls, aliases=...)``."""


@hookspec
def register_header_converters(registry: PluginRegistry) -> None:
    """Add HeaderConverter classes with ``registry.add(cls, aliases=...)``."""


@hookspec
def register_transforms(registry: PluginRegistry) -> None:
    """Add Transformation classes (single message transforms) with ``registry.add(cls, aliases=...)``."""


@hookspec
def register_predicates(registry: PluginRegistry) -> None:
    """Add Predicate classes (conditions for transforms) with ``registry.add(cls, aliases=...)``."""


@hookspec
def register_config_providers(registry: PluginRegistry) -> None:
    """Add ConfigProvider classes (Kafka's KIP-297) with ``registry.add(cls, aliases=...)``.

    A class implements `kconnect.config.providers.ConfigProvider`; its ``java_class_names`` are
    added as aliases (``org.apache.kafka.common.config.provider.FileConfigProvider``), so a Java
    worker file's ``config.providers.<name>.class`` runs unchanged. The worker instantiates the
    providers its ``config.providers`` names when it starts: see docs/secrets.md.
    """


@hookspec
def register_rest_extensions(registry: PluginRegistry) -> None:
    """Add REST extension factories (Kafka's ConnectRestExtension).

    A factory is called as ``factory(worker_config, cluster_state)`` when the REST server is built
    and returns a litestar ``InitPluginProtocol``; ``cluster_state`` is a read-only view of the
    cluster (`kconnect.cluster.ClusterState`: connectors, their configs and status), never the
    herder. An extension imports it from ``kconnect``, never from the REST layer.
    """


@hookspec
def register_worker_plugins(config: WorkerConfig, registry: PluginRegistry) -> None:
    """Add plugins found from the worker's config with ``registry.add_found(plugin)``.

    Called once by the worker after it has read its worker config and after every hook above
    (``kconnect standalone`` and ``kconnect distributed``, before the herder starts), so classes
    registered by the hooks above answer first to a name both provide. kconnect-java implements it:
    the Java connectors, converters, header converters, transformations and predicates on the
    worker's ``plugin.path`` (`kconnect.plugin_registry.FoundPlugin`). A plugin that finds nothing
    for this config adds nothing.
    """


# --- the executor: the first plugin to answer wins ----------------------------------------------


@hookspec(firstresult=True)
def create_executor(config: WorkerConfig) -> Executor | None:
    """Return the Executor that runs tasks for this worker, or None to let another plugin answer.

    Called once at worker start-up. The bundled Spark executor answers unless the worker config
    names another with ``executor`` (its ``name``).
    """
