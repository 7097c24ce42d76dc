"""The plugin host: loads plugins through pluggy and answers "which class is X?".

One `PluginHost` object owns the pluggy PluginManager; no other code touches ``pm.hook``.
Built-in plugins are distributions under ``plugins/`` and load exactly as third-party ones do,
through the ``kconnect`` entry-point group. ``KCONNECT_DISABLE_PLUGINS`` (comma-separated
entry-point or distribution names) blocks named plugins.
"""

from __future__ import annotations

import importlib
import logging
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any

import pluggy

from kconnect import hookspecs
from kconnect.errors import PluginError

if TYPE_CHECKING:
    from kconnect.executor import Executor
    from kconnect.worker_config import WorkerConfig

log = logging.getLogger(__name__)

DISABLE_ENV = "KCONNECT_DISABLE_PLUGINS"


class PluginType(str, Enum):
    """The kinds of plugin, with Kafka's names for them (as `/connector-plugins` shows)."""

    SOURCE = "source"
    SINK = "sink"
    CONVERTER = "converter"
    HEADER_CONVERTER = "header_converter"
    TRANSFORMATION = "transformation"
    PREDICATE = "predicate"
    REST_EXTENSION = "rest_extension"


_INTERFACE_NAMES = {
    PluginType.SOURCE: "Connector",
    PluginType.SINK: "Connector",
    PluginType.CONVERTER: "Converter",
    PluginType.HEADER_CONVERTER: "HeaderConverter",
    PluginType.TRANSFORMATION: "Transformation",
    PluginType.PREDICATE: "Predicate",
    PluginType.REST_EXTENSION: "ConnectRestExtension",
}
"""Kafka's interface name per kind, for the text of a plugin that cannot be found (Plugins.java)."""


@dataclass(frozen=True)
class PluginDesc:
    """One registered plugin class and the names it answers to."""

    cls: Any
    type: PluginType
    class_name: str
    python_path: str
    aliases: tuple[str, ...]
    version: str
    distribution: str | None = None

    def names(self) -> tuple[str, ...]:
        """Every name this plugin is found by: Java name, Python path, aliases."""
        return (self.class_name, self.python_path, *self.aliases)


def _python_path(cls: Any) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _version_of(cls: Any) -> str:
    version = getattr(cls, "version", None)
    if callable(version):
        try:
            return str(version())
        except TypeError:
            return "undefined"
    return str(version) if version else "undefined"


@dataclass
class PluginRegistry:
    """What a registration hook receives: call `add` for each class the plugin provides."""

    kind: str
    classify: Callable[[Any], PluginType]
    plugins: list[PluginDesc] = field(default_factory=list)
    distribution: str | None = None

    def add(self, cls: Any, *, aliases: Iterable[str] = ()) -> None:
        """Register `cls`, found by its Python path, its Java class names and these aliases.

        The shown class name (`/connector-plugins`' ``class``) is the first Java class name the
        class declares, else its Python path, so Kafka tooling keeps recognising familiar plugins.
        """
        java_names = tuple(getattr(cls, "java_class_names", ()) or ())
        python_path = _python_path(cls)
        names = tuple(dict.fromkeys((*java_names[1:], *aliases)))
        self.plugins.append(
            PluginDesc(
                cls=cls,
                type=self.classify(cls),
                class_name=java_names[0] if java_names else python_path,
                python_path=python_path,
                aliases=names,
                version=_version_of(cls),
                distribution=self.distribution,
            )
        )


def _classify_connector(cls: Any) -> PluginType:
    from kconnect.connector import SinkConnector, SourceConnector

    if isinstance(cls, type) and issubclass(cls, SourceConnector):
        return PluginType.SOURCE
    if isinstance(cls, type) and issubclass(cls, SinkConnector):
        return PluginType.SINK
    raise PluginError(f"{_python_path(cls)} is neither a SourceConnector nor a SinkConnector")


def _fixed(kind: PluginType) -> Callable[[Any], PluginType]:
    return lambda _cls: kind


_HOOKS: dict[str, Callable[[Any], PluginType]] = {
    "register_connectors": _classify_connector,
    "register_converters": _fixed(PluginType.CONVERTER),
    "register_header_converters": _fixed(PluginType.HEADER_CONVERTER),
    "register_transforms": _fixed(PluginType.TRANSFORMATION),
    "register_predicates": _fixed(PluginType.PREDICATE),
    "register_rest_extensions": _fixed(PluginType.REST_EXTENSION),
}

_CONNECTOR_TYPES = (PluginType.SOURCE, PluginType.SINK)


def _normalize(name: str) -> str:
    """Kafka finds `FileStreamSource` for `FileStreamSourceConnector`: drop a `Connector` suffix."""
    return name[: -len("Connector")] if name.endswith("Connector") else name


class PluginHost:
    """Loads plugins once and resolves plugin names to classes.

    The worker creates one host at start-up (`PluginHost.load()`); the herder, the REST layer and
    the CLI ask it for plugins by any of their names.
    """

    def __init__(self, manager: pluggy.PluginManager, plugins: list[PluginDesc]) -> None:
        self._manager = manager
        self._plugins = plugins

    @classmethod
    def load(
        cls, *, extra_plugins: Iterable[object] = (), disabled: Iterable[str] | None = None
    ) -> PluginHost:
        """Load every ``kconnect`` entry point (minus disabled ones) and run the registration hooks.

        `extra_plugins` are registered objects besides the entry points (for tests and embedding).
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
        plugins: list[PluginDesc] = []
        for hook_name, classify in _HOOKS.items():
            for impl in getattr(manager.hook, hook_name).get_hookimpls():
                registry = PluginRegistry(hook_name, classify, distribution=_dist_name(manager, impl.plugin))
                impl.function(registry)
                plugins.extend(registry.plugins)
        log.info("Loaded %d plugin classes from %d plugins", len(plugins), len(manager.get_plugins()))
        return cls(manager, plugins)

    # --- queries ---------------------------------------------------------------------------------

    def plugins(self, *types: PluginType) -> list[PluginDesc]:
        """Registered plugins of the given types (all when none given), in registration order."""
        return [p for p in self._plugins if not types or p.type in types]

    def find(self, name: str, *types: PluginType) -> PluginDesc:
        """The plugin of one of `types` answering to `name` (Java name, Python path or alias).

        Falls back to importing `name` as a Python path, so an unregistered class still loads.
        Raises PluginError naming what was asked for when nothing matches.
        """
        candidates = self.plugins(*types)
        for plugin in candidates:
            if name in plugin.names():
                return plugin
        wanted = _normalize(name)
        for plugin in candidates:
            if any(_normalize(n) == wanted or _normalize(n).endswith("." + wanted) for n in plugin.names()):
                return plugin
        imported = _import_class(name)
        if imported is not None:
            for plugin in candidates:
                if plugin.cls is imported:
                    return plugin
            kind = _HOOKS["register_connectors"] if set(types) <= set(_CONNECTOR_TYPES) else None
            registry = PluginRegistry("import", kind or _fixed(types[0] if types else PluginType.CONVERTER))
            registry.add(imported)
            return registry.plugins[0]
        kinds = " or ".join(dict.fromkeys(_INTERFACE_NAMES[t] for t in types)) or "a plugin"
        raise PluginError(f"Failed to find any class that implements {kinds} and which name matches {name}")

    def connector(self, name: str) -> PluginDesc:
        """The connector plugin named `name` (see `find`)."""
        return self.find(name, *_CONNECTOR_TYPES)

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


def _disabled_from_env() -> set[str]:
    raw = os.environ.get(DISABLE_ENV, "")
    return {part.strip() for part in raw.split(",") if part.strip()}


def _dist_name(manager: pluggy.PluginManager, plugin: object) -> str | None:
    for module, dist in manager.list_plugin_distinfo():
        if module is plugin:
            return str(dist.metadata["name"])
    return None


def _import_class(path: str) -> Any | None:
    module_name, _, attr = path.rpartition(".")
    if not module_name:
        return None
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        return None
    return getattr(module, attr, None)
