"""Java plugins as kconnect registry entries: what the facade's scan answers, turned into `JavaPlugin`s.

Pure: no JVM here. `config_def_of` rebuilds a plugin's ``ConfigDef`` from the keys the facade
renders as Kafka's REST API does (``ConfigKeyInfo``: name, type, required, default_value, ...), so
``GET /connector-plugins/{plugin}/config`` and validate answer from it with kconnect's own rules.
`found_plugins` orders the versions of one class newest first, KIP-891's default, and keeps one
plugin per class, type and version, as Kafka lists them.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kconnect.config import NO_DEFAULT, ConfigDef, ConfigException, ConfigType, ConfigValue, parse_type
from kconnect.connector import ConnectorTransactionBoundaries, ExactlyOnceSupport
from kconnect.errors import BadRequestError
from kconnect.plugin_registry import PluginType
from kconnect.plugin_versions import version_key

from kconnect_java.connector import (
    ConnectorContext,
    Facade,
    JavaConnector,
    JavaTaskClass,
    alter_offsets,
    source_support,
)
from kconnect_java.stages import stage_errors

_TYPES = {t.value: t for t in PluginType}
_CONNECTORS = (PluginType.SOURCE, PluginType.SINK)
#: Java plugins a Java connector's tasks run in the task's JVM: converters, and Kafka's TransformationChain.
_IN_JAVA_TASKS = (
    PluginType.CONVERTER,
    PluginType.HEADER_CONVERTER,
    PluginType.TRANSFORMATION,
    PluginType.PREDICATE,
)

#: What a Java plugin is called in the 400 that refuses to run it.
_KINDS = {
    PluginType.SOURCE: "connector",
    PluginType.SINK: "connector",
    PluginType.CONVERTER: "converter",
    PluginType.HEADER_CONVERTER: "header converter",
    PluginType.TRANSFORMATION: "transformation",
    PluginType.PREDICATE: "predicate",
    PluginType.CONFIG_PROVIDER: "config provider",
    PluginType.REST_EXTENSION: "REST extension",
}


def config_def_of(keys: Iterable[Mapping[str, Any]]) -> ConfigDef:
    """The ConfigDef whose keys render as `keys` (Kafka's ``ConfigKeyInfo`` JSON, in their order).

    A required key has no default; any other has its ``default_value`` (null stays null).
    """
    definition = ConfigDef()
    for key in keys:
        definition.define(
            str(key["name"]),
            type=str(key["type"]),
            importance=str(key["importance"]),
            documentation=str(key.get("documentation") or ""),
            default=NO_DEFAULT if key.get("required") else key.get("default_value"),
            group=key.get("group"),
            order_in_group=int(key.get("order_in_group", key.get("order", -1))),
            width=str(key.get("width") or "NONE"),
            display_name=str(key.get("display_name") or key["name"]),
            dependents=tuple(key.get("dependents") or ()),
        )
    return definition


class JavaPluginInstance:
    """What calling a `JavaPlugin` makes: the validator asks it to ``validate`` a config, and the
    worker runs a connector with it as with a Python connector instance (`JavaConnector`).

    A connector's own ``validate(config)`` runs in Java, in its version's class loader, through the
    facade (its ConfigDef's checks and whatever the connector adds); without a facade (unit tests)
    the config is validated against the plugin's ConfigDef in kconnect.
    """

    def __init__(self, plugin: JavaPlugin) -> None:
        self.plugin = plugin
        self._connector: JavaConnector | None = None

    @property
    def connector(self) -> JavaConnector:
        """The running Java connector this instance drives (needs the facade)."""
        if self._connector is None:
            if self.plugin.facade is None:
                raise RuntimeError(f"{self.plugin.class_name} cannot run without kconnect's Java facade")
            self._connector = JavaConnector(self.plugin.facade, self.plugin.class_name, self.plugin.version)
        return self._connector

    def initialize(self, context: ConnectorContext) -> None:
        """See `JavaConnector.initialize`."""
        self.connector.initialize(context)

    def start(self, config: Mapping[str, str]) -> None:
        """See `JavaConnector.start`."""
        self.connector.start(config)

    def task_class(self) -> JavaTaskClass:
        """See `JavaConnector.task_class`."""
        return self.connector.task_class()

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        """See `JavaConnector.task_configs`."""
        return self.connector.task_configs(max_tasks)

    def stop(self) -> None:
        """See `JavaConnector.stop`."""
        self.connector.stop()

    def alter_offsets(self, config: Mapping[str, str], offsets: Mapping[Any, Any]) -> bool:
        """KIP-875: the Java connector's own ``alterOffsets`` (`kconnect_java.connector.alter_offsets`)."""
        if self.plugin.facade is None:
            raise RuntimeError(f"{self.plugin.class_name} cannot run without kconnect's Java facade")
        sink = self.plugin.type is PluginType.SINK
        return alter_offsets(
            self.plugin.facade, self.plugin.class_name, self.plugin.version, sink, config, offsets
        )

    def exactly_once_support(self, config: Mapping[str, str]) -> ExactlyOnceSupport | None:
        """A source connector's ``exactlyOnceSupport(config)`` in Java (KIP-618; None: unknown, as a
        connector that does not say, or without the facade)."""
        answer = self._source_support("exactly_once", config)
        return None if answer is None else ExactlyOnceSupport(answer)

    def can_define_transaction_boundaries(
        self, config: Mapping[str, str]
    ) -> ConnectorTransactionBoundaries | None:
        """A source connector's ``canDefineTransactionBoundaries(config)`` in Java (KIP-618);
        UNSUPPORTED without the facade, as a connector that does not say."""
        if self.plugin.facade is None:
            return ConnectorTransactionBoundaries.UNSUPPORTED
        answer = self._source_support("transaction_boundaries", config)
        return None if answer is None else ConnectorTransactionBoundaries(answer)

    def _source_support(self, question: str, config: Mapping[str, str]) -> str | None:
        if self.plugin.facade is None:
            return None
        return source_support(
            self.plugin.facade, self.plugin.class_name, self.plugin.version, question, config
        )

    def validate(self, config: Mapping[str, str]) -> Mapping[str, ConfigValue]:
        """The connector's own ConfigValues for `config`, as its Java ``validate`` answers them, and an
        error on each ``transforms.<alias>.type`` / ``predicates.<alias>.type`` naming no Java class
        (`kconnect_java.stages`: the tasks run Java transformations and predicates only)."""
        values = dict(self._own_values(config))
        if self.plugin.facade is not None and self.plugin.type in _CONNECTORS:
            values.update(stage_errors(config, self._java_stages))
        return values

    def _java_stages(self, names: Collection[str]) -> Mapping[str, Collection[str]]:
        """Which of `names` Kafka's isolation loads as a transformation or a predicate, in the facade."""
        assert self.plugin.facade is not None
        answer = self.plugin.facade.call({"op": "stage_classes", "names": list(names)})
        return {kind: set(answer.get(kind) or ()) for kind in ("transformation", "predicate")}

    def _own_values(self, config: Mapping[str, str]) -> Mapping[str, ConfigValue]:
        if self.plugin.facade is None:
            return self.plugin.config_def.validate(config)
        request = {
            "op": "validate",
            "class": self.plugin.class_name,
            "version": self.plugin.version,
            "config": {k: v for k, v in config.items() if v is not None},
        }
        answer = self.plugin.facade.call(request)
        return {
            value.name: value
            for value in config_values_of(answer.get("values") or (), self.plugin.config_def)
        }


def config_values_of(values: Iterable[Mapping[str, Any]], definition: ConfigDef) -> list[ConfigValue]:
    """Java ConfigValues, as the facade writes them (texts, as Kafka's REST API writes them), as
    kconnect's: each text parsed back to its key's type (a LIST key's recommended values are items,
    STRING), so kconnect renders the same text; a value of no key, or that does not parse, stays text.
    """
    result = []
    for value in values:
        name = str(value["name"])
        key = definition.config_keys.get(name)
        value_type = key.type if key is not None else None
        item_type = ConfigType.STRING if value_type is ConfigType.LIST else value_type
        result.append(
            ConfigValue(
                name,
                _parsed(name, value.get("value"), value_type),
                [_parsed(name, item, item_type) for item in value.get("recommended_values") or ()],
                [str(error) for error in value.get("errors") or ()],
                bool(value.get("visible", True)),
            )
        )
    return result


def _parsed(name: str, text: Any, config_type: ConfigType | None) -> object:
    if text is None or config_type is None:
        return text
    try:
        return parse_type(name, text, config_type)
    except ConfigException:
        return text


@dataclass(frozen=True)
class JavaPlugin:
    """One Java plugin class (one version of it) found on ``plugin.path``: a registry entry.

    Satisfies `kconnect.plugin_registry.FoundPlugin`. A connector runs, and so do the converters,
    transformations and predicates a Java connector names; a Java converter, transformation or
    predicate for a Python connector is refused on create (`refuse_to_run`).
    """

    class_name: str
    type: PluginType
    version: str
    location: str
    config_def: ConfigDef = field(compare=False)
    facade: Facade | None = field(default=None, compare=False, repr=False)

    java = True
    #: Where the tasks of a Java connector run: in a JVM (`kconnect.executor.TaskSpec.runtime`).
    task_runtime = "java"

    def __call__(self) -> JavaPluginInstance:
        """An instance for validation (see `JavaPluginInstance`)."""
        return JavaPluginInstance(self)

    def refuse_to_run(self, task_runtime: str) -> BadRequestError | None:
        """The 400 a create or update naming this plugin for a connector whose tasks run in
        `task_runtime` answers, or None: a Java connector runs (its instance in the facade JVM, its
        tasks on Spark's JVMs), with the Java converters, transformations and predicates its config
        names; a Python connector's tasks cannot run Java ones yet."""
        if self.type in _CONNECTORS or (self.type in _IN_JAVA_TASKS and task_runtime == self.task_runtime):
            return None
        kind = _KINDS[self.type]
        where = " on a Python connector's records" if self.type in _IN_JAVA_TASKS else ""
        return BadRequestError(
            f"{self.class_name} (version {self.version}, from {self.location}) is a Java {kind}: "
            f"Java {kind}s cannot run yet in this version of kconnect{where}"
        )


def found_plugins(scan: Mapping[str, Any], facade: Facade | None = None) -> list[JavaPlugin]:
    """The facade's scan answer as `JavaPlugin`s: by class name, each class's versions newest first.

    `facade` is how their instances reach Java (`JavaPluginInstance.validate`)."""
    plugins = [
        JavaPlugin(
            class_name=str(entry["class"]),
            type=_TYPES[str(entry["type"])],
            version=str(entry.get("version") or "undefined"),
            location=str(entry.get("location") or ""),
            config_def=config_def_of(entry.get("config") or ()),
            facade=facade,
        )
        for entry in scan.get("plugins", ())
        if str(entry.get("type")) in _TYPES
    ]
    plugins.sort(key=lambda p: version_key(p.version), reverse=True)
    plugins.sort(key=lambda p: p.class_name)
    # Kafka lists one plugin per class, type and version: a class whose version comes from the
    # framework (connect-file's is Kafka's own) is one plugin however many folders hold it.
    unique: dict[tuple[str, PluginType, str], JavaPlugin] = {}
    for plugin in plugins:
        unique.setdefault((plugin.class_name, plugin.type, plugin.version), plugin)
    return list(unique.values())
