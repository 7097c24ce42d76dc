"""Avro's binary encoding of primitives, as fastavro's writer and reader do it, for the compiled codecs.

`binary_writer` and `binary_reader` compile per schema pair the functions that write Connect values
as Avro binary and read them back; these are their building blocks: zig-zag varints (``int`` and
``long``), little-endian ``float``/``double``, length-prefixed ``bytes``/``string``. Each writer
appends to a bytearray; each reader takes ``(data, pos)`` and returns ``(value, next pos)``.

`union_branch_check` is fastavro's test of a value against a union branch.

Where fastavro is lenient (a float written as a long is truncated, a float32 beyond range is
infinity) these are too, so the compiled path writes the same bytes fastavro would.
"""

from __future__ import annotations

import math
import numbers
import struct
from collections.abc import Callable
from typing import Any

from kconnect_schema_registry.avro.schema import AvroSchema

#: A compiled writer: appends the Avro binary of a value to the buffer.
Writer = Callable[[bytearray, Any], None]
#: A compiled reader: the value at a position of the data, and the position after it.
Reader = Callable[[bytes, int], tuple[Any, int]]

_MAX_ZIGZAG = (1 << 64) - 1
_INT_RANGE = (-(2**31), 2**31 - 1)
_LONG_RANGE = (-(2**63), 2**63 - 1)
_FLOAT = struct.Struct("<f")
_DOUBLE = struct.Struct("<d")
_encode_utf8 = str.encode


class Unsupported(Exception):
    """A schema pair the compiled codec does not handle: the caller keeps fastavro's path for it."""


def _c_long(value: Any) -> int:
    # fastavro (Cython) converts with the type's __int__: floats truncate, strings and None are refused.
    if isinstance(value, str | bytes) or not hasattr(type(value), "__int__"):
        raise TypeError("an integer is required")
    return int(value)


def write_long(out: bytearray, n: Any) -> None:
    """Avro ``int``/``long``: the zig-zag varint of `n` (a C long: OverflowError past 64 bits)."""
    try:
        z = (n << 1) ^ (n >> 63)
    except TypeError:
        n = _c_long(n)
        z = (n << 1) ^ (n >> 63)
    if z < 0x80:
        out.append(z)
        return
    if z > _MAX_ZIGZAG:
        raise OverflowError("Python int too large to convert to C long")
    while z > 0x7F:
        out.append((z & 0x7F) | 0x80)
        z >>= 7
    out.append(z)


def write_float(out: bytearray, value: Any) -> None:
    """Avro ``float``: 4 bytes little-endian; beyond float32's range it is infinity, as C casts it."""
    try:
        out += _FLOAT.pack(value)
    except OverflowError:
        out += _FLOAT.pack(math.copysign(math.inf, value))
    except struct.error as e:
        raise TypeError(f"must be real number, not {type(value).__name__}") from e


def write_double(out: bytearray, value: Any) -> None:
    """Avro ``double``: 8 bytes little-endian."""
    try:
        out += _DOUBLE.pack(value)
    except struct.error as e:
        raise TypeError(f"must be real number, not {type(value).__name__}") from e


def write_boolean(out: bytearray, value: Any) -> None:
    """Avro ``boolean``: one byte, 1 for a true value."""
    out.append(1 if value else 0)


def write_string(out: bytearray, value: Any) -> None:
    """Avro ``string``: the length of the UTF-8 bytes, then the bytes."""
    data = _encode_utf8(value)
    size = len(data)
    if size < 64:
        out.append(size << 1)
    else:
        write_long(out, size)
    out += data


def write_bytes(out: bytearray, data: bytes) -> None:
    """Avro ``bytes``: the length, then the bytes."""
    size = len(data)
    if size < 64:
        out.append(size << 1)
    else:
        write_long(out, size)
    out += data


def read_long(data: bytes, pos: int) -> tuple[int, int]:
    """An Avro ``int``/``long`` at `pos`."""
    b = data[pos]
    if b < 0x80:
        return (b >> 1) ^ -(b & 1), pos + 1
    n = b & 0x7F
    shift = 7
    pos += 1
    while True:
        b = data[pos]
        pos += 1
        n |= (b & 0x7F) << shift
        if b < 0x80:
            return (n >> 1) ^ -(n & 1), pos
        shift += 7


def read_float(data: bytes, pos: int) -> tuple[float, int]:
    """An Avro ``float`` at `pos`."""
    return _FLOAT.unpack_from(data, pos)[0], pos + 4


def read_double(data: bytes, pos: int) -> tuple[float, int]:
    """An Avro ``double`` at `pos`."""
    return _DOUBLE.unpack_from(data, pos)[0], pos + 8


def read_boolean(data: bytes, pos: int) -> tuple[bool, int]:
    """An Avro ``boolean`` at `pos`."""
    return data[pos] != 0, pos + 1


def _length(data: bytes, pos: int) -> tuple[int, int]:
    size, pos = read_long(data, pos)
    if size < 0 or pos + size > len(data):
        raise EOFError(f"Avro length {size} at offset {pos} runs past the {len(data)}-byte payload")
    return size, pos


def read_bytes(data: bytes, pos: int) -> tuple[bytes, int]:
    """An Avro ``bytes`` at `pos`."""
    size, pos = _length(data, pos)
    end = pos + size
    return data[pos:end], end


def read_string(data: bytes, pos: int) -> tuple[str, int]:
    """An Avro ``string`` at `pos` (UTF-8)."""
    size, pos = _length(data, pos)
    end = pos + size
    return data[pos:end].decode(), end


def read_fixed(size: int) -> Reader:
    """A reader of an Avro ``fixed`` of `size` bytes."""

    def read(data: bytes, pos: int) -> tuple[bytes, int]:
        end = pos + size
        if end > len(data):
            raise EOFError(f"Avro fixed({size}) at offset {pos} runs past the {len(data)}-byte payload")
        return data[pos:end], end

    return read


def read_blocks(data: bytes, pos: int) -> tuple[int, int]:
    """The item count of the next array or map block (0 at the end), its byte size skipped."""
    count, pos = read_long(data, pos)
    if count < 0:
        count = -count
        _, pos = read_long(data, pos)
    return count, pos


def union_branch_check(branch: AvroSchema) -> Callable[[Any], bool] | None:
    """fastavro's test of whether a datum fits a union branch (it picks the branch by it), for the
    primitive branches; None for arrays, maps and records, which it validates deeply."""
    kind = branch.type
    if kind in ("int", "long"):
        low, high = _INT_RANGE if kind == "int" else _LONG_RANGE
        return lambda v: isinstance(v, numbers.Integral) and not isinstance(v, bool) and low <= int(v) <= high
    if kind in ("float", "double"):
        return lambda v: isinstance(v, numbers.Real) and not isinstance(v, bool)
    if kind == "boolean":
        return lambda v: isinstance(v, bool)
    if kind == "string":
        return lambda v: isinstance(v, str)
    if kind == "bytes":
        return lambda v: isinstance(v, bytes | bytearray)
    if kind == "fixed":
        size = branch.size
        return lambda v: isinstance(v, bytes) and len(v) == size
    if kind == "enum":
        symbols = frozenset(branch.symbols)
        return lambda v: isinstance(v, str) and v in symbols
    return None
