"""The Protobuf `SchemaFormat`: Confluent's ProtobufData mapping over protobuf's runtime.

Writing, a Connect schema becomes the proto3 file Confluent's converter builds (`from_connect`), is
registered as Confluent's canonical text (`text`), and each value is a message of it, written after
the message indexes of its type in the file. Reading, the writer's schema (``.proto`` text or a base64
``FileDescriptorProto``) is compiled once per id (`parse`), the message indexes of each payload pick
the message type, and the message becomes a Connect value (`to_connect`, `values`).
"""

from __future__ import annotations

from typing import Any, ClassVar

from google.protobuf.message import DecodeError, Message
from kconnect.data.schema import Schema, SchemaAndValue
from kconnect.errors import DataError

from kconnect_schema_registry.client import RegistryClient, SchemaText
from kconnect_schema_registry.protobuf.from_connect import from_connect_schema
from kconnect_schema_registry.protobuf.options import ProtobufOptions
from kconnect_schema_registry.protobuf.parse import parse_schema
from kconnect_schema_registry.protobuf.read import decoder
from kconnect_schema_registry.protobuf.schema import ProtobufSchema, message_name_at
from kconnect_schema_registry.protobuf.text import render_file
from kconnect_schema_registry.protobuf.to_connect import ToConnect
from kconnect_schema_registry.protobuf.write import encoder
from kconnect_schema_registry.wire import decode_message_indexes

SCHEMA_TYPE = "PROTOBUF"


class ProtobufFormat:
    """Protobuf behind Confluent's wire format, mapped to Connect as Confluent's ProtobufData maps it."""

    schema_type: ClassVar[str] = SCHEMA_TYPE

    def __init__(self, options: ProtobufOptions) -> None:
        self.options = options

    def from_connect_schema(self, schema: Schema | None) -> ProtobufSchema:
        """The Protobuf schema Confluent's converter registers for `schema`."""
        if schema is None:
            raise DataError("ProtobufConverter cannot write a value without a schema")
        return from_connect_schema(schema, self.options)

    def schema_text(self, schema: ProtobufSchema) -> SchemaText:
        """Confluent's canonical ``.proto`` text of the file; well-known imports need no reference."""
        text = schema.codecs.get("text")
        if text is None:
            text = schema.codecs["text"] = SchemaText(render_file(schema.file), SCHEMA_TYPE)
        return text

    def record_name(self, schema: ProtobufSchema) -> str | None:
        """The message's full name (RecordNameStrategy)."""
        return schema.name

    def parse(self, text: SchemaText, client: RegistryClient) -> ProtobufSchema:
        """The first message of a registered file; other messages are found by each payload's indexes."""
        parsed = parse_schema(text, lambda ref: client.version_schema(ref.subject or "", ref.version or 0))
        if not parsed.file.message_type:
            raise DataError("The Protobuf schema defines no message")
        return ProtobufSchema(parsed.file, message_name_at(parsed.file, [0]), parsed.dependencies)

    def to_connect_schema(self, schema: ProtobufSchema, version: int | None = None) -> Schema | None:
        """The Connect schema of values of the schema's message (`version`: its subject version)."""
        return ToConnect(self.options).schema(schema.descriptor, version)

    def encode(self, schema: ProtobufSchema, connect_schema: Schema | None, value: Any) -> bytes:
        """The message indexes, then `value` as a message of the schema's type."""
        encode = schema.codecs.get(connect_schema)
        if encode is None:
            if connect_schema is None:
                raise DataError("ProtobufConverter cannot write a value without a schema")
            encode = schema.codecs[connect_schema] = encoder(schema.descriptor, connect_schema, self.options)
        message: Message = encode(value)
        return schema.message_indexes + message.SerializeToString()

    def decode(self, schema: ProtobufSchema, connect_schema: Schema | None, payload: memoryview) -> Any:
        """The Connect value of a payload; a `SchemaAndValue` when its indexes name another message."""
        indexes, start = decode_message_indexes(payload)
        target, target_schema = schema, connect_schema
        if indexes != [0]:
            target, target_schema = self._other_message(schema, tuple(indexes))
        decode = target.codecs.get(("read", target_schema))
        if decode is None:
            assert target_schema is not None
            decode = target.codecs[("read", target_schema)] = decoder(
                target.descriptor, target_schema, self.options
            )
        try:
            message = target.message_class.FromString(bytes(payload[start:]))
        except DecodeError as e:
            raise DataError(f"Invalid Protobuf message of type {target.name}: {e}") from e
        value = decode(message)
        return value if target is schema else SchemaAndValue(target_schema, value)

    def _other_message(
        self, schema: ProtobufSchema, indexes: tuple[int, ...]
    ) -> tuple[ProtobufSchema, Schema | None]:
        found = schema.codecs.get(("message", indexes))
        if found is None:
            other = ProtobufSchema(
                schema.file, message_name_at(schema.file, list(indexes)), schema.dependencies
            )
            found = schema.codecs[("message", indexes)] = (other, self.to_connect_schema(other))
        return found
