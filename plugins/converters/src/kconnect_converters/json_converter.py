"""JsonConverter: Connect data as JSON, byte-identical to Kafka's JsonConverter.

With ``schemas.enable=true`` (the default) every message is an envelope,
``{"schema":{...},"payload":...}``; with ``false`` it is the bare payload, and reading infers
the schema-free types Kafka infers (integers INT64, other numbers FLOAT64, objects maps).

Hot path: a schema's envelope prefix and its compiled value writer are built once and kept in an
LRU keyed by the schema (``schemas.cache.size``); writing a record walks the value once, producing
JSON text directly. Reading reuses the last schema when the envelope's schema text is unchanged.
"""

from __future__ import annotations

import base64
import datetime
import decimal
import json
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from kconnect.config.configdef import ConfigDef, ConfigType, Importance
from kconnect.config.validators import CaseInsensitiveValidString
from kconnect.data.logical import LOGICAL_TYPES, Date, Decimal, Time, Timestamp, epoch_millis
from kconnect.data.schema import Schema, SchemaAndValue, Type
from kconnect.data.struct import Struct
from kconnect.data.values import java_decimal_str
from kconnect.errors import DataError
from kconnect.records import Headers

from kconnect_converters import __version__, converter_config_def, converter_type
from kconnect_converters.json_schema_codec import (
    DECODER,
    JsonReader,
    compact_schema_text,
    freeze,
    json_double,
    json_float,
    json_string,
    parse_json,
    schema_from_json,
    schema_to_json,
)

Writer = Callable[[Any], str]

_INT_RANGES = {Type.INT8: 8, Type.INT16: 16, Type.INT32: 32, Type.INT64: 64}
_ENVELOPE_START = '{"schema":'
_PAYLOAD_KEY = ',"payload":'
_NOT_ENVELOPE = (
    'JsonConverter with schemas.enable requires "schema" and "payload" fields and may not contain additional '
    "fields. If you are trying to deserialize plain JSON data, set schemas.enable=false in your converter "
    "configuration."
)
_REQUIRED_NULL = "Conversion error: null value for field that is required and has no default value"


def _b64(data: bytes | bytearray | memoryview) -> str:
    return '"' + base64.b64encode(data).decode("ascii") + '"'


class JsonConverter:
    """Kafka's JsonConverter: keys, values and headers as JSON, with or without schemas."""

    java_class_names: ClassVar[tuple[str, ...]] = ("org.apache.kafka.connect.json.JsonConverter",)
    config_def: ClassVar[ConfigDef | None] = (
        converter_config_def()
        .define(
            "schemas.enable",
            type=ConfigType.BOOLEAN,
            default=True,
            importance=Importance.HIGH,
            documentation="Include schemas within each of the serialized values and keys.",
            group="Schemas",
            order_in_group=0,
            display_name="Enable Schemas",
        )
        .define(
            "schemas.cache.size",
            type=ConfigType.INT,
            default=1000,
            importance=Importance.HIGH,
            documentation="The maximum number of schemas that can be cached in this converter instance.",
            group="Schemas",
            order_in_group=1,
            display_name="Schema Cache Size",
        )
        .define(
            "decimal.format",
            type=ConfigType.STRING,
            default="BASE64",
            validator=CaseInsensitiveValidString.in_("BASE64", "NUMERIC"),
            importance=Importance.LOW,
            documentation="Controls which format this converter will serialize decimals in. This value is "
            "case insensitive and can be either 'BASE64' (default) or 'NUMERIC'",
            group="Serialization",
            order_in_group=0,
            display_name="Decimal Format",
        )
        .define(
            "replace.null.with.default",
            type=ConfigType.BOOLEAN,
            default=True,
            importance=Importance.LOW,
            documentation="Whether to replace fields that have a default value and that are null to the "
            "default value. When set to true, the default value is used, otherwise null is used.",
            group="Serialization",
            order_in_group=1,
            display_name="Replace null with default",
        )
    )

    def __init__(self) -> None:
        self.schemas_enable = True
        self.decimal_numeric = False
        self.replace_null_with_default = True
        self._cache_size = 1000
        self._writers: OrderedDict[Schema, tuple[str, Writer]] = OrderedDict()
        self._readers: OrderedDict[Any, Schema | None] = OrderedDict()
        self._last_write: tuple[Schema | None, str, Writer] = (
            None,
            '{"schema":null,"payload":',
            self._write_any,
        )
        self._last_read: tuple[str, Schema | None] | None = None
        self._reader = JsonReader()

    @classmethod
    def version(cls) -> str:
        """The plugin's version."""
        return __version__

    def configure(self, configs: Mapping[str, Any], is_key: bool | None = None) -> None:
        """Read the config; `is_key` None means a header converter (or ``converter.type`` given)."""
        assert self.config_def is not None
        parsed = self.config_def.parse({**configs, "converter.type": converter_type(configs, is_key)})
        self.schemas_enable = bool(parsed["schemas.enable"])
        self.decimal_numeric = str(parsed["decimal.format"]).upper() == "NUMERIC"
        self.replace_null_with_default = bool(parsed["replace.null.with.default"])
        self._cache_size = int(parsed["schemas.cache.size"])  # type: ignore[call-overload]
        self._writers.clear()
        self._readers.clear()
        self._last_write = (None, '{"schema":null,"payload":', self._write_any)
        self._last_read = None
        self._reader = JsonReader(self.replace_null_with_default)

    # --- Connect -> bytes ------------------------------------------------------------------------

    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        """Serialize a value to JSON; a null schema with a null value is a tombstone (None)."""
        if schema is None and value is None:
            return None
        last_schema, prefix, writer = self._last_write
        if schema is not last_schema:
            prefix, writer = self._writer_for(schema)
            self._last_write = (schema, prefix, writer)
        text = prefix + writer(value) + "}" if self.schemas_enable else writer(value)
        try:
            return text.encode("utf-8")
        except UnicodeEncodeError as e:
            raise DataError(
                f"Converting Kafka Connect data to byte[] failed due to serialization error: {e}"
            ) from e

    def from_connect_header(
        self, topic: str, header_key: str, schema: Schema | None, value: Any
    ) -> bytes | None:
        """Serialize a header value exactly as a record value."""
        return self.from_connect_data(topic, schema, value)

    def _writer_for(self, schema: Schema | None) -> tuple[str, Writer]:
        if schema is None:
            return '{"schema":null,"payload":', self._write_any
        cached = self._writers.get(schema)
        if cached is not None:
            self._writers.move_to_end(schema)
            return cached
        writer = self.compile_writer(schema)
        entry = ('{"schema":' + schema_to_json(schema, self._render_default) + ',"payload":', writer)
        self._writers[schema] = entry
        if len(self._writers) > self._cache_size:
            self._writers.popitem(last=False)
        return entry

    def _render_default(self, schema: Schema) -> str:
        return self._compile_value(schema)(schema.default_value)

    def compile_writer(self, schema: Schema | None) -> Writer:
        """A function writing values of `schema` (None for schemaless) as JSON text."""
        if schema is None:
            return self._write_any
        body = self._compile_value(schema)
        default = schema.default_value
        if default is not None and self.replace_null_with_default:
            default_text = body(default)
            return lambda v: default_text if v is None else body(v)
        if schema.optional:
            return lambda v: "null" if v is None else body(v)

        def required(v: Any) -> str:
            if v is None:
                raise DataError(_REQUIRED_NULL)
            return body(v)

        return required

    def _compile_value(self, schema: Schema) -> Writer:
        """A writer for non-null values of `schema`."""
        kind = schema.type
        logical = LOGICAL_TYPES.get(schema.name) if schema.name is not None else None
        if logical is not None:
            return self._compile_logical(schema, logical)
        if kind in _INT_RANGES:
            bits = _INT_RANGES[kind]
            low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1

            def write_int(v: Any) -> str:
                if type(v) is not int and (isinstance(v, bool) or not isinstance(v, int)):
                    raise DataError(f"Invalid type for {kind}: {type(v)}")
                if not low <= v <= high:
                    raise DataError(f"Invalid value {v} for {kind}: out of range")
                return str(int(v))

            return write_int
        if kind is Type.FLOAT64 or kind is Type.FLOAT32:
            render = json_double if kind is Type.FLOAT64 else json_float

            def write_float(v: Any) -> str:
                if type(v) is float:
                    return render(v)
                if isinstance(v, bool) or not isinstance(v, (int, float)):
                    raise DataError(f"Invalid type for {kind}: {type(v)}")
                return render(float(v))

            return write_float
        if kind is Type.BOOLEAN:
            return _write_bool
        if kind is Type.STRING:
            return _write_str
        if kind is Type.BYTES:
            return _write_bytes
        if kind is Type.ARRAY:
            element = self.compile_writer(schema.value_schema)

            def write_array(v: Any) -> str:
                if not isinstance(v, (list, tuple)):
                    raise DataError(f"Invalid type for ARRAY: {type(v)}")
                return "[" + ",".join([element(x) for x in v]) + "]"

            return write_array
        if kind is Type.MAP:
            return self._compile_map(schema)
        return self._compile_struct(schema)

    def _compile_map(self, schema: Schema) -> Writer:
        if schema.key_schema is None:
            return self._write_any
        key = self.compile_writer(schema.key_schema)
        item = self.compile_writer(schema.value_schema)
        if schema.key_schema.type is Type.STRING:

            def write_object(v: Any) -> str:
                if not isinstance(v, Mapping):
                    raise DataError(f"Invalid type for MAP: {type(v)}")
                out = []
                for k, x in v.items():
                    text = key(k)
                    out.append((text if text[0] == '"' else '"' + text + '"') + ":" + item(x))
                return "{" + ",".join(out) + "}"

            return write_object

        def write_pairs(v: Any) -> str:
            if not isinstance(v, Mapping):
                raise DataError(f"Invalid type for MAP: {type(v)}")
            return "[" + ",".join(["[" + key(k) + "," + item(x) + "]" for k, x in v.items()]) + "]"

        return write_pairs

    def _compile_struct(self, schema: Schema) -> Writer:
        keys = [json_string(f.name) + ":" for f in schema.fields]
        writers = [self.compile_writer(f.schema) for f in schema.fields]
        pairs = list(zip(keys, writers, strict=True))

        def write_struct(v: Any) -> str:
            if type(v) is not Struct or (v.schema is not schema and v.schema != schema):
                raise DataError("Mismatching schema.")
            return "{" + ",".join([k + w(x) for (k, w), x in zip(pairs, v.values(), strict=True)]) + "}"

        return write_struct

    def _compile_logical(self, schema: Schema, logical: type) -> Writer:
        name = logical.__name__
        if logical is Decimal:
            numeric = self.decimal_numeric

            def write_decimal(v: Any) -> str:
                if not isinstance(v, decimal.Decimal):
                    raise DataError(f"Invalid type for Decimal, expected Decimal but was {type(v)}")
                if numeric:
                    if not v.is_finite():
                        raise DataError(f"Decimal value {v} is not a finite number")
                    return java_decimal_str(v)
                return _b64(Decimal.from_logical(schema, v))

            return write_decimal
        temporal_types: dict[type, type[Any]] = {
            Date: datetime.date,
            Time: datetime.time,
            Timestamp: datetime.datetime,
        }
        expected = temporal_types[logical]

        def write_temporal(v: Any) -> str:
            if not isinstance(v, expected):
                raise DataError(f"Invalid type for {name}, expected {expected.__name__} but was {type(v)}")
            if logical is Timestamp:
                return str(epoch_millis(v))
            if logical is Date:
                return str(Date.from_logical(schema, v))
            return str(Time.from_logical(schema, v))

        return write_temporal

    def _write_any(self, v: Any) -> str:
        """Write a schemaless value, choosing the JSON form from its Python type."""
        if v is None:
            return "null"
        if isinstance(v, str):
            return json_string(v)
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int):
            return str(int(v))
        if isinstance(v, float):
            return json_double(v)
        if isinstance(v, (bytes, bytearray, memoryview)):
            return _b64(v)
        if isinstance(v, (list, tuple)):
            return "[" + ",".join([self._write_any(x) for x in v]) + "]"
        if isinstance(v, Mapping):
            if all(isinstance(k, str) for k in v):
                return "{" + ",".join([json_string(k) + ":" + self._write_any(x) for k, x in v.items()]) + "}"
            return (
                "["
                + ",".join(["[" + self._write_any(k) + "," + self._write_any(x) + "]" for k, x in v.items()])
                + "]"
            )
        if isinstance(v, Struct):
            raise DataError("Mismatching schema.")
        raise DataError(f"Python class {type(v)} does not have corresponding schema type.")

    # --- bytes -> Connect ------------------------------------------------------------------------

    def to_connect_data(
        self, topic: str, value: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        """Deserialize JSON; with schemas enabled the input must be a schema/payload envelope."""
        if value is None:
            return SchemaAndValue.NULL
        try:
            text = bytes(value).decode(json.detect_encoding(value))
        except (UnicodeDecodeError, LookupError) as e:
            raise DataError(
                f"Converting byte[] to Kafka Connect data failed due to serialization error: {e}"
            ) from e
        if self.schemas_enable:
            fast = self._read_known_envelope(text)
            if fast is not None:
                return fast
        node = parse_json(text)
        if not self.schemas_enable:
            return SchemaAndValue(None, self._reader.to_connect(None, node))
        if not isinstance(node, dict) or len(node) != 2 or "schema" not in node or "payload" not in node:
            raise DataError(_NOT_ENVELOPE)
        schema = self._schema_for(node["schema"])
        if schema is not None:
            schema_text = compact_schema_text(text)
            if schema_text is not None:
                self._last_read = (schema_text, schema)
        return SchemaAndValue(schema, self._reader.to_connect(schema, node["payload"]))

    def to_connect_header(self, topic: str, header_key: str, value: bytes | None) -> SchemaAndValue:
        """Deserialize a header value exactly as a record value."""
        return self.to_connect_data(topic, value)

    def _read_known_envelope(self, text: str) -> SchemaAndValue | None:
        """Read ``{"schema":S,"payload":P}`` whose S is the text last seen, without parsing S again."""
        last = self._last_read
        if last is None or not text.startswith(_ENVELOPE_START):
            return None
        schema_text, schema = last
        end = len(_ENVELOPE_START) + len(schema_text)
        if not text.startswith(schema_text, len(_ENVELOPE_START)) or not text.startswith(_PAYLOAD_KEY, end):
            return None
        try:
            payload, stop = DECODER.raw_decode(text, end + len(_PAYLOAD_KEY))
        except ValueError:
            return None
        if text[stop:].strip() != "}":
            return None
        return SchemaAndValue(schema, self._reader.to_connect(schema, payload))

    def _schema_for(self, node: Any) -> Schema | None:
        if node is None:
            return None
        key = freeze(node)
        if key in self._readers:
            self._readers.move_to_end(key)
            return self._readers[key]
        schema = schema_from_json(node, self._reader.to_connect)
        self._readers[key] = schema
        if len(self._readers) > self._cache_size:
            self._readers.popitem(last=False)
        return schema


def _write_bool(v: Any) -> str:
    if v is True:
        return "true"
    if v is False:
        return "false"
    raise DataError(f"Invalid type for BOOLEAN: {type(v)}")


def _write_str(v: Any) -> str:
    if isinstance(v, str):
        return json_string(v)
    raise DataError(f"Invalid type for STRING: {type(v)}")


def _write_bytes(v: Any) -> str:
    if isinstance(v, (bytes, bytearray, memoryview)):
        return _b64(v)
    raise DataError(f"Invalid type for bytes type: {type(v)}")
