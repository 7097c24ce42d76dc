"""kconnect-java's hook: the Java plugins on the worker's ``plugin.path``, registered beside Python ones."""

from __future__ import annotations

import logging

from kconnect import hookimpl
from kconnect.plugin_registry import PluginRegistry
from kconnect.worker_config import ConfigFileError, WorkerConfig

from kconnect_java.build import JavaBuildError
from kconnect_java.jvm import FacadeError, shared_jvm
from kconnect_java.plugins import found_plugins

log = logging.getLogger(__name__)

PLUGIN_PATH = "plugin.path"
PLUGIN_DISCOVERY = "plugin.discovery"


@hookimpl
def register_worker_plugins(config: WorkerConfig, registry: PluginRegistry) -> None:
    """Scan ``plugin.path`` with Kafka's own scanner in a JVM and add every plugin found there.

    Nothing happens (no JVM, no build) when the worker config has no ``plugin.path``. A scan Kafka
    refuses (a bad ``plugin.discovery``, ``hybrid_fail`` with a plugin lacking its manifest), or a
    missing Java or Maven, stops the worker with ConfigFileError naming the worker file and the key.
    """
    plugin_path = config.props.get(PLUGIN_PATH, "").strip()
    if not plugin_path:
        return
    discovery = config.props.get(PLUGIN_DISCOVERY, "")
    try:
        jvm = shared_jvm()
        scan = jvm.call({"op": "scan", PLUGIN_PATH: plugin_path, PLUGIN_DISCOVERY: discovery})
    except (JavaBuildError, FacadeError) as exc:
        key = PLUGIN_DISCOVERY if discovery and isinstance(exc, FacadeError) else PLUGIN_PATH
        raise ConfigFileError(f"{config.source}: {key}: Java plugins could not be loaded: {exc}") from exc
    plugins = found_plugins(scan, jvm)
    for plugin in plugins:
        registry.add_found(plugin)
    log.info("plugin.path %s: %d Java plugin classes found", plugin_path, len(plugins))
