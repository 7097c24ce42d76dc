"""Confluent's AvroDataConfig keys (the Connect <-> Avro mapping options) and their parsed values."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kconnect.config import ConfigException
from kconnect.config.configdef import ConfigDef, ConfigType, Importance

GENERALIZED_SUM_TYPE_SUPPORT = "generalized.sum.type.support"
IGNORE_DEFAULT_FOR_NULLABLES = "ignore.default.for.nullables"
SCHEMAS_CACHE_SIZE = "schemas.cache.config"
ENHANCED_AVRO_SCHEMA_SUPPORT = "enhanced.avro.schema.support"
SCRUB_INVALID_NAMES = "scrub.invalid.names"
CONNECT_META_DATA = "connect.meta.data"
ALLOW_OPTIONAL_MAP_KEYS = "allow.optional.map.keys"
FLATTEN_SINGLETON_UNIONS = "flatten.singleton.unions"
DISCARD_TYPE_DOC_DEFAULT = "discard.type.doc.default"

_KEYS: tuple[tuple[str, ConfigType, Any, Importance, str], ...] = (
    (
        GENERALIZED_SUM_TYPE_SUPPORT,
        ConfigType.BOOLEAN,
        False,
        Importance.MEDIUM,
        "Toggle for enabling/disabling generalized sum type support: interoperability of enum/union "
        "with other schema formats",
    ),
    (
        IGNORE_DEFAULT_FOR_NULLABLES,
        ConfigType.BOOLEAN,
        False,
        Importance.MEDIUM,
        "Whether to ignore the default for nullable fields when the value is null",
    ),
    (SCHEMAS_CACHE_SIZE, ConfigType.INT, 1000, Importance.LOW, "Size of the converted schemas cache"),
    (
        ENHANCED_AVRO_SCHEMA_SUPPORT,
        ConfigType.BOOLEAN,
        False,
        Importance.MEDIUM,
        "Toggle for enabling/disabling enhanced avro schema support: Enum symbol preservation and "
        "Package Name awareness",
    ),
    (
        SCRUB_INVALID_NAMES,
        ConfigType.BOOLEAN,
        False,
        Importance.MEDIUM,
        "Whether to scrub invalid names by replacing invalid characters with valid ones",
    ),
    (
        CONNECT_META_DATA,
        ConfigType.BOOLEAN,
        True,
        Importance.LOW,
        "Toggle for enabling/disabling connect converter to add its meta data to the output schema or not",
    ),
    (
        DISCARD_TYPE_DOC_DEFAULT,
        ConfigType.BOOLEAN,
        False,
        Importance.LOW,
        "Only Avro field doc and default will be retained during conversion of Avro and Connect schema.",
    ),
    (
        ALLOW_OPTIONAL_MAP_KEYS,
        ConfigType.BOOLEAN,
        False,
        Importance.LOW,
        "Allow optional string map key when converting from Connect Schema to Avro Schema.",
    ),
    (
        FLATTEN_SINGLETON_UNIONS,
        ConfigType.BOOLEAN,
        True,
        Importance.LOW,
        "Whether to flatten singleton unions",
    ),
)

#: Keys kconnect refuses when set to a value other than their default, with the reason.
REFUSED_WHEN_ENABLED: Mapping[str, str] = {
    GENERALIZED_SUM_TYPE_SUPPORT: "the generalized enum/union mapping (connect_union_*) is not implemented",
}


def avro_data_config_def(base: ConfigDef) -> ConfigDef:
    """`base` with Confluent's AvroDataConfig keys (names, defaults and texts as Confluent's)."""
    for name, kind, default, importance, doc in _KEYS:
        base = base.define(name, type=kind, default=default, importance=importance, documentation=doc)
    return base


@dataclass(frozen=True)
class AvroDataSettings:
    """The mapping options of one converter (Confluent's ``AvroDataConfig``)."""

    connect_meta_data: bool = True
    enhanced_schema_support: bool = False
    scrub_invalid_names: bool = False
    discard_type_doc_default: bool = False
    allow_optional_map_keys: bool = False
    flatten_singleton_unions: bool = True
    ignore_default_for_nullables: bool = False
    cache_size: int = 1000

    @classmethod
    def from_parsed(cls, parsed: Mapping[str, Any]) -> AvroDataSettings:
        """The settings of a config parsed by `avro_data_config_def`; refused keys raise ConfigException."""
        for key, reason in REFUSED_WHEN_ENABLED.items():
            if parsed.get(key):
                raise ConfigException(f"{key}=true is not supported by kconnect: {reason}", name=key)
        return cls(
            connect_meta_data=bool(parsed[CONNECT_META_DATA]),
            enhanced_schema_support=bool(parsed[ENHANCED_AVRO_SCHEMA_SUPPORT]),
            scrub_invalid_names=bool(parsed[SCRUB_INVALID_NAMES]),
            discard_type_doc_default=bool(parsed[DISCARD_TYPE_DOC_DEFAULT]),
            allow_optional_map_keys=bool(parsed[ALLOW_OPTIONAL_MAP_KEYS]),
            flatten_singleton_unions=bool(parsed[FLATTEN_SINGLETON_UNIONS]),
            ignore_default_for_nullables=bool(parsed[IGNORE_DEFAULT_FOR_NULLABLES]),
            cache_size=max(1, int(parsed[SCHEMAS_CACHE_SIZE])),
        )
