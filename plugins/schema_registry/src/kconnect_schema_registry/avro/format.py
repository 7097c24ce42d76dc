"""The Avro `SchemaFormat`: Confluent's AvroData mapping, Avro's schema text and fastavro's codec.

`AvroFormat` is what `RegistryConverter` calls: it maps a Connect schema to the Avro schema
Confluent registers (and its text), parses the writer's schema from the registry, and writes and
reads values with fastavro's schemaless writer and reader, the Connect <-> fastavro conversion
compiled once per schema pair and kept on the `ParsedAvro`. The hot path skips fastavro's datum:
`binary_writer` and `binary_reader` compile per pair a codec between Connect values and Avro binary
that gives the same bytes and values; the rare pairs they leave alone stay on fastavro's path.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any, ClassVar

import fastavro
from kconnect.data.schema import Schema
from kconnect.errors import DataError

from kconnect_schema_registry.avro.anything import (
    ANYTHING_TEXT,
    anything_schema,
    from_anything,
    is_anything,
    to_anything,
)
from kconnect_schema_registry.avro.binary_reader import Tuples, payload_reader
from kconnect_schema_registry.avro.binary_writer import payload_writer
from kconnect_schema_registry.avro.config import AvroDataSettings
from kconnect_schema_registry.avro.mapping import AvroMapping
from kconnect_schema_registry.avro.reader import needs_branch_names, read
from kconnect_schema_registry.avro.schema import AvroSchema, parse, walk
from kconnect_schema_registry.avro.values import compile_decoder, compile_encoder
from kconnect_schema_registry.client import RegistryClient, SchemaText

Codec = Callable[[Any], Any]


class ParsedAvro:
    """An Avro schema with its registered text, fastavro's parsed form and the codecs compiled for it."""

    __slots__ = (
        "avro",
        "branch_reads",
        "decoders",
        "encoders",
        "named_reads",
        "parsed",
        "readers",
        "text",
        "writers",
    )

    def __init__(self, avro: AvroSchema, text: str) -> None:
        self.avro = avro
        self.text = text
        try:
            self.parsed = fastavro.parse_schema(avro.fastavro_form())
        except (fastavro.schema.SchemaParseException, ValueError, TypeError, KeyError) as e:
            raise DataError(f"Invalid Avro schema {text[:200]}: {e}") from e
        # Reading with fastavro's (name, value) tuples costs time: only for unions where a named
        # branch must be told apart from another branch.
        self.named_reads = any(
            node.type == "union"
            and len([b for b in node.branches if b.type != "null"]) > 1
            and any(b.is_named for b in node.branches)
            for node in walk(avro)
        )
        # fastavro cannot say whether it read a union's int or long (float or double) branch.
        self.branch_reads = needs_branch_names(avro)
        self.encoders: dict[Schema | None, Codec] = {}
        self.decoders: dict[Schema | None, Codec] = {}
        # The compiled binary codecs (binary_writer, binary_reader); None: fastavro's path.
        self.writers: dict[Schema | None, Callable[[Any], bytes] | None] = {}
        self.readers: dict[Schema | None, Callable[[memoryview], Any] | None] = {}


class AvroFormat:
    """The Avro `SchemaFormat`: Confluent's AvroData mapping and fastavro's schemaless codec."""

    schema_type: ClassVar[str] = "AVRO"

    def __init__(self, settings: AvroDataSettings) -> None:
        self.mapping = AvroMapping(settings)

    def from_connect_schema(self, schema: Schema | None) -> ParsedAvro:
        """The Avro schema Confluent's AvroConverter registers for `schema` (``Anything`` for None)."""
        if schema is None:
            return ParsedAvro(anything_schema(), ANYTHING_TEXT)
        avro = self.mapping.from_connect_schema(schema)
        return ParsedAvro(avro, avro.text())

    def schema_text(self, schema: ParsedAvro) -> SchemaText:
        """Avro's ``Schema.toString()`` of the schema: the text Confluent registers."""
        return SchemaText(schema.text, "AVRO")

    def record_name(self, schema: ParsedAvro) -> str | None:
        """The full name of a record schema, else None (Confluent's ``AvroSchema.name()``)."""
        return schema.avro.full_name if schema.avro.type == "record" else None

    def parse(self, text: SchemaText, client: RegistryClient) -> ParsedAvro:
        """A schema from the registry, its references fetched and defined first."""
        referenced = [
            client.version_schema(str(r.subject), -1 if r.version is None else int(r.version)).text
            for r in text.references
        ]
        return ParsedAvro(parse(text.text, referenced), text.text)

    def to_connect_schema(self, schema: ParsedAvro) -> Schema | None:
        """The Connect schema of values written with `schema` (no registry version); None for
        Confluent's ``Anything`` (schemaless values)."""
        return self.to_connect_schema_versioned(schema, None)

    def to_connect_schema_versioned(self, schema: ParsedAvro, version: int | None) -> Schema | None:
        """The Connect schema, the top level versioned `version` unless it has ``connect.version``."""
        if is_anything(schema.avro):
            return None
        return self.mapping.to_connect_schema(schema.avro, version)

    def encode(self, schema: ParsedAvro, connect_schema: Schema | None, value: Any) -> bytes:
        """The Avro binary of `value`, written by the compiled writer where there is one."""
        try:
            write = schema.writers[connect_schema]
        except KeyError:
            write = schema.writers[connect_schema] = (
                None
                if connect_schema is None or schema.avro.type == "bytes"
                else payload_writer(self.mapping, connect_schema, schema.avro)
            )
        if write is not None:
            return write(value)
        return self.encode_with_fastavro(schema, connect_schema, value)

    def framed_encoder(
        self, schema: ParsedAvro, connect_schema: Schema | None, header: bytes
    ) -> Callable[[Any], bytes] | None:
        """The compiled writer from a value to the whole message (`header` + payload), or None where
        `encode` is used (`RegistryConverter` asks once per topic and schema)."""
        if connect_schema is None or schema.avro.type == "bytes":
            return None
        return payload_writer(self.mapping, connect_schema, schema.avro, header)

    def encode_with_fastavro(self, schema: ParsedAvro, connect_schema: Schema | None, value: Any) -> bytes:
        """The Avro binary of `value` by fastavro's schemaless writer (the reference, and the fallback)."""
        encoder = schema.encoders.get(connect_schema)
        if encoder is None:
            encoder = schema.encoders[connect_schema] = (
                to_anything
                if connect_schema is None
                else compile_encoder(self.mapping, connect_schema, schema.avro)
            )
        datum: Any = encoder(value)
        if schema.avro.type == "bytes":
            # Confluent's serializer writes a top-level bytes value as is, without Avro's length.
            return bytes(datum)
        out = io.BytesIO()
        fastavro.schemaless_writer(out, schema.parsed, datum)
        return out.getvalue()

    def decode(self, schema: ParsedAvro, connect_schema: Schema | None, payload: memoryview) -> Any:
        """The Connect value of an Avro payload written with `schema`, read by the compiled reader
        where there is one."""
        try:
            decode = schema.readers[connect_schema]
        except KeyError:
            decode = schema.readers[connect_schema] = (
                None
                if connect_schema is None or schema.avro.type == "bytes"
                else payload_reader(
                    self.mapping, connect_schema, schema.avro, Tuples(schema.named_reads, schema.branch_reads)
                )
            )
        if decode is not None:
            return decode(payload)
        return self.decode_with_fastavro(schema, connect_schema, payload)

    def decode_with_fastavro(
        self, schema: ParsedAvro, connect_schema: Schema | None, payload: memoryview
    ) -> Any:
        """The Connect value of an Avro payload by fastavro's reader (the reference, and the fallback)."""
        decoder = schema.decoders.get(connect_schema)
        if decoder is None:
            decoder = schema.decoders[connect_schema] = (
                from_anything
                if connect_schema is None
                else compile_decoder(self.mapping, connect_schema, schema.avro)
            )
        if schema.avro.type == "bytes":
            return decoder(bytes(payload))  # a top-level bytes value is the payload (Confluent's)
        if schema.branch_reads:
            return decoder(read(schema.avro, bytes(payload)))
        stream = io.BytesIO(payload)
        datum = fastavro.schemaless_reader(stream, schema.parsed, None, return_named_type=schema.named_reads)
        if stream.tell() != len(payload):
            raise DataError(f"{len(payload) - stream.tell()} bytes left after the Avro value")
        return decoder(datum)
