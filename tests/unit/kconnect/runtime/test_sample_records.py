"""The records file of ``kconnect test`` (`kconnect.runtime.sample_records`): bytes, lines, comparison."""

from __future__ import annotations

from typing import Any

import pytest
from kconnect.runtime.sample_records import (
    SampleError,
    consumed_message,
    normalized,
    parse_line,
    read_bytes,
    show_bytes,
)


@pytest.mark.parametrize(
    ("field", "data"),
    [
        (None, None),
        ("plain text", b"plain text"),
        ({"json": {"a": 1, "b": [1, 2]}}, b'{"a":1,"b":[1,2]}'),
        ({"json": [1, "x"]}, b'[1,"x"]'),
        (42, b"42"),
        (True, b"true"),
        ({"base64": "AAH/"}, b"\x00\x01\xff"),
        ("", b""),
    ],
)
def test_a_bytes_field_is_read_as_these_bytes(field: Any, data: bytes | None) -> None:
    assert read_bytes(field, "f:1: value") == data


@pytest.mark.parametrize(
    ("data", "shown"),
    [
        (None, None),
        (b'{"a": 1}', {"json": {"a": 1}}),
        (b"[1,2]", {"json": [1, 2]}),
        (b'"quoted"', '"quoted"'),
        (b"12", "12"),
        (b"not json", "not json"),
        (b"\xff\xfe", {"base64": "//4="}),
    ],
)
def test_bytes_are_shown_as_json_text_or_base64_and_read_back(data: bytes | None, shown: Any) -> None:
    assert show_bytes(data) == shown
    assert read_bytes(shown, "here") == (None if data is None else read_bytes(show_bytes(data), "here"))
    assert show_bytes(read_bytes(shown, "here")) == shown


@pytest.mark.parametrize(
    ("field", "message"),
    [
        (
            {"json": 1, "base64": "AA=="},
            'f:1: value: expected null, a string, {"json": ...} or {"base64": "..."}',
        ),
        ({"base64": "%%%"}, "f:1: value: not base64"),
        ({"other": 1}, "f:1: value: expected null"),
    ],
)
def test_a_bad_bytes_field_names_the_line_and_field(field: Any, message: str) -> None:
    with pytest.raises(SampleError) as raised:
        read_bytes(field, "f:1: value")
    assert str(raised.value).startswith(message)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "f:3: not valid JSON: "),
        ("[1]", "f:3: expected a JSON object (one record a line)"),
    ],
)
def test_a_line_that_is_not_an_object_names_its_place(text: str, message: str) -> None:
    with pytest.raises(SampleError) as raised:
        parse_line(text, "f:3")
    assert str(raised.value).startswith(message)


def test_a_consumed_message_takes_the_lines_fields_or_a_real_messages_defaults() -> None:
    given = consumed_message(
        {"topic": "t", "partition": 2, "offset": 9, "timestamp": 5, "key": "k", "value": {"json": {"a": 1}},
         "headers": {"h": "v"}},
        "f:1",
        0,
    )  # fmt: skip
    assert (given.topic, given.partition, given.offset, given.timestamp, given.timestamp_type) == (
        "t",
        2,
        9,
        5,
        0,
    )
    assert (given.key, given.value, given.headers) == (b"k", b'{"a":1}', (("h", b"v"),))
    bare = consumed_message({"topic": "t"}, "f:4", 3)
    assert (bare.partition, bare.offset, bare.timestamp, bare.timestamp_type) == (0, 3, -1, -1)
    assert (bare.key, bare.value, bare.headers) == (None, None, ())
    with pytest.raises(SampleError, match=r"^f:5: topic: missing"):
        consumed_message({"value": "x"}, "f:5", 0)
    with pytest.raises(SampleError, match=r'^f:6: partition: expected an integer, got "1"'):
        consumed_message({"topic": "t", "partition": "1"}, "f:6", 0)


def test_expected_lines_compare_with_absent_fields_empty_and_json_text_by_value() -> None:
    actual = {
        "topic": "t",
        "partition": None,
        "timestamp": None,
        "key": "k",
        "value": {"json": {"a": 1, "b": 2}},
        "headers": [],
    }
    written = {"topic": "t", "key": "k", "value": '{"b": 2, "a": 1}'}
    assert normalized(written, False, "e:1") == normalized(actual, False, "actual")
    assert normalized({"topic": "t"}, True, "e:2") == {
        "topic": "t", "partition": None, "timestamp": None, "key": None, "value": None, "headers": []
    }  # fmt: skip
    error = {"error": "DataException", "message": "m", "stage": "TRANSFORMATION"}
    assert normalized(error, False, "e:3") == error
