"""Schema helpers shared by the transformations: copying a schema's basics, and a small cache.

Transformations that rebuild a schema keep the result per input schema, as Kafka's keep theirs
in a 16-entry LRU cache, so a stream of records of one schema builds it once.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

from kconnect.data.schema import Field, Schema, SchemaBuilder, Type
from kconnect.errors import DataError

CACHE_SIZE = 16


def copy_schema_basics(source: Schema, builder: SchemaBuilder | None = None) -> SchemaBuilder:
    """A builder (`builder`, else a new one of the source's type) with the source's name, version, parameters.

    Like Kafka's ``SchemaUtil.copySchemaBasics``: optionality, default, doc and fields are left to
    the caller.
    """
    if builder is None:
        if source.type is Type.ARRAY:
            assert source.value_schema is not None
            builder = SchemaBuilder.array(source.value_schema)
        else:
            builder = SchemaBuilder(source.type)
    if source.name is not None:
        builder.name(source.name)
    if source.version is not None:
        builder.version(source.version)
    if source.parameters is not None:
        builder.parameters(source.parameters)
    return builder


def fields_of(schema: Schema) -> tuple[Field, ...]:
    """The fields of a STRUCT schema; DataError for any other type, as Kafka's ``Schema.fields()``."""
    if schema.type is not Type.STRUCT:
        raise DataError("Cannot list fields on non-struct type")
    return schema.fields


class SchemaCache:
    """The schemas a transformation derived, by input schema, least recently used dropped first."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self._size = size
        self._entries: OrderedDict[Schema, Schema] = OrderedDict()

    def get(self, schema: Schema, build: Callable[[Schema], Schema]) -> Schema:
        """The cached schema derived from `schema`, building and keeping it on a miss."""
        found = self._entries.get(schema)
        if found is not None:
            self._entries.move_to_end(schema)
            return found
        built = build(schema)
        self._entries[schema] = built
        if len(self._entries) > self._size:
            self._entries.popitem(last=False)
        return built
