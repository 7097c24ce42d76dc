"""The line formats: JSON (values as JsonConverter writes them without schemas), ByteArray (raw
bytes and a separator) and String (text lines), and the errors that name the record."""

from __future__ import annotations

import datetime
import decimal
import gzip
import io
import json
from typing import Any

import pytest
from kconnect import SinkRecord, Struct
from kconnect.data import logical
from kconnect.data.schema import Schema, SchemaBuilder
from kconnect.errors import DataError
from kconnect_storage.formats.lines import ByteArrayFormat, JsonLinesFormat, StringFormat

from plugins.storage.tests.unit.format_samples import EVERY_TYPE, record

SCHEMA = (
    SchemaBuilder.struct()
    .name("row")
    .field("id", SchemaBuilder.int64().build())
    .field("name", SchemaBuilder.string().optional().build())
    .field("price", logical.Decimal.schema(2))
    .field("day", logical.Date.SCHEMA)
    .field("ts", logical.Timestamp.SCHEMA)
    .build()
)


def rec(offset: int, value: Any, schema: Schema | None = None) -> SinkRecord:
    return SinkRecord(
        topic="orders", kafka_partition=1, kafka_offset=offset, value_schema=schema, value=value
    )


def row(i: int) -> Struct:
    return (
        Struct(SCHEMA)
        .put("id", i)
        .put("name", None if i == 1 else f"n{i}")
        .put("price", decimal.Decimal("12.34"))
        .put("day", datetime.date(1970, 1, 11))
        .put("ts", datetime.datetime(1970, 1, 1, 0, 0, 1, tzinfo=datetime.timezone.utc))
    )


def written(fmt: Any, batches: list[list[SinkRecord]], schema: Schema | None = None) -> bytes:
    out = io.BytesIO()
    writer = fmt.writer(out, schema)
    for batch in batches:
        writer.write(batch)
    writer.close()
    return out.getvalue()


def test_json_writes_each_value_without_the_schema_envelope_one_a_line() -> None:
    data = written(JsonLinesFormat(), [[rec(0, row(0), SCHEMA)], [rec(1, row(1), SCHEMA)]], SCHEMA)

    assert data == (
        b'{"id":0,"name":"n0","price":"BNI=","day":10,"ts":1000}\n'
        b'{"id":1,"name":null,"price":"BNI=","day":10,"ts":1000}\n'
    )


def test_json_decimal_format_numeric_writes_decimals_as_numbers() -> None:
    data = written(JsonLinesFormat("NUMERIC"), [[rec(0, row(0), SCHEMA)]], SCHEMA)

    assert json.loads(data)["price"] == 12.34
    assert b'"price":12.34' in data


def test_json_of_schemaless_values_works() -> None:
    values = [{"a": 1, "b": [True, None]}, "text", 5, None]

    data = written(JsonLinesFormat(), [[rec(i, v) for i, v in enumerate(values)]])

    assert data.split(b"\n") == [b'{"a":1,"b":[true,null]}', b'"text"', b"5", b"null", b""]


def test_json_of_every_type_is_one_json_document_a_line() -> None:
    data = written(JsonLinesFormat(), [[record(i) for i in range(5)]], EVERY_TYPE)

    lines = data.decode().splitlines()
    assert len(lines) == 5
    assert [json.loads(line)["i32"] for line in lines] == [2**31 - 1 - i for i in range(5)]
    assert json.loads(lines[1])["text"] == "text 1 é ✓ \U0001f600"


def test_json_of_a_value_not_matching_its_schema_is_a_data_error_naming_it() -> None:
    bad = rec(8, "not a number", SchemaBuilder.int32().build())

    with pytest.raises(
        DataError, match=r"^Cannot write the record at topic orders partition 1 offset 8 as JSON: "
    ):
        written(JsonLinesFormat(), [[bad]], bad.value_schema)


def test_bytearray_writes_the_value_bytes_and_the_separator() -> None:
    data = written(ByteArrayFormat(), [[rec(0, b"\x00\x01"), rec(1, bytearray(b"ab"))], [rec(2, b"")]])

    assert data == b"\x00\x01\nab\n\n"


def test_bytearray_separator_and_extension_are_configurable() -> None:
    fmt = ByteArrayFormat(".dat", b"\r\n--\r\n")

    assert fmt.extension == ".dat"
    assert written(fmt, [[rec(0, b"a"), rec(1, b"b")]]) == b"a\r\n--\r\nb\r\n--\r\n"
    assert written(ByteArrayFormat(separator=b""), [[rec(0, b"a"), rec(1, b"b")]]) == b"ab"


@pytest.mark.parametrize(
    ("value", "got"), [("text", "str"), (None, "null (a tombstone)"), ({"a": 1}, "dict")]
)
def test_bytearray_of_a_value_that_is_not_bytes_is_a_data_error_naming_it(value: Any, got: str) -> None:
    out = io.BytesIO()
    writer = ByteArrayFormat().writer(out, None)

    with pytest.raises(DataError) as raised:
        writer.write([rec(3, b"ok"), rec(4, value)])

    assert str(raised.value) == (
        "Cannot write the record at topic orders partition 1 offset 4 as ByteArray: "
        f"the value must be bytes, got {got}"
    )
    assert out.getvalue() == b""  # nothing of the failed batch is written


def test_string_writes_each_value_as_a_utf8_line() -> None:
    assert StringFormat().extension == ".txt"
    assert written(StringFormat(), [[rec(0, "a b"), rec(1, "é")]]) == "a b\né\n".encode()


def test_string_of_a_value_that_is_not_a_string_is_a_data_error_naming_it() -> None:
    with pytest.raises(DataError, match="offset 0 as String: the value must be a string, got bytes"):
        written(StringFormat(), [[rec(0, b"bytes")]])


def test_line_formats_write_nothing_for_an_empty_batch() -> None:
    assert written(JsonLinesFormat(), [[]]) == b""
    assert written(ByteArrayFormat(), [[]]) == b""


def test_gzip_compresses_the_whole_file_across_batches() -> None:
    fmt = JsonLinesFormat(gzip_level=9)
    batches = [[rec(i, {"n": i}) for i in range(k, k + 50)] for k in (0, 50)]

    data = written(fmt, batches)

    assert fmt.extension == ".json.gz"
    assert gzip.decompress(data) == b"".join(b'{"n":%d}\n' % i for i in range(100))
    assert ByteArrayFormat(".bin", b"\n", gzip_level=-1).extension == ".bin.gz"
    assert gzip.decompress(written(ByteArrayFormat(gzip_level=1), [[rec(0, b"a")]])) == b"a\n"
