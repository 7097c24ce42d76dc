"""JsonConverter: Connect data as JSON, byte-identical to Kafka's JsonConverter.

With ``schemas.enable=true`` (the default) every message is an envelope,
``{"schema":{...},"payload":...}``; with ``false`` it is the bare payload, and reading infers
the schema-free types Kafka infers (integers INT64, other numbers FLOAT64, objects maps).
``schema.content`` (KIP-1054, Kafka 4.2) gives the schema in the config instead: with schemas
enabled, every message read is then the bare payload of that schema (writing is unchanged).

Hot path: per schema, the envelope's bytes before and after the payload and an encoder are built
once and kept in an LRU keyed by the schema (``schemas.cache.size``). The encoder writes through
orjson and checks its bytes (`json_fast`); the few values orjson would write differently from
Jackson take the exact path (`JsonTextWriter`). Reading parses with orjson too, and reuses the last
schema while an envelope starts with the same schema text; whatever orjson refuses or might read
differently is read exactly, with Python's json and Kafka's leniencies.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any, ClassVar

from kconnect.config.configdef import ConfigDef, ConfigType, Importance, Width
from kconnect.config.validators import CaseInsensitiveValidString
from kconnect.data.logical import LOGICAL_TYPES
from kconnect.data.schema import Schema, SchemaAndValue, Type
from kconnect.errors import DataError
from kconnect.records import Headers

from kconnect_converters import __version__, converter_config_def, converter_type
from kconnect_converters.json_fast import (
    Encoder,
    JSONDecodeError,
    compile_encoder,
    loads,
    may_hold_long_integer,
)
from kconnect_converters.json_schema_codec import (
    DECODER,
    InexactNumberError,
    JsonReader,
    compact_schema_text,
    freeze,
    parse_json,
    schema_from_json,
    schema_to_json,
)
from kconnect_converters.json_text_writer import JsonTextWriter, Writer

SCHEMA_CONTENT_CONFIG = "schema.content"
_ENVELOPE_START = '{"schema":'
_PAYLOAD_KEY = ',"payload":'
_CLOSING_BRACE = ord("}")
_NOT_ENVELOPE = (
    'JsonConverter with schemas.enable requires "schema" and "payload" fields and may not contain additional '
    "fields. If you are trying to deserialize plain JSON data, set schemas.enable=false in your converter "
    "configuration."
)


def _utf8(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise DataError(
            f"Converting Kafka Connect data to byte[] failed due to serialization error: {e}"
        ) from e


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
            SCHEMA_CONTENT_CONFIG,
            type=ConfigType.STRING,
            default=None,
            importance=Importance.HIGH,
            # Kafka's text, its missing space after "ignored." included.
            documentation="When set, this is used as the schema for all messages, and the schemas within "
            "each of the message will be ignored.Otherwise, the schema will be included in the content of "
            "each message. This configuration applies only 'schemas.enable' is true, and it exclusively "
            "affects the sink connector.",
            group="Schemas",
            order_in_group=2,
            width=Width.MEDIUM,
            display_name="Schema Content",
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
        self._text = JsonTextWriter()
        self._writers: OrderedDict[Schema, Encoder] = OrderedDict()
        self._readers: OrderedDict[Any, Schema | None] = OrderedDict()
        self._schemaless = self._compile_encoder(None)
        # The last schema written and its encoder, as one tuple so that threads see a matching pair.
        self._last_write: tuple[Schema | None, Encoder] = (None, self._schemaless)
        self._last_read: tuple[str, Schema] | None = None
        # The last envelope's bytes up to its payload, its schema, and whether strings read as is.
        self._known_envelope: tuple[bytes, Schema, bool] | None = None
        self._reader = JsonReader()
        # The schema of ``schema.content``: every message read is its bare payload (schemas enabled).
        self._content_schema: Schema | None = None

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
        self._text = JsonTextWriter(self.decimal_numeric, self.replace_null_with_default)
        self._writers.clear()
        self._readers.clear()
        self._schemaless = self._compile_encoder(None)
        self._last_write = (None, self._schemaless)
        self._last_read = None
        self._known_envelope = None
        self._reader = JsonReader(self.replace_null_with_default)
        content = parsed[SCHEMA_CONTENT_CONFIG]
        self._content_schema = self._schema_content(None if content is None else str(content))

    def _schema_content(self, content: str | None) -> Schema | None:
        """The schema ``schema.content`` gives (None when unset or empty), read as Kafka reads it."""
        if not content:
            return None
        try:
            node = parse_json(content)
        except DataError as e:
            raise DataError(
                f"Failed to parse schema in converter config due to serialization error: {e.__cause__ or e}"
            ) from e
        return schema_from_json(node, self._reader.to_connect)

    # --- Connect -> bytes ------------------------------------------------------------------------

    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        """Serialize a value to JSON; a null schema with a null value is a tombstone (None)."""
        if schema is None and value is None:
            return None
        last_schema, encoder = self._last_write
        if schema is not last_schema:
            encoder = self._schemaless if schema is None else self._encoder_for(schema)
            self._last_write = (schema, encoder)
        return encoder(value)

    def from_connect_header(
        self, topic: str, header_key: str, schema: Schema | None, value: Any
    ) -> bytes | None:
        """Serialize a header value exactly as a record value."""
        return self.from_connect_data(topic, schema, value)

    def compile_writer(self, schema: Schema | None) -> Writer:
        """A function writing values of `schema` (None for schemaless) as JSON text, on the exact path."""
        return self._text.compile_writer(schema)

    def _encoder_for(self, schema: Schema) -> Encoder:
        cached = self._writers.get(schema)
        if cached is not None:
            self._writers.move_to_end(schema)
            return cached
        encoder = self._compile_encoder(schema)
        self._writers[schema] = encoder
        if len(self._writers) > self._cache_size:
            self._writers.popitem(last=False)
        return encoder

    def _compile_encoder(self, schema: Schema | None) -> Encoder:
        """The function writing a whole record of `schema`: envelope or bare, fast path first."""
        writer = self._text.compile_writer(schema)
        if not self.schemas_enable:
            return compile_encoder(schema, self._text, b"", b"", lambda v: _utf8(writer(v)))
        head = _ENVELOPE_START + schema_to_json(schema, self._text.render_default) + _PAYLOAD_KEY

        def exact(v: Any) -> bytes:
            return _utf8(head + writer(v) + "}")

        try:
            prefix = head.encode("utf-8")
        except UnicodeEncodeError:
            return exact  # the schema itself cannot be written; every record raises Kafka's error
        return compile_encoder(schema, self._text, prefix, b"}", exact)

    # --- bytes -> Connect ------------------------------------------------------------------------

    def to_connect_data(
        self, topic: str, value: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        """Deserialize JSON; with schemas enabled the input must be a schema/payload envelope."""
        if value is None:
            return SchemaAndValue.NULL
        data = value if type(value) is bytes else bytes(value)
        content_schema = self._content_schema if self.schemas_enable else None
        if not self.schemas_enable:
            # The bare read inline (a sink's usual case, one call per record fewer): orjson, or the
            # exact path when orjson refuses the text or may read an integer as a float.
            try:
                node = loads(data)
            except JSONDecodeError:
                pass
            else:
                if type(node) is str:
                    return SchemaAndValue(None, node)
                if not may_hold_long_integer(data):
                    return SchemaAndValue(None, self._reader.to_connect(None, node))
        else:
            fast = (
                self._read_envelope_fast(data)
                if content_schema is None
                else self._read_payload_fast(data, content_schema)
            )
            if fast is not None:
                return fast
        try:
            text = data.decode(json.detect_encoding(data))
        except (UnicodeDecodeError, LookupError) as e:
            raise DataError(
                f"Converting byte[] to Kafka Connect data failed due to serialization error: {e}"
            ) from e
        if self.schemas_enable and content_schema is None:
            known = self._read_known_envelope(text)
            if known is not None:
                return known
        node = parse_json(text)
        if not self.schemas_enable:
            return SchemaAndValue(None, self._reader.to_connect(None, node))
        if content_schema is not None:
            return SchemaAndValue(content_schema, self._reader.to_connect(content_schema, node))
        if not isinstance(node, dict) or len(node) != 2 or "schema" not in node or "payload" not in node:
            raise DataError(_NOT_ENVELOPE)
        schema = self._schema_for(node["schema"])
        if schema is not None:
            schema_text = compact_schema_text(text)
            if schema_text is not None:
                self._remember_envelope(schema_text, schema)
        return SchemaAndValue(schema, self._reader.to_connect(schema, node["payload"]))

    def to_connect_header(self, topic: str, header_key: str, value: bytes | None) -> SchemaAndValue:
        """Deserialize a header value exactly as a record value."""
        return self.to_connect_data(topic, value)

    def _remember_envelope(self, schema_text: str, schema: Schema) -> None:
        """Keep the schema of an envelope read exactly, for the next envelopes with the same text."""
        self._last_read = (schema_text, schema)
        prefix = (_ENVELOPE_START + schema_text + _PAYLOAD_KEY).encode("utf-8")
        strings_as_is = schema.type is Type.STRING and schema.name not in LOGICAL_TYPES
        self._known_envelope = (prefix, schema, strings_as_is)

    def _read_envelope_fast(self, data: bytes) -> SchemaAndValue | None:
        """Read an envelope starting with the last schema's bytes with orjson, or None to read it exactly."""
        known = self._known_envelope
        if known is None:
            return None
        prefix, schema, strings_as_is = known
        if not data.startswith(prefix) or data[-1] != _CLOSING_BRACE:
            return None
        try:
            payload = loads(data[len(prefix) : -1])
        except JSONDecodeError:
            return None
        if strings_as_is and type(payload) is str:
            return SchemaAndValue(schema, payload)
        try:
            return SchemaAndValue(schema, self._reader.to_connect(schema, payload))
        except InexactNumberError:
            return None

    def _read_payload_fast(self, data: bytes, schema: Schema) -> SchemaAndValue | None:
        """Read a bare payload of the ``schema.content`` schema with orjson, or None to read it exactly."""
        try:
            payload = loads(data)
        except JSONDecodeError:
            return None
        try:
            return SchemaAndValue(schema, self._reader.to_connect(schema, payload))
        except InexactNumberError:
            return None

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
