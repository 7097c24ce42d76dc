"""The registry converter every format shares: subjects, ids, caches and the wire format.

A format (Avro, Protobuf, JSON Schema) is a `SchemaFormat`: it maps Connect schemas to its own
schemas and back, and encodes and decodes values. `RegistryConverter` does the rest the way
Confluent's converters do:

* writing, it maps the record's Connect schema to the format's schema, finds the subject with the
  subject name strategy, gets the id (registers it when ``auto.register.schemas``, looks it up
  otherwise, or takes the subject's latest version with ``use.latest.version``) and frames
  ``0 + id + payload``;
* reading, it fetches the writer's schema by the id in the message, maps it to a Connect schema and
  decodes the payload.

Each step is cached (Connect schema -> id per topic, id -> schemas), so a steady stream makes no
registry call and maps no schema per record; the caches hold ``schemas.cache.config`` entries.

A format may also offer ``framed_encoder(schema, connect_schema, header)``, returning a function
from a Connect value to the whole message (header included) or None; the converter asks once per
topic and schema and then calls it per record instead of `encode` (Avro's compiled writer does).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar

from kconnect.config.configdef import ConfigDef
from kconnect.data.schema import Schema, SchemaAndValue
from kconnect.errors import DataError
from kconnect.records import Headers

from kconnect_schema_registry.config import RegistrySettings
from kconnect_schema_registry.subjects import subject_name
from kconnect_schema_registry.wire import frame, unframe

if TYPE_CHECKING:
    from kconnect_schema_registry.client import RegistryClient, SchemaText

S = TypeVar("S")
K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class SchemaFormat(Protocol[S]):
    """One schema format behind Confluent's wire format; `S` is its parsed schema type."""

    #: The registry's name of the format: ``AVRO``, ``PROTOBUF`` or ``JSON``.
    schema_type: ClassVar[str]

    def from_connect_schema(self, schema: Schema | None) -> S:
        """The format's schema for a Connect schema (None: a schemaless value), as Confluent maps it."""
        ...

    def schema_text(self, schema: S) -> SchemaText:
        """The text (and references) registered for `schema`: the string Confluent's converter sends."""
        ...

    def record_name(self, schema: S) -> str | None:
        """The fully-qualified name RecordNameStrategy uses, or None for an unnamed schema."""
        ...

    def parse(self, text: SchemaText, client: RegistryClient) -> S:
        """A schema read from the registry (references resolved through `client`)."""
        ...

    def to_connect_schema(self, schema: S) -> Schema | None:
        """The Connect schema of values written with `schema`, as Confluent maps it."""
        ...

    def encode(self, schema: S, connect_schema: Schema | None, value: Any) -> bytes:
        """The payload (after the 5-byte header) of `value` written with `schema`."""
        ...

    def decode(self, schema: S, connect_schema: Schema | None, payload: memoryview) -> Any:
        """The Connect value of a payload written with `schema`.

        A format whose payload names its own type (Protobuf's message indexes) may return a
        `SchemaAndValue` instead, when the value is not of `connect_schema`.
        """
        ...


class LruCache(Generic[K, V]):
    """A small LRU map (``schemas.cache.config`` entries); not thread-safe, one per converter."""

    def __init__(self, capacity: int) -> None:
        self.capacity = max(1, capacity)
        self._items: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        """The value of `key`, marked most recently used, or None."""
        value = self._items.get(key)
        if value is not None:
            self._items.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> V:
        """Store `value` under `key`, dropping the least recently used entry when full; returns `value`."""
        self._items[key] = value
        self._items.move_to_end(key)
        if len(self._items) > self.capacity:
            self._items.popitem(last=False)
        return value


@dataclass(frozen=True, slots=True)
class _Writer(Generic[S]):
    schema_id: int
    schema: S
    header: bytes
    #: The format's `framed_encoder` for this writer, if it has one.
    framed: Callable[[Any], bytes] | None = None


@dataclass(frozen=True, slots=True)
class _Reader(Generic[S]):
    schema: S
    connect_schema: Schema | None


class RegistryConverter(Generic[S]):
    """Confluent's registry-backed converter for one format; subclasses name the class and the format.

    A subclass sets `java_class_names`, `config_def` (built on `serde_config_def`) and implements
    `new_format`, which reads the format's own keys from the parsed config.
    """

    java_class_names: ClassVar[tuple[str, ...]] = ()
    config_def: ClassVar[ConfigDef | None] = None
    #: The format's cache size key (Confluent's ``schemas.cache.config``).
    cache_size_key: ClassVar[str] = "schemas.cache.config"

    def __init__(self) -> None:
        self.is_key = False
        self._format: SchemaFormat[S] | None = None
        self._client: RegistryClient | None = None
        self._settings: RegistrySettings | None = None
        self._writers: LruCache[tuple[str, Schema | None], _Writer[S]] = LruCache(1000)
        self._readers: LruCache[tuple[str, int], _Reader[S]] = LruCache(1000)
        # The last writer and reader used, with the format: a steady stream skips the LRU caches.
        self._last: tuple[str, Schema | None, _Writer[S], SchemaFormat[S]] | None = None
        self._last_reader: tuple[str, int, _Reader[S], SchemaFormat[S]] | None = None

    def new_format(self, parsed: Mapping[str, Any], is_key: bool) -> SchemaFormat[S]:
        """The format configured from the parsed converter config."""
        raise NotImplementedError

    def configure(self, configs: Mapping[str, Any], is_key: bool) -> None:
        """Read the registry and format keys and connect the registry client (no request is made)."""
        assert self.config_def is not None
        parsed = self.config_def.parse(configs)
        self.is_key = is_key
        self._settings = RegistrySettings.from_parsed(parsed, configs)
        self._format = self.new_format(parsed, is_key)
        self.close()
        # Imported here: confluent-kafka's registry client (httpx, authlib) costs every worker process
        # (which imports every plugin's converters) a second and 30 MB when no converter is configured.
        from kconnect_schema_registry.client import RegistryClient

        self._client = RegistryClient(self._settings)
        capacity = int(parsed.get(self.cache_size_key) or 1000)  # type: ignore[call-overload]
        self._writers = LruCache(capacity)
        self._readers = LruCache(capacity)

    def close(self) -> None:
        """Close the registry client."""
        self._last = None
        self._last_reader = None
        if self._client is not None:
            self._client.close()
            self._client = None

    def _ready(self) -> tuple[SchemaFormat[S], RegistryClient, RegistrySettings]:
        if self._format is None or self._client is None or self._settings is None:
            raise DataError(f"{type(self).__name__} is used before configure()")
        return self._format, self._client, self._settings

    # --- Connect -> bytes ------------------------------------------------------------------------

    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        """``0 + schema id + payload``; a null value is a null message (a tombstone), as Confluent's.

        A format whose Confluent converter writes some nulls as payloads says so in `writes_null`.
        """
        if value is None and not self.writes_null(schema):
            return None
        last = self._last
        if last is not None and last[1] is schema and last[0] == topic:
            writer, fmt = last[2], last[3]
        else:
            writer = self._writers.get((topic, schema)) or self._writers.put(
                (topic, schema), self._new_writer(topic, schema)
            )
            fmt = self._ready()[0]
            self._last = (topic, schema, writer, fmt)
        try:
            framed = writer.framed
            if framed is not None:
                return framed(value)
            payload = fmt.encode(writer.schema, schema, value)
        except DataError:
            raise
        except (TypeError, ValueError, OverflowError, KeyError) as e:
            raise DataError(
                f"Failed to serialize {fmt.schema_type} data for topic {topic}: {type(e).__name__}: {e}"
            ) from e
        return writer.header + payload

    def writes_null(self, schema: Schema | None) -> bool:
        """Whether a null value of `schema` is written as a payload (never by default: a tombstone)."""
        return False

    def _new_writer(self, topic: str, connect_schema: Schema | None) -> _Writer[S]:
        fmt, client, settings = self._ready()
        schema = fmt.from_connect_schema(connect_schema)
        subject = subject_name(
            settings.subject_strategy(self.is_key), topic, self.is_key, fmt.record_name(schema)
        )
        if settings.use_latest_version:
            from kconnect_schema_registry.client import SchemaText

            latest = client.latest(subject)
            text = SchemaText(
                latest.schema.schema_str or "" if latest.schema else "",
                (latest.schema.schema_type if latest.schema else None) or fmt.schema_type,
                tuple((latest.schema.references if latest.schema else None) or ()),
            )
            if settings.latest_compatibility_strict and not client.is_compatible(
                subject, [fmt.schema_text(schema)]
            ):
                raise DataError(
                    f"Schema being serialized for subject '{subject}' is not backward compatible with "
                    f"its latest version {latest.version} on Schema Registry {client.urls} "
                    "(latest.compatibility.strict=true)"
                )
            schema_id = int(latest.schema_id or 0)
            schema = fmt.parse(text, client)
        else:
            schema_id = client.id_for(subject, fmt.schema_text(schema))
        header = frame(schema_id, b"")
        framed_encoder = getattr(fmt, "framed_encoder", None)
        framed = None if framed_encoder is None else framed_encoder(schema, connect_schema, header)
        return _Writer(schema_id, schema, header, framed)

    # --- bytes -> Connect ------------------------------------------------------------------------

    def to_connect_data(
        self, topic: str, value: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        """The Connect schema and value of a message in Confluent's wire format; null stays null."""
        if value is None:
            return SchemaAndValue.NULL
        schema_id, payload = unframe(value)
        last = self._last_reader
        if last is not None and last[1] == schema_id and last[0] == topic:
            reader, fmt = last[2], last[3]
        else:
            key = (topic, schema_id)
            reader = self._readers.get(key) or self._readers.put(key, self._new_reader(topic, schema_id))
            fmt = self._ready()[0]
            self._last_reader = (topic, schema_id, reader, fmt)
        try:
            connect_value = fmt.decode(reader.schema, reader.connect_schema, payload)
        except DataError:
            raise
        except (TypeError, ValueError, EOFError, IndexError, KeyError) as e:
            raise DataError(
                f"Failed to deserialize {fmt.schema_type} data for topic {topic} to Connect data "
                f"(schema id {schema_id}): {type(e).__name__}: {e}"
            ) from e
        if isinstance(connect_value, SchemaAndValue):
            return connect_value
        return SchemaAndValue(reader.connect_schema, connect_value)

    def _new_reader(self, topic: str, schema_id: int) -> _Reader[S]:
        fmt, client, _ = self._ready()
        text = client.schema_by_id(schema_id)
        if text.schema_type.upper() != fmt.schema_type:
            raise DataError(
                f"Schema id {schema_id} on Schema Registry {client.urls} is a {text.schema_type} schema, "
                f"not {fmt.schema_type}"
            )
        schema = fmt.parse(text, client)
        return _Reader(schema, self.reader_connect_schema(topic, text, schema))

    def reader_connect_schema(self, topic: str, text: SchemaText, schema: S) -> Schema | None:
        """The Connect schema of values written with `schema` to `topic` (read once per topic and id).

        The default maps the schema alone; a converter whose Connect schema carries the subject
        version (Confluent's JsonSchemaConverter) overrides this to ask the registry for it.
        """
        return self._ready()[0].to_connect_schema(schema)

    def subject_for(self, topic: str, schema: S) -> str:
        """The subject the configured strategy gives `schema` written to `topic`."""
        fmt, _, settings = self._ready()
        return subject_name(
            settings.subject_strategy(self.is_key), topic, self.is_key, fmt.record_name(schema)
        )
