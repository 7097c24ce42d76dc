"""What a registration hook receives, and what it records: `PluginRegistry`, `PluginDesc`, `PluginType`.

Part of the author API: a plugin's registration hooks (`kconnect.hookspecs`) receive a
`PluginRegistry` and call ``registry.add(cls, aliases=[...])``. The plugin host
(`kconnect.plugin_host`) creates one registry per hook and answers lookups from the `PluginDesc`s
they collected; `kconnect.plugin_host` exports these names too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol


class PluginType(str, Enum):
    """The kinds of plugin, with Kafka's names for them (as `/connector-plugins` shows)."""

    SOURCE = "source"
    SINK = "sink"
    CONVERTER = "converter"
    HEADER_CONVERTER = "header_converter"
    TRANSFORMATION = "transformation"
    PREDICATE = "predicate"
    CONFIG_PROVIDER = "configprovider"
    REST_EXTENSION = "rest_extension"


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


class FoundPlugin(Protocol):
    """A plugin that is not a Python class but was found from the worker's config: a Java class on
    ``plugin.path`` (kconnect-java). It names itself; `PluginRegistry.add_found` registers it.

    The host treats it as it treats a registered class: ``config_def`` answers the plugin's keys,
    and calling it (``plugin()``) makes an instance whose ``validate(config)`` the validator calls.
    """

    @property
    def class_name(self) -> str:
        """The class name Kafka shows (``org.apache.kafka.connect.file.FileStreamSinkConnector``)."""

    @property
    def type(self) -> PluginType:
        """What kind of plugin it is."""

    @property
    def version(self) -> str:
        """Its version, as Kafka reports it (``undefined`` when it has none)."""

    @property
    def location(self) -> str:
        """Where it was found (Kafka's ``PluginDesc.location``: a jar or folder URL)."""

    def refuse_to_run(self, task_runtime: str) -> Exception | None:
        """The error a create or update naming this plugin answers, or None when it can run in the
        config of a connector whose tasks run in `task_runtime` (``python``, or ``java``: see
        `kconnect.plugin_host.PluginHost.task_runtime`)."""


def python_path_of(cls: Any) -> str:
    """``module.QualifiedName`` of `cls`: the name every plugin is found by."""
    return f"{cls.__module__}.{cls.__qualname__}"


def shown_class_name(cls: Any) -> str:
    """The name Kafka tooling sees for `cls`: its first ``java_class_names`` entry, else its Python path.

    `/connector-plugins` shows a plugin's ``class`` this way, and the herder writes a task config's
    ``task.class`` this way (`PluginHost.task_class` accepts it back).
    """
    java_names = tuple(getattr(cls, "java_class_names", ()) or ())
    return java_names[0] if java_names else python_path_of(cls)


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
    """What a registration hook receives: call `add` for each class the plugin provides.

    The host passes one registry per hook to every implementation, through pluggy's hook caller,
    so the registry collects classes in pluggy's call order: that order decides which class a
    name shared by two plugins resolves to (see `PluginHost.find`).
    """

    kind: str
    classify: Callable[[Any], PluginType]
    plugins: list[PluginDesc] = field(default_factory=list)
    locate: Callable[[Any], str | None] = lambda _cls: None

    def add(self, cls: Any, *, aliases: Iterable[str] = ()) -> None:
        """Register `cls`, found by its Python path, its Java class names and these aliases.

        The shown class name (`/connector-plugins`' ``class``) is the first Java class name the
        class declares, else its Python path, so Kafka tooling keeps recognising familiar plugins.
        """
        java_names = tuple(getattr(cls, "java_class_names", ()) or ())
        python_path = python_path_of(cls)
        names = tuple(dict.fromkeys((*java_names[1:], *aliases)))
        self.plugins.append(
            PluginDesc(
                cls=cls,
                type=self.classify(cls),
                class_name=shown_class_name(cls),
                python_path=python_path,
                aliases=names,
                version=_version_of(cls),
                distribution=self.locate(cls),
            )
        )

    def add_found(self, plugin: FoundPlugin) -> None:
        """Register a plugin found from the worker's config (`FoundPlugin`), found by its class name.

        Several versions of one class may be added; the first added answers to the name, so a
        plugin adds the newest version first (KIP-891's default).
        """
        self.plugins.append(
            PluginDesc(
                cls=plugin,
                type=plugin.type,
                class_name=plugin.class_name,
                python_path=plugin.class_name,
                aliases=(),
                version=plugin.version,
                distribution=plugin.location,
            )
        )
