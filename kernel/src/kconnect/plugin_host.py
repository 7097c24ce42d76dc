"""The plugin host: loads plugins through pluggy and answers "which class is X?".

One `PluginHost` object owns the pluggy PluginManager; no other code touches ``pm.hook``.
Built-in plugins are distributions under ``plugins/`` and load exactly as third-party ones do,
through the ``kconnect`` entry-point group. ``KCONNECT_DISABLE_PLUGINS`` (comma-separated
entry-point or distribution names) blocks named plugins.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import Any

import pluggy

from kconnect import hookspecs
from kconnect.connector import SinkConnector, SourceConnector
from kconnect.errors import PluginError
from kconnect.executor import Executor
from kconnect.plugin_registry import PluginDesc, PluginRegistry, PluginType, python_path_of, shown_class_name
from kconnect.plugin_versions import PluginVersionError, VersionRange, version_key, version_requirement
from kconnect.task import Task
from kconnect.worker_config import WorkerConfig

__all__ = [
    "DISABLE_ENV",
    "PluginDesc",
    "PluginHost",
    "PluginRegistry",
    "PluginType",
    "shown_class_name",
]

log = logging.getLogger(__name__)

DISABLE_ENV = "KCONNECT_DISABLE_PLUGINS"


_INTERFACE_NAMES = {
    PluginType.SOURCE: "Connector",
    PluginType.SINK: "Connector",
    PluginType.CONVERTER: "Converter",
    PluginType.HEADER_CONVERTER: "HeaderConverter",
    PluginType.TRANSFORMATION: "Transformation",
    PluginType.PREDICATE: "Predicate",
    PluginType.CONFIG_PROVIDER: "ConfigProvider",
    PluginType.REST_EXTENSION: "ConnectRestExtension",
}
"""Kafka's interface name per kind, for the text of a plugin that cannot be found (Plugins.java)."""


def _classify_connector(cls: Any) -> PluginType:
    if isinstance(cls, type) and issubclass(cls, SourceConnector):
        return PluginType.SOURCE
    if isinstance(cls, type) and issubclass(cls, SinkConnector):
        return PluginType.SINK
    raise PluginError(f"{python_path_of(cls)} is neither a SourceConnector nor a SinkConnector")


def _fixed(kind: PluginType) -> Callable[[Any], PluginType]:
    return lambda _cls: kind


_HOOKS: dict[str, Callable[[Any], PluginType]] = {
    "register_connectors": _classify_connector,
    "register_converters": _fixed(PluginType.CONVERTER),
    "register_header_converters": _fixed(PluginType.HEADER_CONVERTER),
    "register_transforms": _fixed(PluginType.TRANSFORMATION),
    "register_predicates": _fixed(PluginType.PREDICATE),
    "register_config_providers": _fixed(PluginType.CONFIG_PROVIDER),
    "register_rest_extensions": _fixed(PluginType.REST_EXTENSION),
}

_CONNECTOR_TYPES = (PluginType.SOURCE, PluginType.SINK)


def _dotted_tails(name: str) -> list[str]:
    """``a.b.C`` → ``["a.b.C", "b.C", "C"]``."""
    parts = name.split(".")
    return [".".join(parts[index:]) for index in range(len(parts))]


def _normalize(name: str) -> str:
    """Kafka finds `FileStreamSource` for `FileStreamSourceConnector`: drop a `Connector` suffix."""
    return name[: -len("Connector")] if name.endswith("Connector") else name


class PluginHost:
    """Loads plugins once and resolves plugin names to classes.

    The worker creates one host at start-up (`PluginHost.load()`); the herder, the REST layer, the
    CLI and the task loops ask it for plugins by any of their names. Only registered classes are
    ever found: a name that no plugin registered is an error, never a module to import.
    """

    def __init__(self, manager: pluggy.PluginManager, plugins: list[PluginDesc]) -> None:
        self._manager = manager
        self._plugins = plugins
        self._task_classes: dict[str, type[Task]] = {}
        self._accepted: dict[tuple[PluginType, ...], Mapping[str, PluginDesc]] = {}
        #: `connector` answers by name and version: every status and info of a listing asks.
        self._connectors: dict[tuple[str, str], PluginDesc] = {}

    @classmethod
    def load(
        cls,
        *,
        extra_plugins: Iterable[object] = (),
        disabled: Iterable[str] | None = None,
        trace: Callable[[str], None] | None = None,
    ) -> PluginHost:
        """Load every ``kconnect`` entry point (minus disabled ones) and run the registration hooks.

        `extra_plugins` are registered objects besides the entry points (for tests and embedding),
        after them, so pluggy calls them first. Each registration hook is called once through
        ``pm.hook.<name>(registry=...)``, so hook wrappers, ``tryfirst``/``trylast`` and pluggy's
        tracing apply to it as to any pluggy hook. `trace`, when given, receives pluggy's trace of
        every hook call (pluggy's ``enable_tracing``).
        """
        manager = pluggy.PluginManager(hookspecs.PROJECT_NAME)
        manager.add_hookspecs(hookspecs)
        blocked = set(disabled) if disabled is not None else _disabled_from_env()
        for name in blocked:
            manager.set_blocked(name)
        manager.load_setuptools_entrypoints(hookspecs.PROJECT_NAME)
        for plugin in extra_plugins:
            manager.register(plugin)
        manager.check_pending()
        if trace is not None:
            manager.trace.root.setwriter(trace)
            manager.enable_tracing()
        locate = _distribution_locator(manager)
        plugins: list[PluginDesc] = []
        for hook_name, classify in _HOOKS.items():
            registry = PluginRegistry(hook_name, classify, locate=locate)
            getattr(manager.hook, hook_name)(registry=registry)
            plugins.extend(registry.plugins)
        log.info("Loaded %d plugin classes from %d plugins", len(plugins), len(manager.get_plugins()))
        return cls(manager, plugins)

    def add_worker_plugins(self, config: WorkerConfig) -> None:
        """Add the plugins found from the worker's config (hook ``register_worker_plugins``).

        Called once by the worker right after it read its config, before anything asks for a
        plugin by name; they come after every registered class, so a class registered at load
        answers first to a name both have.
        """
        registry = PluginRegistry("register_worker_plugins", lambda plugin: plugin.type)
        self._manager.hook.register_worker_plugins(config=config, registry=registry)
        if registry.plugins:
            self._plugins.extend(registry.plugins)
            self._accepted.clear()
            self._connectors.clear()
            log.info("Added %d plugin classes found from the worker config", len(registry.plugins))

    # --- queries ---------------------------------------------------------------------------------

    def plugins(self, *types: PluginType) -> list[PluginDesc]:
        """Registered plugins of the given types (all when none given), in pluggy's call order."""
        return [p for p in self._plugins if not types or p.type in types]

    def accepted_names(self, *types: PluginType) -> Mapping[str, PluginDesc]:
        """Every name that resolves to a plugin of one of `types`, with the plugin it resolves to.

        A plugin answers to its Java class names, its Python path and the aliases it declared;
        failing an exact match, to the same with a ``Connector`` suffix dropped or added, or to a
        dotted tail of them (``JsonConverter``, ``json.JsonConverter``: Kafka's aliases). Where
        two plugins answer to one name, the one registered first in pluggy's call order wins (the
        plugin registered last, unless ``tryfirst``/``trylast`` say otherwise; docs/plugins.md).
        The set is finite, so validation can list it (a JSON Schema ``enum``) and agree with
        `lookup` by construction.
        """
        key = tuple(types)
        cached = self._accepted.get(key)
        if cached is not None:
            return cached
        candidates = self.plugins(*types)
        accepted: dict[str, PluginDesc] = {}
        for plugin in candidates:
            for name in plugin.names():
                accepted.setdefault(name, plugin)
        for plugin in candidates:
            for name in plugin.names():
                for tail in _dotted_tails(_normalize(name)):
                    accepted.setdefault(tail, plugin)
                    accepted.setdefault(tail + "Connector", plugin)
        result: Mapping[str, PluginDesc] = MappingProxyType(accepted)
        self._accepted[key] = result
        return result

    def lookup(self, name: str, *types: PluginType) -> PluginDesc | None:
        """The plugin of one of `types` answering to `name` (see `accepted_names`), or None.

        Never imports anything: only registered plugins resolve.
        """
        return self.accepted_names(*types).get(name)

    def find(self, name: str, *types: PluginType) -> PluginDesc:
        """The plugin of one of `types` answering to `name` (see `lookup`).

        Raises PluginError with Kafka's text when nothing matches; for connectors the text lists
        the available connectors, as Kafka's does.
        """
        plugin = self.lookup(name, *types)
        if plugin is not None:
            return plugin
        kinds = " or ".join(dict.fromkeys(_INTERFACE_NAMES[t] for t in types)) or "a plugin"
        message = f"Failed to find any class that implements {kinds} and which name matches {name}"
        if types and set(types) <= set(_CONNECTOR_TYPES):
            available = ", ".join(_java_plugin_desc(p) for p in self.plugins(*_CONNECTOR_TYPES))
            message += f", available connectors are: {available}"
        raise PluginError(message)

    def connector(self, name: str, version: str | None = None) -> PluginDesc:
        """The connector plugin named `name` (see `find`).

        With `version` (a config's ``connector.plugin.version``, KIP-891: a version, which must match
        exactly, or a Maven version range), the newest plugin in the range with the same class name
        or answering to `name`, the first answer when it is one of the newest: how a config reaches
        a Java class whose name a Python port shares (``FileStreamSinkConnector`` 4.3.1 from
        ``plugin.path``). PluginVersionError, with Kafka's text, when none is in the range; a value
        Maven cannot parse is ignored here (the key's validator reports it).
        """
        wanted = (version or "").strip()
        known = self._connectors.get((name, wanted))
        if known is None:
            known = self._connectors[(name, wanted)] = self._connector(name, wanted)
        return known

    def _connector(self, name: str, wanted: str) -> PluginDesc:
        try:
            requirement = version_requirement(wanted)
        except ValueError:
            return self.find(name, *_CONNECTOR_TYPES)
        return self.versioned(name, requirement, *_CONNECTOR_TYPES)

    def versioned(self, name: str, requirement: VersionRange | None, *types: PluginType) -> PluginDesc:
        """The plugin of one of `types` answering to `name` (see `find`), or with `requirement` the
        newest of that class in the range (see `connector`); PluginVersionError when none is."""
        plugin = self.find(name, *types)
        if requirement is None:
            return plugin
        versions = [
            other
            for other in self.plugins(*types)
            if other.class_name == plugin.class_name or name in other.names()
        ]
        newest = requirement.newest(other.version for other in versions)
        if newest is None:
            raise PluginVersionError(plugin.class_name, requirement, [other.version for other in versions])
        chosen = [other for other in versions if version_key(other.version) == version_key(newest)]
        return plugin if plugin in chosen else chosen[0]

    def task_runtime(self, name: str, version: str | None = None) -> str:
        """Where the tasks of connector `name` (`version`, see `connector`) run: ``python`` for a
        registered class, or what a found plugin says (its ``task_runtime``: ``java`` for
        kconnect-java's); see `TaskSpec.runtime`."""
        return str(getattr(self.connector(name, version).cls, "task_runtime", "python"))

    def config_provider(self, name: str) -> PluginDesc:
        """The config provider named `name` (``config.providers.<name>.class``; see `lookup`).

        Raises PluginError with Kafka's text (``Plugins.newConfigProvider``), listing the installed
        config providers, when nothing matches.
        """
        plugin = self.lookup(name, PluginType.CONFIG_PROVIDER)
        if plugin is not None:
            return plugin
        available = ", ".join(_java_plugin_desc(p) for p in self.plugins(PluginType.CONFIG_PROVIDER))
        raise PluginError(
            f"Failed to find any class that implements ConfigProvider and which name matches {name}, "
            f"available ConfigProviders are: {available}"
        )

    def task_class(self, connector_name: str, task_class: str) -> type[Task]:
        """The task class of the registered connector `connector_name`, checked against `task_class`.

        Called by the task loops with a task config's ``connector.class`` and ``task.class``. The
        class is the one the connector's `task_class()` returns (asked once per connector name),
        never an import of the ``task.class`` text: PluginError when the connector is not
        registered, or when `task_class` is neither the class's Python path nor one of its
        ``java_class_names`` (a stale task config). Task configs written before tasks showed
        their Java name carry the Python path, and still run.
        """
        plugin = self.connector(connector_name)
        cls = self._task_classes.get(plugin.python_path)
        if cls is None:
            try:
                cls = plugin.cls().task_class()
            except Exception as exc:
                message = f"Connector {plugin.class_name} failed to name its task class: {exc!r}"
                raise PluginError(message) from exc
            if not (isinstance(cls, type) and issubclass(cls, Task)):
                message = f"Connector {plugin.class_name}'s task_class() returned {cls!r}, not a Task class"
                raise PluginError(message)
            self._task_classes[plugin.python_path] = cls
        if task_class not in (python_path_of(cls), *(getattr(cls, "java_class_names", ()) or ())):
            raise PluginError(
                f"task.class {task_class} is not the task class of connector {plugin.class_name} "
                f"({shown_class_name(cls)})"
            )
        return cls

    def create_executor(self, config: WorkerConfig) -> Executor:
        """Ask plugins for the executor (first answer wins); PluginError if none answers."""
        executor: Executor | None = self._manager.hook.create_executor(config=config)
        if executor is None:
            raise PluginError(
                "No executor plugin is installed: install kconnect-spark (pip install plugins/spark)"
            )
        return executor

    def distributions(self) -> list[str]:
        """Names of the loaded plugin modules (entry points), for logs and diagnostics."""
        return sorted(n for n in (self._manager.get_name(p) for p in self._manager.get_plugins()) if n)

    def __iter__(self) -> Iterator[PluginDesc]:
        return iter(self._plugins)


def _java_plugin_desc(plugin: PluginDesc) -> str:
    """A plugin as Kafka's `PluginDesc.toString` renders it, in Kafka's list of available connectors."""
    return (
        f"PluginDesc{{klass=class {plugin.python_path}, name='{plugin.class_name}', "
        f"version='{plugin.version}', encodedVersion={plugin.version}, type={plugin.type.value}, "
        f"typeName='{plugin.type.value}', location='{plugin.distribution or 'classpath'}'}}"
    )


def _disabled_from_env() -> set[str]:
    raw = os.environ.get(DISABLE_ENV, "")
    return {part.strip() for part in raw.split(",") if part.strip()}


def _distribution_locator(manager: pluggy.PluginManager) -> Callable[[Any], str | None]:
    """Maps a class to the distribution of the entry-point plugin whose top-level package holds it."""
    by_package = {
        getattr(module, "__name__", "").split(".")[0]: str(dist.metadata["name"])
        for module, dist in manager.list_plugin_distinfo()
    }
    return lambda cls: by_package.get(str(getattr(cls, "__module__", "")).split(".")[0])
