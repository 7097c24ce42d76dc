"""InsertField: adds the record's topic, partition, offset, timestamp or a fixed text as fields.

A Struct gets a new schema with the fields appended; a schemaless map gets the entries. A field
name ending in ``!`` makes the field required in the new schema, ``?`` (the default) optional. A
null key or value (a tombstone) passes through unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from kconnect.config.configdef import ConfigDef, ConfigException, ConfigType, Importance
from kconnect.data.logical import Timestamp
from kconnect.data.schema import (
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_INT32_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    Schema,
    SchemaBuilder,
)
from kconnect.data.struct import Struct
from kconnect.records import ConnectRecord

from kconnect_transforms.base import (
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    TRANSFORMS_PACKAGE,
    R,
    Side,
    SideTransformation,
    define_replace_null_with_default,
)
from kconnect_transforms.requirements import require_map, require_sink_record, require_struct
from kconnect_transforms.schemas import SchemaCache, copy_schema_basics, fields_of

TOPIC_FIELD = "topic.field"
PARTITION_FIELD = "partition.field"
OFFSET_FIELD = "offset.field"
TIMESTAMP_FIELD = "timestamp.field"
STATIC_FIELD = "static.field"
STATIC_VALUE = "static.value"

PURPOSE = "field insertion"

_SUFFIX_DOC = " End the name with ! for a required field, or ? (the default) for an optional one."

OPTIONAL_TIMESTAMP_SCHEMA = Timestamp.builder().optional().build()


@dataclass(frozen=True)
class InsertionSpec:
    """A field to insert: its name and whether the new schema makes it optional."""

    name: str
    optional: bool

    @classmethod
    def parse(cls, spec: str | None) -> InsertionSpec | None:
        """``name!`` is required, ``name?`` or ``name`` optional; None stays None."""
        if spec is None:
            return None
        if spec.endswith("?"):
            return cls(spec[:-1], True)
        if spec.endswith("!"):
            return cls(spec[:-1], False)
        return cls(spec, True)

    def __str__(self) -> str:
        # Kafka's InsertionSpec has no toString of its own: messages show Java's object identity.
        return f"InsertionSpec{{name={self.name}, optional={'true' if self.optional else 'false'}}}"


def _define_config() -> ConfigDef:
    config_def = ConfigDef()
    for name, what in (
        (TOPIC_FIELD, "Name of the field to hold the Kafka topic."),
        (PARTITION_FIELD, "Name of the field to hold the Kafka partition."),
        (OFFSET_FIELD, "Name of the field to hold the Kafka offset (sink connectors only)."),
        (TIMESTAMP_FIELD, "Name of the field to hold the record's timestamp."),
    ):
        config_def.define(
            name,
            type=ConfigType.STRING,
            default=None,
            importance=Importance.MEDIUM,
            documentation=what + _SUFFIX_DOC,
        )
    config_def.define(
        STATIC_FIELD,
        type=ConfigType.STRING,
        default=None,
        importance=Importance.MEDIUM,
        documentation="Name of the field to hold the fixed text of static.value." + _SUFFIX_DOC,
    )
    config_def.define(
        STATIC_VALUE,
        type=ConfigType.STRING,
        default=None,
        importance=Importance.MEDIUM,
        documentation="The fixed text to insert, when static.field is set.",
    )
    return define_replace_null_with_default(config_def)


class InsertField(SideTransformation):
    """Kafka's InsertField: record metadata and a fixed text as new fields of the key or value."""

    config_def: ClassVar[ConfigDef | None] = _define_config()

    def __init__(self) -> None:
        self.topic_field: InsertionSpec | None = None
        self.partition_field: InsertionSpec | None = None
        self.offset_field: InsertionSpec | None = None
        self.timestamp_field: InsertionSpec | None = None
        self.static_field: InsertionSpec | None = None
        self.static_value: str | None = None
        self.replace_null_with_default = True
        self._schemas = SchemaCache()

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Read the field names; at least one insertion must be configured."""
        config = self.parse_config(configs)
        self.topic_field = InsertionSpec.parse(config[TOPIC_FIELD])
        self.partition_field = InsertionSpec.parse(config[PARTITION_FIELD])
        self.offset_field = InsertionSpec.parse(config[OFFSET_FIELD])
        self.timestamp_field = InsertionSpec.parse(config[TIMESTAMP_FIELD])
        self.static_field = InsertionSpec.parse(config[STATIC_FIELD])
        self.static_value = config[STATIC_VALUE]
        self.replace_null_with_default = bool(config[REPLACE_NULL_WITH_DEFAULT_CONFIG])
        specs = (self.topic_field, self.partition_field, self.offset_field, self.timestamp_field)
        if all(spec is None for spec in specs) and self.static_field is None:
            raise ConfigException("No field insertion configured")
        if self.static_field is not None and self.static_value is None:
            raise ConfigException.invalid(
                STATIC_VALUE, None, f"No value specified for static field: {self.static_field}"
            )
        self._schemas = SchemaCache()

    def apply(self, record: R) -> R | None:
        """The record with the fields inserted; a null key or value passes through."""
        if self.side.value_of(record) is None:
            return record
        if self.side.schema_of(record) is None:
            return self._apply_schemaless(record)
        return self._apply_with_schema(record)

    def _apply_schemaless(self, record: R) -> R:
        updated = dict(require_map(self.side.value_of(record), PURPOSE))
        if self.topic_field is not None:
            updated[self.topic_field.name] = record.topic
        if self.partition_field is not None and record.kafka_partition is not None:
            updated[self.partition_field.name] = record.kafka_partition
        if self.offset_field is not None:
            updated[self.offset_field.name] = require_sink_record(record, PURPOSE).kafka_offset
        if self.timestamp_field is not None and record.timestamp is not None:
            updated[self.timestamp_field.name] = record.timestamp
        if self.static_field is not None and self.static_value is not None:
            updated[self.static_field.name] = self.static_value
        return self.side.replace(record, None, updated)

    def _apply_with_schema(self, record: R) -> R:
        value = require_struct(self.side.value_of(record), PURPOSE)
        schema = self._schemas.get(value.schema, self._updated_schema)
        updated = Struct(schema)
        for field in value.schema.fields:
            current = value.get(field) if self.replace_null_with_default else value.get_without_default(field)
            updated.put(field.name, current)
        self._insert(record, updated)
        return self.side.replace(record, schema, updated)

    def _insert(self, record: ConnectRecord, updated: Struct) -> None:
        if self.topic_field is not None:
            updated.put(self.topic_field.name, record.topic)
        if self.partition_field is not None and record.kafka_partition is not None:
            updated.put(self.partition_field.name, record.kafka_partition)
        if self.offset_field is not None:
            updated.put(self.offset_field.name, require_sink_record(record, PURPOSE).kafka_offset)
        if self.timestamp_field is not None and record.timestamp is not None:
            updated.put(self.timestamp_field.name, Timestamp.to_logical(Timestamp.SCHEMA, record.timestamp))
        if self.static_field is not None and self.static_value is not None:
            updated.put(self.static_field.name, self.static_value)

    def _updated_schema(self, schema: Schema) -> Schema:
        builder = copy_schema_basics(schema, SchemaBuilder.struct())
        for field in fields_of(schema):
            builder.field(field.name, field.schema)
        for spec, optional, required in (
            (self.topic_field, OPTIONAL_STRING_SCHEMA, STRING_SCHEMA),
            (self.partition_field, OPTIONAL_INT32_SCHEMA, INT32_SCHEMA),
            (self.offset_field, OPTIONAL_INT64_SCHEMA, INT64_SCHEMA),
            (self.timestamp_field, OPTIONAL_TIMESTAMP_SCHEMA, Timestamp.SCHEMA),
            (self.static_field, OPTIONAL_STRING_SCHEMA, STRING_SCHEMA),
        ):
            if spec is not None:
                builder.field(spec.name, optional if spec.optional else required)
        return builder.build()


class InsertFieldKey(InsertField):
    """InsertField on the record key."""

    java_class_names = (f"{TRANSFORMS_PACKAGE}InsertField$Key",)
    side = Side.KEY


class InsertFieldValue(InsertField):
    """InsertField on the record value."""

    java_class_names = (f"{TRANSFORMS_PACKAGE}InsertField$Value",)
    side = Side.VALUE
