"""A record's fields as one straight-line function, its primitive fields written and read inline.

A record writer or reader that loops over per-field closures pays a call per field; for the common
flat record (ints, strings, doubles, booleans) that is most of its time. `record_writer` and
`record_reader` generate, once per record schema, one function whose body handles each field in
turn: a primitive field's fast path (a varint below 64 bits, a short string, a double) inline, its
uncommon cases and every other field through the same functions `binary` and the compiled codecs
use, so the bytes and values are theirs. The source is built from field positions only (no schema
text goes into it).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

from kconnect.codegen import build_function
from kconnect.data.schema import Schema
from kconnect.data.struct import Struct
from kconnect.errors import DataError

from kconnect_schema_registry.avro.binary import (
    Reader,
    Writer,
    read_boolean,
    read_double,
    read_float,
    read_long,
    read_string,
    write_boolean,
    write_double,
    write_float,
    write_long,
    write_string,
)

_WRITE_INLINE: dict[Any, str] = {
    write_long: """
    z = (item << 1) ^ (item >> 63) if type(item) is int else -1
    if 0 <= z < 0x80:
        append(z)
    elif 0x80 <= z < 0x4000:
        append((z & 0x7F) | 0x80)
        append(z >> 7)
    elif 0x4000 <= z < 0x200000:
        append((z & 0x7F) | 0x80)
        append(((z >> 7) & 0x7F) | 0x80)
        append(z >> 14)
    elif 0x200000 <= z <= 0xFFFFFFFFFFFFFFFF:
        while z > 0x7F:
            append((z & 0x7F) | 0x80)
            z >>= 7
        append(z)
    else:
        write_long(out, item)""",
    write_string: """
    data = encode_utf8(item)
    size = len(data)
    if size < 64:
        append(size << 1)
    else:
        write_long(out, size)
    out += data""",
    write_double: """
    try:
        out += pack_double(item)
    except struct_error:
        write_double(out, item)""",
    write_float: """
    try:
        out += pack_float(item)
    except (OverflowError, struct_error):
        write_float(out, item)""",
    write_boolean: """
    append(1 if item else 0)""",
}

_READ_INLINE: dict[Any, str] = {
    read_long: """
    b = data[pos]
    pos += 1
    if b < 0x80:
        v{i} = (b >> 1) ^ -(b & 1)
    else:
        n = b & 0x7F
        shift = 7
        while True:
            b = data[pos]
            pos += 1
            n |= (b & 0x7F) << shift
            if b < 0x80:
                break
            shift += 7
        v{i} = (n >> 1) ^ -(n & 1)""",
    read_string: """
    b = data[pos]
    if b < 0x80 and not b & 1:
        end = pos + 1 + (b >> 1)
        v{i} = data[pos + 1 : end].decode()
        pos = end
    else:
        v{i}, pos = read_string(data, pos)""",
    read_double: """
    v{i} = unpack_double(data, pos)[0]
    pos += 8""",
    read_float: """
    v{i} = unpack_float(data, pos)[0]
    pos += 4""",
    read_boolean: """
    v{i} = data[pos] != 0
    pos += 1""",
}

_FLOAT = struct.Struct("<f")
_DOUBLE = struct.Struct("<d")
_NAMESPACE: dict[str, Any] = {
    "Struct": Struct,
    "DataError": DataError,
    "struct_error": struct.error,
    "encode_utf8": str.encode,
    "pack_double": _DOUBLE.pack,
    "pack_float": _FLOAT.pack,
    "unpack_double": _DOUBLE.unpack_from,
    "unpack_float": _FLOAT.unpack_from,
    "write_long": write_long,
    "write_double": write_double,
    "write_float": write_float,
    "read_string": read_string,
}


def record_writer(schema: Schema, plan: list[tuple[int, Any, bool, str, Writer]]) -> Writer:
    """The writer of a Struct of `schema`; `plan` per Avro field in order: Connect slot (-1: none,
    written as null), default, optional, field name, the field's writer (None handled by it)."""
    return _record(schema, plan, payload=False, header=b"")  # type: ignore[no-any-return]


def record_payload(
    schema: Schema, plan: list[tuple[int, Any, bool, str, Writer]], header: bytes = b""
) -> Callable[[Any], bytes]:
    """`record_writer` as a whole payload: a required Struct of `schema` to `header` + its Avro
    bytes, one call less per record for the top-level record a converter writes."""
    return _record(schema, plan, payload=True, header=header)  # type: ignore[no-any-return]


def _record(
    schema: Schema, plan: list[tuple[int, Any, bool, str, Writer]], payload: bool, header: bytes
) -> Any:
    env: dict[str, Any] = {"schema": schema, "header": header}
    lines = ["def record(value):"] if payload else ["def record(out, value):"]
    if payload:
        lines += [
            "    if value is None:",
            "        raise DataError('Found null value for non-optional schema')",
        ]
    lines += [
        "    if not isinstance(value, Struct):",
        "        raise DataError(f'Invalid type for STRUCT: {type(value).__name__}')",
        "    if value.schema is not schema and value.schema != schema:",
        "        raise DataError('Mismatching struct schema')",
    ]
    if payload:
        lines.append("    out = bytearray(header)")
    lines.append("    append = out.append")
    width = len(schema.fields)
    if width:  # unpacking the slots at once is cheaper than a subscript per field
        lines.append("    " + "".join(f"s{slot}, " for slot in range(width)) + "= value.values()")
    for i, (index, default, optional, name, writer) in enumerate(plan):
        env[f"w{i}"], env[f"d{i}"], env[f"n{i}"] = writer, default, name
        if index < 0:
            lines.append(f"    w{i}(out, None)")
            continue
        lines += [f"    item = s{index}", "    if item is None:", f"        item = d{i}"]
        if not optional:
            lines += [
                "        if item is None:",
                f"            raise DataError(f'Found null value for non-optional schema (field {{n{i}}})')",
            ]
        inline = _WRITE_INLINE.get(writer)
        lines.append(inline if inline is not None else f"    w{i}(out, item)")
    if payload:
        lines.append("    return bytes(out)")
    what = f"Avro {'payload' if payload else 'record'} writer of {schema}"
    return build_function("\n".join(lines) + "\n", "record", {**_NAMESPACE, **env}, what=what)


def record_reader(schema: Schema, plan: list[tuple[int, Reader]]) -> Reader:
    """The reader of a Struct of `schema`; `plan` per Avro field in order: Connect slot, reader."""
    env: dict[str, Any] = {"schema": schema, "unchecked": Struct.unchecked}
    lines = ["def record(data, pos):"]
    for i, (_, reader) in enumerate(plan):
        env[f"r{i}"] = reader
        inline = _READ_INLINE.get(reader)
        lines.append(inline.format(i=i) if inline is not None else f"    v{i}, pos = r{i}(data, pos)")
    by_slot = {index: i for i, (index, _) in enumerate(plan)}
    values = ", ".join(f"v{by_slot[slot]}" for slot in range(len(schema.fields)))
    lines.append(f"    return unchecked(schema, [{values}]), pos")
    return build_function(
        "\n".join(lines) + "\n", "record", {**_NAMESPACE, **env}, what=f"Avro reader of {schema}"
    )
