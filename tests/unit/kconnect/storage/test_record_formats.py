"""Offsets- and status-topic records: Java 4.3.1's bytes, written and read, and Java's partitions."""

from __future__ import annotations

import pytest
from aiokafka.partitioner import DefaultPartitioner
from kconnect.kafka.offset_records import (
    RecordFormatError,
    json_bytes,
    offset_key,
    offset_value,
    parse_offset_key,
    parse_offset_value,
)
from kconnect.model import ConnectorTaskId, State, StateInfo, TaskStateInfo
from kconnect.storage.record_formats import (
    StatusRecord,
    connector_status_key,
    parse_status_value,
    parse_task_id,
    parse_topic_status_key,
    state_info,
    status_value,
    task_state_info,
    task_status_key,
    topic_status_key,
    topic_status_value,
)

from tests.unit.kconnect.storage.java_records import OFFSETS_TOPIC, STATUS_TOPIC


def test_offset_key_and_value_bytes_equal_javas() -> None:
    _, key, value = OFFSETS_TOPIC[0]
    assert offset_key("gold-src", {"filename": "/tmp/goldjava/in.txt"}) == key
    assert offset_value({"position": 35}) == value
    assert parse_offset_key(key) == ("gold-src", {"filename": "/tmp/goldjava/in.txt"})
    assert parse_offset_value(value) == {"position": 35}
    assert offset_value(None) is None and parse_offset_value(None) is None


def test_keys_land_in_the_partition_java_chose() -> None:
    # Compaction across Java and kconnect writers needs the same partition for the same key.
    for topic, count in ((STATUS_TOPIC, 5), (OFFSETS_TOPIC, 25)):
        for partition, key, _ in topic:
            assert DefaultPartitioner()(key, list(range(count)), list(range(count))) == partition, key


def test_connector_status_bytes_equal_javas() -> None:
    _, key, value = STATUS_TOPIC[0]
    record = StatusRecord(State.RUNNING, "127.0.0.1:38383", 2, None, "4.3.1")
    assert (connector_status_key("gold-src").encode(), status_value(record)) == (key, value)
    assert parse_status_value(value) == record
    assert state_info(record) == StateInfo(State.RUNNING, "127.0.0.1:38383", None, "4.3.1")


def test_task_status_bytes_equal_javas_with_null_version() -> None:
    _, key, value = STATUS_TOPIC[4]
    task = ConnectorTaskId("gold-src", 0)
    record = StatusRecord(State.UNASSIGNED, "127.0.0.1:38383", 4)
    assert (task_status_key(task).encode(), status_value(record)) == (key, value)
    assert parse_task_id(key.decode(), "status-task-") == task
    assert task_state_info(task, parse_status_value(value)) == TaskStateInfo(
        State.UNASSIGNED, "127.0.0.1:38383", None, None, id=0
    )


def test_failed_status_carries_its_trace() -> None:
    record = StatusRecord(State.FAILED, "w:8083", 7, 'java.lang.Error: "x"\n\tat y', None)
    assert status_value(record) == (
        b'{"state":"FAILED","trace":"java.lang.Error: \\"x\\"\\n\\tat y","worker_id":"w:8083",'
        b'"generation":7,"version":null}'
    )
    assert parse_status_value(status_value(record)) == record


def test_topic_status_bytes_equal_javas() -> None:
    _, key, value = STATUS_TOPIC[14]
    assert topic_status_key("gold-src", "gold-data").encode() == key
    assert topic_status_value("gold-src", "gold-data", 0, 1795359481460) == value
    assert parse_topic_status_key(key.decode()) == ("gold-src", "gold-data")


def test_topic_status_key_with_colons_in_the_connector_name() -> None:
    assert parse_topic_status_key("status-topic-t:connector-a:b") == ("a:b", "t")


@pytest.mark.parametrize("key", ["status-topic-t", "status-topic-:connector-a", "status-topic-t:connector-"])
def test_bad_topic_status_keys_are_refused(key: str) -> None:
    with pytest.raises(RecordFormatError, match="invalid topic status key"):
        parse_topic_status_key(key)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (b'{"state":"SLEEPING","worker_id":"w","generation":1}', "unknown state"),
        (b'{"state":"RUNNING","worker_id":"w","generation":"1"}', "generation an integer"),
        (b'{"state":"RUNNING","worker_id":"w","generation":1,"trace":3}', "trace must be a string"),
        (b"[]", "expected a JSON object"),
    ],
)
def test_bad_status_values_are_refused(value: bytes, message: str) -> None:
    with pytest.raises(RecordFormatError, match=message):
        parse_status_value(value)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        # Jackson: short escapes, upper-case \u00XX, raw non-ASCII, astral characters as surrogate pairs
        ('a\x01\x1f\b\f\n\r\t"\\/', b'"a\\u0001\\u001F\\b\\f\\n\\r\\t\\"\\\\/"'),
        ("caf\u00e9 \u20ac", '"caf\u00e9 \u20ac"'.encode()),
        ("\U0001f600", b'"\\uD83D\\uDE00"'),
        # Java's Double.toString
        (1.0, b"1.0"),
        (1e-05, b"1.0E-5"),
        (12345678.9, b"1.23456789E7"),
        (0.25, b"0.25"),
        ([1, True, None, {"k": [False]}], b'[1,true,null,{"k":[false]}]'),
    ],
)
def test_json_bytes_are_jacksons(value: object, expected: bytes) -> None:
    assert json_bytes(value) == expected


def test_offset_key_keeps_the_partitions_key_order() -> None:
    assert offset_key("c", {"b": 1, "a": 2}) == b'["c",{"b":1,"a":2}]'


@pytest.mark.parametrize("key", [b'{"a":1}', b'["c"]', b'["c",[1]]', b'[1,{"a":1}]'])
def test_bad_offset_keys_are_refused(key: bytes) -> None:
    with pytest.raises(RecordFormatError, match="offset key"):
        parse_offset_key(key)
