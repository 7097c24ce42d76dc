"""The Protobuf converter's own keys (Confluent's ProtobufDataConfig and serializer keys), parsed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kconnect.config import ConfigException
from kconnect.config.configdef import ConfigDef, ConfigType, Importance

from kconnect_schema_registry.config import serde_config_def

#: (key, default, Confluent's documentation) of each boolean data key kconnect implements.
_DATA_KEYS: tuple[tuple[str, bool, str], ...] = (
    (
        "generalized.sum.type.support",
        False,
        "Toggle for enabling/disabling generalized sum type support: interoperability of enum/union "
        "with other schema formats",
    ),
    (
        "ignore.default.for.nullables",
        False,
        "Whether to ignore the default for nullable fields when the value is null",
    ),
    (
        "enhanced.protobuf.schema.support",
        False,
        "Toggle for enabling/disabling enhanced protobuf schema support: package name preservation",
    ),
    (
        "scrub.invalid.names",
        False,
        "Whether to scrub invalid names by replacing invalid characters with valid ones",
    ),
    ("int.for.enums", False, "Whether to represent enums as integers"),
    ("optional.for.nullables", False, "Whether nullable fields should be specified with an optional label"),
    ("optional.for.proto2", True, "Whether proto2 optionals are supported"),
    ("wrapper.for.nullables", False, "Whether nullable fields should use primitive wrapper messages"),
    (
        "wrapper.for.raw.primitives",
        True,
        "Whether a wrapper message should be interpreted as a raw primitive at the root level",
    ),
    ("generate.struct.for.nulls", False, "Whether to generate a default struct for null messages"),
    (
        "generate.index.for.unions",
        True,
        "Whether to suffix union names with an underscore followed by an index",
    ),
    ("flatten.unions", False, "Whether to flatten unions (oneofs)"),
)

#: Serializer keys kconnect does not implement: (key, the only value accepted, why).
_REFUSED: tuple[tuple[str, object, str], ...] = (
    ("skip.known.types", True, "well-known imports are never registered as references"),
    ("reference.lookup.only", False, "Connect schemas have no references to look up"),
    ("validation.rules.execution", "DISABLED", "inline validation rules are not implemented"),
    ("schema.backup.enabled", False, "the schema backup envelope is not implemented"),
)


def protobuf_config_def() -> ConfigDef:
    """The ProtobufConverter's keys: the registry keys, then Confluent's Protobuf data keys."""
    config = serde_config_def().define(
        "schemas.cache.config",
        type=ConfigType.INT,
        default=1000,
        importance=Importance.LOW,
        documentation="Size of the converted schemas cache",
    )
    for key, default, doc in _DATA_KEYS:
        config = config.define(
            key, type=ConfigType.BOOLEAN, default=default, importance=Importance.MEDIUM, documentation=doc
        )
    config = config.define(
        "skip.known.types",
        type=ConfigType.BOOLEAN,
        default=True,
        importance=Importance.LOW,
        documentation="Whether to skip known types when resolving schema dependencies (true only).",
    ).define(
        "reference.lookup.only",
        type=ConfigType.BOOLEAN,
        default=False,
        importance=Importance.MEDIUM,
        documentation="Regardless of whether auto.register.schemas or use.latest.version is true, only "
        "look up the ID for references by using the schema (false only).",
    )
    config = config.define(
        "schema.backup.enabled",
        type=ConfigType.BOOLEAN,
        default=False,
        importance=Importance.LOW,
        documentation="Whether records carry Confluent's schema backup envelope (false only).",
    )
    return config.define(
        "validation.rules.execution",
        type=ConfigType.STRING,
        default="DISABLED",
        importance=Importance.MEDIUM,
        documentation="When to execute inline validation rules attached to the schema (DISABLED only).",
    )


@dataclass(frozen=True)
class ProtobufOptions:
    """Confluent's ProtobufDataConfig switches, as the mapping and the codecs read them."""

    generalized_sum_type_support: bool = False
    ignore_default_for_nullables: bool = False
    enhanced_schema_support: bool = False
    scrub_invalid_names: bool = False
    int_for_enums: bool = False
    optional_for_nullables: bool = False
    optional_for_proto2: bool = True
    wrapper_for_nullables: bool = False
    wrapper_for_raw_primitives: bool = True
    generate_struct_for_nulls: bool = False
    generate_index_for_unions: bool = True
    flatten_unions: bool = False

    @classmethod
    def from_parsed(cls, parsed: Mapping[str, Any]) -> ProtobufOptions:
        """Options from a config parsed by `protobuf_config_def`; a refused key set to another value fails."""
        for key, accepted, reason in _REFUSED:
            value = parsed.get(key, accepted)
            if str(value).lower() != str(accepted).lower():
                raise ConfigException(
                    f"{key}={value} is not supported by kconnect's ProtobufConverter: {reason}", name=key
                )
        return cls(
            **{key.replace(".", "_").replace("_protobuf", ""): bool(parsed[key]) for key, _, _ in _DATA_KEYS}
        )
