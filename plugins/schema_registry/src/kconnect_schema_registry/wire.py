"""Confluent's wire format: magic byte 0, a 4-byte big-endian schema id, then the payload.

Protobuf payloads start with the message indexes (the path to the message type in its file) as
zig-zag varints: their count, then each index; the common ``[0]`` is written as the single byte 0.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from kconnect.errors import DataError

MAGIC_BYTE = 0
_HEADER = struct.Struct(">bI")
HEADER_SIZE = _HEADER.size


def frame(schema_id: int, payload: bytes) -> bytes:
    """``magic byte + schema id + payload``."""
    return _HEADER.pack(MAGIC_BYTE, schema_id) + payload


def unframe(data: bytes) -> tuple[int, memoryview]:
    """The schema id and the payload of a framed message; DataError names what is wrong."""
    if len(data) < HEADER_SIZE:
        raise DataError(
            f"Unknown magic byte! The message is {len(data)} bytes, shorter than the "
            f"{HEADER_SIZE}-byte header of Confluent's wire format"
        )
    magic, schema_id = _HEADER.unpack_from(data)
    if magic != MAGIC_BYTE:
        raise DataError(f"Unknown magic byte {magic}: not Confluent's wire format")
    return schema_id, memoryview(data)[HEADER_SIZE:]


def _zigzag(n: int) -> int:
    return (n << 1) ^ (n >> 63)


def _unzigzag(n: int) -> int:
    return (n >> 1) ^ -(n & 1)


def _write_varint(out: bytearray, n: int) -> None:
    n &= (1 << 64) - 1
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)


def _read_varint(data: memoryview | bytes, pos: int) -> tuple[int, int]:
    shift = result = 0
    while True:
        if pos >= len(data):
            raise DataError("Truncated Protobuf message indexes")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise DataError("Malformed varint in Protobuf message indexes")


def encode_message_indexes(indexes: Sequence[int]) -> bytes:
    """The message indexes as Confluent writes them (``[0]`` is the single byte 0)."""
    if list(indexes) == [0]:
        return b"\x00"
    out = bytearray()
    _write_varint(out, _zigzag(len(indexes)))
    for index in indexes:
        _write_varint(out, _zigzag(index))
    return bytes(out)


def decode_message_indexes(payload: memoryview | bytes) -> tuple[list[int], int]:
    """The message indexes at the start of a Protobuf payload and the offset where the message starts."""
    count, pos = _read_varint(payload, 0)
    count = _unzigzag(count)
    if count == 0:
        return [0], pos
    if count < 0 or count > len(payload):
        raise DataError(f"Invalid Protobuf message index count {count}")
    indexes = []
    for _ in range(count):
        value, pos = _read_varint(payload, pos)
        indexes.append(_unzigzag(value))
    return indexes, pos
