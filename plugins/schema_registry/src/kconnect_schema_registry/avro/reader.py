"""A plain Avro binary reader that says which union branch it read, for the schemas fastavro cannot.

fastavro returns an ``int`` for both an ``int`` and a ``long`` branch of a union (and a float for
``float`` and ``double``), so a Connect ``io.confluent.connect.avro.Union`` struct read through it
cannot know which field to set. For writer schemas with such a union (`needs_branch_names`) the
converter reads with `read` instead: it returns fastavro's data, except that every union value of
more than one non-null branch is a ``(branch name, value)`` tuple (a named type's full name, else
the type's name), as Java's reader knows the branch by the value's class. Slower than fastavro,
and only used for those schemas.
"""

from __future__ import annotations

import struct
from typing import Any

from kconnect.errors import DataError

from kconnect_schema_registry.avro.schema import AvroSchema, walk

_FLOAT = struct.Struct("<f")
_DOUBLE = struct.Struct("<d")
_TWINS = ({"int", "long"}, {"float", "double"})


def needs_branch_names(schema: AvroSchema) -> bool:
    """Whether `schema` has a union with both ``int`` and ``long`` (or ``float`` and ``double``)."""
    for node in walk(schema):
        if node.type == "union":
            kinds = {b.type for b in node.branches}
            if any(twins <= kinds for twins in _TWINS):
                return True
    return False


class _Cursor:
    __slots__ = ("data", "pos")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def take(self, size: int) -> bytes:
        end = self.pos + size
        if size < 0 or end > len(self.data):
            raise DataError("Avro data ends before the value does")
        chunk = self.data[self.pos : end]
        self.pos = end
        return chunk

    def long(self) -> int:
        shift = result = 0
        while True:
            if self.pos >= len(self.data):
                raise DataError("Avro data ends before the value does")
            byte = self.data[self.pos]
            self.pos += 1
            result |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return (result >> 1) ^ -(result & 1)
            shift += 7

    def blocks(self) -> Any:
        """The item counts of an array or map's blocks."""
        while True:
            count = self.long()
            if count == 0:
                return
            if count < 0:
                self.long()  # the block's size in bytes
                count = -count
            yield count


def read(schema: AvroSchema, data: bytes) -> Any:
    """The value of `data` written with `schema`; unions of several branches as (name, value)."""
    cursor = _Cursor(data)
    value = _read(schema, cursor)
    if cursor.pos != len(data):
        raise DataError(f"{len(data) - cursor.pos} bytes left after the Avro value")
    return value


def _read(schema: AvroSchema, cursor: _Cursor) -> Any:
    kind = schema.type
    if kind == "null":
        return None
    if kind == "boolean":
        return cursor.take(1) != b"\x00"
    if kind in ("int", "long"):
        return cursor.long()
    if kind == "float":
        return _FLOAT.unpack(cursor.take(4))[0]
    if kind == "double":
        return _DOUBLE.unpack(cursor.take(8))[0]
    if kind == "bytes":
        return cursor.take(cursor.long())
    if kind == "string":
        return cursor.take(cursor.long()).decode("utf-8")
    if kind == "fixed":
        return cursor.take(schema.size)
    if kind == "enum":
        return schema.symbols[cursor.long()]
    if kind == "array":
        assert schema.element is not None
        return [_read(schema.element, cursor) for count in cursor.blocks() for _ in range(count)]
    if kind == "map":
        assert schema.element is not None
        out: dict[str, Any] = {}
        for count in cursor.blocks():
            for _ in range(count):
                key = cursor.take(cursor.long()).decode("utf-8")
                out[key] = _read(schema.element, cursor)
        return out
    if kind == "union":
        index = cursor.long()
        if not 0 <= index < len(schema.branches):
            raise DataError(f"Union index {index} out of range")
        branch = schema.branches[index]
        value = _read(branch, cursor)
        if len([b for b in schema.branches if b.type != "null"]) > 1 and branch.type != "null":
            return (branch.full_name if branch.is_named else branch.type, value)
        return value
    return {f.name: _read(f.schema, cursor) for f in schema.fields}
