"""The JSON Schema `SchemaFormat`: Confluent's ``JsonSchemaData`` mapping, written and parsed with orjson.

The schema text is the one Confluent registers (`from_connect`), a registered schema reads into
Confluent's Connect schema (`to_connect`), and values go through encoders and decoders compiled once
per Connect schema (`encode`, `decode`); ``json.fail.invalid.schema`` checks payloads with jsonschema.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from decimal import Decimal as BigDecimal
from typing import Any, ClassVar

import orjson
from kconnect.data.schema import Schema, Type
from kconnect.errors import DataError
from kconnect_schema_registry.client import RegistryClient, SchemaText
from kconnect_schema_registry.converter import LruCache
from kconnect_schema_registry.json_schema.decode import Decoder, compile_decoder
from kconnect_schema_registry.json_schema.encode import MISSING, Encoder, compile_encoder
from kconnect_schema_registry.json_schema.from_connect import schema_text
from kconnect_schema_registry.json_schema.options import JsonSchemaDataOptions
from kconnect_schema_registry.json_schema.pretty import pretty_json
from kconnect_schema_registry.json_schema.to_connect import to_connect_schema
from kconnect_schema_registry.json_schema.validation import PayloadValidator


@dataclass(frozen=True)
class JsonSchemaDoc:
    """A JSON Schema: the registered text and its parsed form."""

    text: str
    node: Any = field(compare=False)


def _needs_exact_numbers(schema: Schema | None) -> bool:
    """Whether values of `schema` may hold decimals that a float would round (BYTES anywhere)."""
    if schema is None:
        return False
    if schema.type is Type.BYTES:
        return True
    inner = [f.schema for f in schema.fields] + [s for s in (schema.key_schema, schema.value_schema) if s]
    return any(_needs_exact_numbers(s) for s in inner)


class JsonSchemaFormat:
    """JSON Schema behind Confluent's wire format, mapped as Confluent's ``JsonSchemaData`` maps it."""

    schema_type: ClassVar[str] = "JSON"

    def __init__(self, options: JsonSchemaDataOptions, cache_size: int) -> None:
        self.options = options
        self._encoders: LruCache[Schema, Encoder] = LruCache(cache_size)
        self._decoders: LruCache[Schema, tuple[Decoder, bool]] = LruCache(cache_size)
        self._validators: LruCache[str, PayloadValidator] = LruCache(cache_size)

    def _validate(self, schema: JsonSchemaDoc, node: Any) -> None:
        """``json.fail.invalid.schema``: a payload the schema does not accept is a serialization error."""
        validator = self._validators.get(schema.text) or self._validators.put(
            schema.text, PayloadValidator(schema.node, self.options.ignore_modern_dialects)
        )
        validator.check(node)

    def from_connect_schema(self, schema: Schema | None) -> JsonSchemaDoc:
        """The JSON Schema Confluent registers for `schema`; a schemaless value has none."""
        if schema is None:
            raise DataError("JsonSchemaConverter cannot write a value without a schema (schemaless data)")
        text = schema_text(schema, self.options)
        return JsonSchemaDoc(text, orjson.loads(text))

    def schema_text(self, schema: JsonSchemaDoc) -> SchemaText:
        """The text registered for `schema`."""
        return SchemaText(schema.text, self.schema_type)

    def record_name(self, schema: JsonSchemaDoc) -> str | None:
        """The ``title`` (Confluent's JsonSchema.name(); RecordNameStrategy)."""
        title = schema.node.get("title") if isinstance(schema.node, dict) else None
        return str(title) if title is not None else None

    def parse(self, text: SchemaText, client: RegistryClient) -> JsonSchemaDoc:
        """A schema read from the registry (references are not supported)."""
        if text.references:
            raise DataError("JSON Schemas with references to other subjects are not supported by kconnect")
        try:
            return JsonSchemaDoc(text.text, orjson.loads(text.text))
        except orjson.JSONDecodeError as e:
            raise DataError(f"Invalid JSON Schema from the registry: {e}") from e

    def to_connect_schema(self, schema: JsonSchemaDoc, version: int | None = None) -> Schema | None:
        """The Connect schema of `schema`; `version` is its subject version (when no connect.version)."""
        return to_connect_schema(schema.node, version, self.options)

    def encode(self, schema: JsonSchemaDoc, connect_schema: Schema | None, value: Any) -> bytes:
        """The JSON payload of `value`."""
        if connect_schema is None:
            raise DataError("JsonSchemaConverter cannot write a value without a schema (schemaless data)")
        encoder = self._encoders.get(connect_schema) or self._encoders.put(
            connect_schema, compile_encoder(connect_schema, self.options)
        )
        node = encoder(value)
        node = None if node is MISSING else node
        payload = pretty_json(node) if self.options.indent_output else orjson.dumps(node)
        if self.options.validate:
            self._validate(schema, json.loads(payload, parse_float=BigDecimal))
        return payload

    def decode(self, schema: JsonSchemaDoc, connect_schema: Schema | None, payload: memoryview) -> Any:
        """The Connect value of a JSON payload."""
        if connect_schema is None:
            raise DataError("The JSON Schema read from the registry maps to no Connect schema")
        cached = self._decoders.get(connect_schema)
        if cached is None:
            cached = self._decoders.put(
                connect_schema,
                (compile_decoder(connect_schema, self.options), _needs_exact_numbers(connect_schema)),
            )
        decoder, exact = cached
        try:
            node = json.loads(bytes(payload), parse_float=BigDecimal) if exact else orjson.loads(payload)
        except ValueError as e:
            raise DataError(f"Invalid JSON payload: {e}") from e
        if self.options.validate:
            self._validate(schema, node)
        return decoder(node)
