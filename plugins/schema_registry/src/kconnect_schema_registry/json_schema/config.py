"""Confluent's JsonSchemaDataConfig keys and the JSON serializer keys the converter reads.

Names, defaults and texts are Confluent's. Keys whose non-default behaviour kconnect does not
implement are refused when set to it (`REFUSED_WHEN_ENABLED`), never silently ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kconnect.config import ConfigException
from kconnect.config.configdef import ConfigDef, ConfigType, Importance
from kconnect.config.validators import CaseInsensitiveValidString
from kconnect_schema_registry.json_schema.options import JsonSchemaDataOptions

OBJECT_ADDITIONAL_PROPERTIES = "object.additional.properties"
USE_OPTIONAL_FOR_NON_REQUIRED = "use.optional.for.nonrequired"
IGNORE_MODERN_DIALECTS = "ignore.modern.dialects"
DECIMAL_FORMAT = "decimal.format"
FLATTEN_SINGLETON_UNIONS = "flatten.singleton.unions"
PRESERVE_ADDITIONAL_PROPERTIES = "preserve.additional.properties"
GENERALIZED_SUM_TYPE_SUPPORT = "generalized.sum.type.support"
IGNORE_DEFAULT_FOR_NULLABLES = "ignore.default.for.nullables"
SCHEMAS_CACHE_SIZE = "schemas.cache.config"
FAIL_INVALID_SCHEMA = "json.fail.invalid.schema"
INDENT_OUTPUT = "json.indent.output"

_BOOLEANS: tuple[tuple[str, bool, Importance, str], ...] = (
    (
        GENERALIZED_SUM_TYPE_SUPPORT,
        False,
        Importance.MEDIUM,
        "Toggle for enabling/disabling generalized sum type support: interoperability of enum/union "
        "with other schema formats",
    ),
    (
        IGNORE_DEFAULT_FOR_NULLABLES,
        False,
        Importance.MEDIUM,
        "Whether to ignore the default for nullable fields when the value is null",
    ),
    (
        OBJECT_ADDITIONAL_PROPERTIES,
        True,
        Importance.MEDIUM,
        "Whether to allow additional properties for object schemas.",
    ),
    (
        USE_OPTIONAL_FOR_NON_REQUIRED,
        False,
        Importance.MEDIUM,
        "Whether to set non-required properties to be optional.",
    ),
    (
        IGNORE_MODERN_DIALECTS,
        False,
        Importance.LOW,
        "Whether to ignore modern dialects of JSON Schema after draft 7, in which case draft 7 will be used.",
    ),
    (FLATTEN_SINGLETON_UNIONS, True, Importance.LOW, "Whether to flatten singleton unions"),
    (
        PRESERVE_ADDITIONAL_PROPERTIES,
        False,
        Importance.MEDIUM,
        "When true, this converter preserves undeclared JSON properties permitted by the schema (JSON "
        "Schema permits them by default unless additionalProperties is set to false). Preserves the "
        "original value and data type of each property. Default false drops such properties (existing "
        "behavior).",
    ),
    (
        FAIL_INVALID_SCHEMA,
        False,
        Importance.MEDIUM,
        "Whether to fail serialization if the payload does not match the schema",
    ),
    (INDENT_OUTPUT, False, Importance.LOW, "Whether to indent the JSON output"),
)

#: Keys kconnect refuses when set to true, with the reason.
REFUSED_WHEN_ENABLED: Mapping[str, str] = {
    PRESERVE_ADDITIONAL_PROPERTIES: "undeclared properties kept as Variant values are not implemented",
}


def json_schema_config_def(base: ConfigDef) -> ConfigDef:
    """`base` with the keys of Confluent's JsonSchemaDataConfig and the JSON serializer's keys above."""
    for name, default, importance, doc in _BOOLEANS:
        base = base.define(
            name, type=ConfigType.BOOLEAN, default=default, importance=importance, documentation=doc
        )
    return base.define(
        DECIMAL_FORMAT,
        type=ConfigType.STRING,
        default="BASE64",
        validator=CaseInsensitiveValidString.in_("BASE64", "NUMERIC"),
        importance=Importance.LOW,
        documentation="Controls which format this converter will serialize decimals in. This value is case "
        "insensitive and can be either 'BASE64' (default) or 'NUMERIC'",
    ).define(
        SCHEMAS_CACHE_SIZE,
        type=ConfigType.INT,
        default=1000,
        importance=Importance.LOW,
        documentation="Size of the converted schemas cache",
    )


def options_from_parsed(parsed: Mapping[str, Any]) -> JsonSchemaDataOptions:
    """The mapping options of a config parsed by `json_schema_config_def`; refused keys raise."""
    for key, reason in REFUSED_WHEN_ENABLED.items():
        if parsed.get(key):
            raise ConfigException(f"{key}=true is not supported by kconnect: {reason}", name=key)
    return JsonSchemaDataOptions(
        allow_additional_properties=bool(parsed[OBJECT_ADDITIONAL_PROPERTIES]),
        use_optional_for_nonrequired=bool(parsed[USE_OPTIONAL_FOR_NON_REQUIRED]),
        decimal_numeric=str(parsed[DECIMAL_FORMAT]).upper() == "NUMERIC",
        flatten_singleton_unions=bool(parsed[FLATTEN_SINGLETON_UNIONS]),
        ignore_default_for_nullables=bool(parsed[IGNORE_DEFAULT_FOR_NULLABLES]),
        validate=bool(parsed[FAIL_INVALID_SCHEMA]),
        generalized_sum_type_support=bool(parsed[GENERALIZED_SUM_TYPE_SUPPORT]),
        ignore_modern_dialects=bool(parsed[IGNORE_MODERN_DIALECTS]),
        indent_output=bool(parsed[INDENT_OUTPUT]),
    )
