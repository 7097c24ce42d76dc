"""Configuration definitions and validation, the Python twin of Kafka's `ConfigDef`.

A plugin declares its keys with a `ConfigDef`; the framework validates a connector config against
the common connector keys plus the plugin's own, with Kafka's error texts::

    from kconnect.config import ConfigDef, Range

    config_def = (
        ConfigDef()
        .define("file", type="STRING", importance="HIGH", documentation="File to read.")
        .define("batch.size", type="INT", default=2000, validator=Range.at_least(1),
                importance="LOW", documentation="Largest number of lines per poll.")
    )
    config_def.validate({"batch.size": "0"})["batch.size"].errors
    # ['Invalid value 0 for configuration batch.size: Value must be at least 1']

Modules: `values` (types, parsing, Kafka's texts), `config_key` (a key and its validation outcome),
`configdef` (the def), `rules` (a validation rule written once: schema fragment, check, message,
rank) and `validators` (Kafka's validators as rules), `json_schema` (a def as JSON Schema),
`validation` (the engine and the validate endpoint's entities), `connector_keys` (the framework's
connector keys), `plugin_keys` (the keys of the plugins a connector config names),
`connector_config` (`build_config_infos`) and `worker_settings` (the worker keys read with a
default, and their typed values a task gets).
"""

from .configdef import (
    NO_DEFAULT,
    ConfigDef,
    ConfigException,
    ConfigKey,
    ConfigType,
    ConfigValue,
    Importance,
    Password,
    Recommender,
    Width,
    convert_to_string,
    parse_type,
)
from .connector_config import (
    build_config_infos,
    connector_config_def,
    connector_plugin_config,
    sink_connector_config_def,
    source_connector_config_def,
    validate_sink_config,
)
from .json_schema import config_def_json_schema
from .rules import Rule
from .validation import (
    ConfigInfo,
    ConfigInfos,
    ConfigKeyInfo,
    ConfigValueInfo,
    generate_result,
    invalid_config_message,
    validate_all,
)
from .validators import (
    CaseInsensitiveValidString,
    CompositeValidator,
    LambdaValidator,
    NonEmptyString,
    NonEmptyStringWithoutControlChars,
    NonNullValidator,
    OptionalRange,
    PluginClass,
    Range,
    RegexValidator,
    UniqueItems,
    Validator,
    ValidList,
    ValidString,
)

__all__ = [
    "NO_DEFAULT",
    "CaseInsensitiveValidString",
    "CompositeValidator",
    "ConfigDef",
    "ConfigException",
    "ConfigInfo",
    "ConfigInfos",
    "ConfigKey",
    "ConfigKeyInfo",
    "ConfigType",
    "ConfigValue",
    "ConfigValueInfo",
    "Importance",
    "LambdaValidator",
    "NonEmptyString",
    "NonEmptyStringWithoutControlChars",
    "NonNullValidator",
    "OptionalRange",
    "Password",
    "PluginClass",
    "Range",
    "Recommender",
    "RegexValidator",
    "Rule",
    "UniqueItems",
    "ValidList",
    "ValidString",
    "Validator",
    "Width",
    "build_config_infos",
    "config_def_json_schema",
    "connector_config_def",
    "connector_plugin_config",
    "convert_to_string",
    "generate_result",
    "invalid_config_message",
    "parse_type",
    "sink_connector_config_def",
    "source_connector_config_def",
    "validate_all",
    "validate_sink_config",
]
