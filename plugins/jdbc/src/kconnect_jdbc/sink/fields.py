"""From sink records to columns and rows (pure): Confluent's ``FieldsMetadata`` and ``RecordValidator``.

`check_record` refuses what the sink cannot write, with Confluent's messages (schemaless values
among them); `fields_metadata` decides, from ``pk.mode``/``pk.fields``/``fields.whitelist`` and a
record's schemas, which columns are the key and which the rest; `RowExtractor` turns records into
parameter dicts for those columns.
"""

from __future__ import annotations

import datetime
import zoneinfo
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kconnect import SinkRecord, Struct
from kconnect.data.schema import INT32_SCHEMA, INT64_SCHEMA, STRING_SCHEMA, Schema, Type
from kconnect.errors import ConnectError

from kconnect_jdbc.sink.config import (
    DEFAULT_KAFKA_PK_NAMES,
    DELETE_ENABLED_CONFIG,
    PK_MODE_CONFIG,
    SinkSettings,
)

#: Java's simple class names of the values a schemaless converter yields, for Confluent's messages.
_JAVA_TYPE_NAMES = {
    dict: "HashMap",
    list: "ArrayList",
    str: "String",
    int: "Long",
    float: "Double",
    bool: "Boolean",
    bytes: "byte[]",
}


@dataclass(frozen=True)
class SinkField:
    """One column the sink writes: its name, Connect schema and whether it is part of the key."""

    name: str
    schema: Schema
    is_key: bool


@dataclass(frozen=True)
class FieldsMetadata:
    """The key columns (in key order), the other columns, and every column in table order."""

    key_names: tuple[str, ...]
    non_key_names: tuple[str, ...]
    fields: tuple[SinkField, ...]


def _java_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, Struct):
        return "Struct"
    return _JAVA_TYPE_NAMES.get(type(value), type(value).__name__)


def _schema_type(schema: Schema | None) -> str:
    return "null" if schema is None else schema.type.name


def _coordinates(record: SinkRecord) -> str:
    return (
        f"(topic='{record.topic}',partition={record.kafka_partition},offset={record.kafka_offset},"
        f"timestamp={record.timestamp})"
    )


def check_record(record: SinkRecord, settings: SinkSettings) -> None:
    """Raise ConnectError (Confluent's texts) for a record this config cannot write."""
    delete_enabled = str(settings.delete_enabled).lower()
    if settings.delete_enabled and settings.pk_mode == "record_key":
        schema = record.key_schema
        if (
            record.key is None
            or schema is None
            or not (schema.type is Type.STRUCT or schema.type.is_primitive)
        ):
            raise ConnectError(
                f"Sink connector '{settings.connector_name}' is configured with "
                f"'{DELETE_ENABLED_CONFIG}={delete_enabled}' and '{PK_MODE_CONFIG}={settings.pk_mode}' and "
                "therefore requires records with a non-null key and non-null Struct or primitive key "
                f"schema, but found record at {_coordinates(record)} with a {_java_type(record.key)} key "
                f"and {_schema_type(record.key_schema)} key schema."
            )
    if record.value is None and settings.delete_enabled:
        return
    value_schema = record.value_schema
    if record.value is None or value_schema is None or value_schema.type is not Type.STRUCT:
        raise ConnectError(
            f"Sink connector '{settings.connector_name}' is configured with "
            f"'{DELETE_ENABLED_CONFIG}={delete_enabled}' and '{PK_MODE_CONFIG}={settings.pk_mode}' and "
            "therefore requires records with a non-null Struct value and non-null Struct schema, but "
            f"found record at {_coordinates(record)} with a {_java_type(record.value)} value and "
            f"{_schema_type(value_schema)} value schema."
        )


def fields_metadata(
    table: str, settings: SinkSettings, key_schema: Schema | None, value_schema: Schema | None
) -> FieldsMetadata:
    """The columns of `table` for records of these schemas under the config's key mode."""
    keys: dict[str, Schema] = {}
    configured = list(settings.pk_fields)
    mode = settings.pk_mode
    if mode == "kafka":
        if configured and len(configured) != 3:
            raise ConnectError(
                f"PK mode for table '{table}' is KAFKA so there should either be no field names defined for "
                f"defaults {_java_list(DEFAULT_KAFKA_PK_NAMES)} to be applicable, or exactly 3, defined "
                f"fields are: {_java_list(configured)}"
            )
        names = configured or list(DEFAULT_KAFKA_PK_NAMES)
        keys = dict(zip(names, (STRING_SCHEMA, INT32_SCHEMA, INT64_SCHEMA), strict=True))
    elif mode == "record_key":
        if key_schema is None:
            raise ConnectError(f"PK mode for table '{table}' is RECORD_KEY, but record key schema is missing")
        if key_schema.type.is_primitive:
            if len(configured) != 1:
                raise ConnectError(
                    "Need exactly one PK column defined since the key schema for records is a primitive "
                    f"type, defined columns are: {_java_list(configured)}"
                )
            keys = {configured[0]: key_schema}
        elif key_schema.type is Type.STRUCT:
            keys = _struct_fields(table, "RECORD_KEY", "key", key_schema, configured)
        else:
            raise ConnectError(
                f"Key schema must be primitive type or Struct, but is of type: {key_schema.type}"
            )
    elif mode == "record_value":
        if value_schema is None:
            raise ConnectError(
                f"PK mode for table '{table}' is RECORD_VALUE, but record value schema is missing"
            )
        keys = _struct_fields(table, "RECORD_VALUE", "value", value_schema, configured)
    non_keys: dict[str, Schema] = {}
    if value_schema is not None:
        for field in value_schema.fields:
            if field.name in keys:
                continue
            if settings.fields_whitelist and field.name not in settings.fields_whitelist:
                continue
            non_keys[field.name] = field.schema
    if not keys and not non_keys:
        raise ConnectError(f"No fields found using key and value schemas for table: {table}")
    ordered = [n for n in DEFAULT_KAFKA_PK_NAMES if n in keys]
    ordered += [
        f.name for f in (value_schema.fields if value_schema else ()) if f.name in keys or f.name in non_keys
    ]
    ordered += sorted(n for n in {**keys, **non_keys} if n not in ordered)
    return FieldsMetadata(
        key_names=tuple(keys),
        non_key_names=tuple(non_keys),
        fields=tuple(SinkField(n, keys.get(n) or non_keys[n], n in keys) for n in dict.fromkeys(ordered)),
    )


def _struct_fields(
    table: str, mode: str, which: str, schema: Schema, configured: Sequence[str]
) -> dict[str, Schema]:
    if not configured:
        return {f.name: f.schema for f in schema.fields}
    out = {}
    for name in configured:
        field = schema.field(name)
        if field is None:
            raise ConnectError(
                f"PK mode for table '{table}' is {mode} with configured PK fields {_java_list(configured)}, "
                f"but record {which} schema does not contain field: {name}"
            )
        out[name] = field.schema
    return out


def _java_list(items: Sequence[str]) -> str:
    return "[" + ", ".join(items) + "]"


class RowExtractor:
    """Turns records into ``{column: value}`` dicts for one `FieldsMetadata` (times in ``db.timezone``)."""

    def __init__(self, metadata: FieldsMetadata, settings: SinkSettings) -> None:
        self.metadata = metadata
        self.mode = settings.pk_mode
        self.zone = zoneinfo.ZoneInfo(settings.db_timezone)

    def row(self, record: SinkRecord) -> dict[str, Any]:
        """Every column's value (key and non-key) of an insert/upsert/update."""
        out = self.key(record)
        value = record.value
        for name in self.metadata.non_key_names:
            out[name] = self._db(value.get(name))
        return out

    def key(self, record: SinkRecord) -> dict[str, Any]:
        """The key columns' values of `record`."""
        names = self.metadata.key_names
        if self.mode == "kafka":
            return dict(zip(names, (record.topic, record.kafka_partition, record.kafka_offset), strict=True))
        if self.mode == "record_key":
            if isinstance(record.key, Struct):
                return {name: self._db(record.key.get(name)) for name in names}
            return {names[0]: self._db(record.key)}
        if self.mode == "record_value":
            return {name: self._db(record.value.get(name)) for name in names}
        return {}

    def _db(self, value: Any) -> Any:
        # Columns without a time zone take the time of db.timezone; the sessions run in it too.
        if isinstance(value, datetime.datetime) and value.tzinfo is not None:
            return value.astimezone(self.zone).replace(tzinfo=None)
        return value
