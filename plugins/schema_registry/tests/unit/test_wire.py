"""Confluent's wire format: framing and Protobuf message indexes, byte for byte."""

from __future__ import annotations

import pytest
from kconnect.errors import DataError
from kconnect_schema_registry.wire import (
    decode_message_indexes,
    encode_message_indexes,
    frame,
    unframe,
)


def test_frame_is_magic_byte_then_big_endian_id_then_payload() -> None:
    assert frame(1, b"abc") == b"\x00\x00\x00\x00\x01abc"
    assert frame(0x01020304, b"") == b"\x00\x01\x02\x03\x04"


def test_unframe_gives_the_id_and_the_payload() -> None:
    schema_id, payload = unframe(b"\x00\x00\x00\x01\x00xyz")
    assert schema_id == 256
    assert bytes(payload) == b"xyz"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\x00\x00\x01", "Unknown magic byte! The message is 3 bytes"),
        (b"\x01\x00\x00\x00\x01{}", "Unknown magic byte 1"),
        (b'{"a":1}', "Unknown magic byte 123"),
    ],
)
def test_unframe_refuses_what_is_not_the_wire_format(data: bytes, message: str) -> None:
    with pytest.raises(DataError, match=message):
        unframe(data)


@pytest.mark.parametrize(
    ("indexes", "encoded"),
    [
        ([0], b"\x00"),  # the first message of the file: Confluent's one-byte shortcut
        ([1], b"\x02\x02"),  # count 1, index 1, both zig-zag
        ([0, 2], b"\x04\x00\x04"),
        ([64], b"\x02\x80\x01"),  # zig-zag 128 takes two varint bytes
    ],
)
def test_message_indexes_as_confluent_writes_them(indexes: list[int], encoded: bytes) -> None:
    assert encode_message_indexes(indexes) == encoded
    assert decode_message_indexes(encoded + b"rest") == (indexes, len(encoded))


def test_truncated_message_indexes_are_a_data_error() -> None:
    with pytest.raises(DataError, match="Truncated"):
        decode_message_indexes(b"\x04\x00")


def test_lru_cache_drops_the_least_recently_used() -> None:
    from kconnect_schema_registry.converter import LruCache

    cache: LruCache[str, int] = LruCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # "a" is now the most recent
    cache.put("c", 3)
    assert (cache.get("a"), cache.get("b"), cache.get("c")) == (1, None, 3)
