"""Java plugins as kconnect registry entries: what the facade's scan answers, turned into `JavaPlugin`s.

Pure: no JVM here. `config_def_of` rebuilds a plugin's ``ConfigDef`` from the keys the facade
renders as Kafka's REST API does (``ConfigKeyInfo``: name, type, required, default_value, ...), so
``GET /connector-plugins/{plugin}/config`` and validate answer from it with kconnect's own rules.
`found_plugins` orders the versions of one class newest first, KIP-891's default, and keeps one
plugin per class, type and version, as Kafka lists them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kconnect.config import NO_DEFAULT, ConfigDef, ConfigValue
from kconnect.errors import BadRequestError
from kconnect.plugin_registry import PluginType
from kconnect.plugin_versions import version_key

_TYPES = {t.value: t for t in PluginType}


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
    """What calling a `JavaPlugin` makes: the validator asks it to ``validate`` a config.

    Validation runs against the plugin's ConfigDef in kconnect (the Java ``validate()`` override of
    a connector is not called yet: docs/java-connectors.md).
    """

    def __init__(self, plugin: JavaPlugin) -> None:
        self.plugin = plugin

    def validate(self, config: Mapping[str, str]) -> Mapping[str, ConfigValue]:
        """The plugin's keys validated by its ConfigDef, as `kconnect.connector.Connector.validate`."""
        return self.plugin.config_def.validate(config)


@dataclass(frozen=True)
class JavaPlugin:
    """One Java plugin class (one version of it) found on ``plugin.path``: a registry entry.

    Satisfies `kconnect.plugin_registry.FoundPlugin`. It does not run in this version: a connector
    config naming a Java connector is refused on create (`refuse_to_run`).
    """

    class_name: str
    type: PluginType
    version: str
    location: str
    config_def: ConfigDef = field(compare=False)

    java = True

    def __call__(self) -> JavaPluginInstance:
        """An instance for validation (see `JavaPluginInstance`)."""
        return JavaPluginInstance(self)

    def refuse_to_run(self) -> BadRequestError:
        """The 400 a create or update naming this connector answers: it cannot run yet."""
        return BadRequestError(
            f"Connector {self.class_name} (version {self.version}, from {self.location}) is a Java "
            "connector: Java connectors cannot run yet in this version of kconnect"
        )


def found_plugins(scan: Mapping[str, Any]) -> list[JavaPlugin]:
    """The facade's scan answer as `JavaPlugin`s: by class name, each class's versions newest first."""
    plugins = [
        JavaPlugin(
            class_name=str(entry["class"]),
            type=_TYPES[str(entry["type"])],
            version=str(entry.get("version") or "undefined"),
            location=str(entry.get("location") or ""),
            config_def=config_def_of(entry.get("config") or ()),
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
