"""SourceRecordPreparer.prepare_all and SinkRecordBuilder.batch: a converter's failure reaches the error
handler with its stage and the converter's class, and the good records around it pass in order."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from aiokafka.structs import ConsumerRecord
from kconnect.data.schema import STRING_SCHEMA
from kconnect.errors import ConnectError, DataError
from kconnect.records import Headers, SinkBatch, SourceRecord
from kconnect.runtime.error_handling import ErrorHandler, ErrorPolicy, Failure, Stage
from kconnect.runtime.sink_records import SinkRecordBuilder
from kconnect.runtime.source_records import SourceRecordPreparer
from kconnect.runtime.task_plugins import TaskPlugins
from kconnect.task import TopicPartition
from kconnect_converters.header_converter import SimpleHeaderConverter
from kconnect_converters.json_converter import JsonConverter

JSON = "org.apache.kafka.connect.json.JsonConverter"
HEADERS = "org.apache.kafka.connect.storage.SimpleHeaderConverter"


@dataclass
class Recording:
    """An ErrorReporter that keeps what it is told."""

    failures: list[Failure] = field(default_factory=list)

    def report(self, failure: Failure) -> None:
        self.failures.append(failure)


class RefusingHeaders(SimpleHeaderConverter):
    """Refuses a header named ``bad``, in both directions."""

    def from_connect_header(self, topic: str, header_key: str, schema: Any, value: Any) -> bytes | None:
        if header_key == "bad":
            raise DataError("bad header")
        return super().from_connect_header(topic, header_key, schema, value)

    def to_connect_header(self, topic: str, header_key: str, value: bytes | None) -> Any:
        if header_key == "bad":
            raise DataError("bad header")
        return super().to_connect_header(topic, header_key, value)


def _json() -> JsonConverter:
    made = JsonConverter()
    made.configure({"schemas.enable": "false"}, False)
    return made


def _plugins() -> TaskPlugins:
    return TaskPlugins(_json(), _json(), RefusingHeaders(), [])


def _tolerant() -> tuple[ErrorHandler, Recording]:
    recording = Recording()
    return ErrorHandler("task-0", ErrorPolicy(tolerate_all=True), [recording]), recording


def _source(value: Any, *, key: Any = None, headers: Headers | None = None) -> SourceRecord:
    headers = headers or Headers()
    return SourceRecord(topic="t", value_schema=STRING_SCHEMA, value=value, key=key, headers=headers)


@pytest.mark.parametrize(
    ("failing", "stage", "executing_class"),
    [
        (_source("x", key=object()), Stage.KEY_CONVERTER, JSON),
        (_source(object()), Stage.VALUE_CONVERTER, JSON),
        (_source("x", headers=Headers().add("bad", "v")), Stage.HEADER_CONVERTER, HEADERS),
    ],
)
def test_prepare_all_reports_the_failing_converters_stage_and_keeps_the_rest(
    failing: SourceRecord, stage: Stage, executing_class: str
) -> None:
    errors, recording = _tolerant()
    good = _source("a", headers=Headers().add("h", "v"))
    prepared = SourceRecordPreparer(_plugins(), errors).prepare_all([good, failing, _source("b")])
    assert prepared[0] == (good, None, b'"a"', [("h", b"v")])
    assert prepared[1] is None
    assert prepared[2] is not None and prepared[2][2] == b'"b"'
    [failure] = recording.failures
    assert (failure.stage, failure.executing_class) == (stage, executing_class)
    assert failure.source_record is failing


def _message(offset: int, value: bytes, *, key: bytes | None = None, headers: tuple[Any, ...] = ()) -> Any:
    return ConsumerRecord("t", 0, offset, 1_700_000_000_000, 0, key, value, None, 0, len(value), headers)


@pytest.mark.parametrize(
    ("failing", "stage", "executing_class"),
    [
        (_message(1, b'"x"', key=b"{bad"), Stage.KEY_CONVERTER, JSON),
        (_message(1, b"{bad"), Stage.VALUE_CONVERTER, JSON),
        (_message(1, b'"x"', headers=(("bad", b"v"),)), Stage.HEADER_CONVERTER, HEADERS),
    ],
)
def test_batch_reports_the_failing_converters_stage_and_keeps_the_rest(
    failing: Any, stage: Stage, executing_class: str
) -> None:
    errors, recording = _tolerant()
    tp = TopicPartition("t", 0)
    batch = SinkRecordBuilder(_plugins(), errors).batch(
        {tp: [_message(0, b'"a"', headers=(("h", b"v"),)), failing, _message(2, b'"b"')]}
    )
    assert [(r.value, r.kafka_offset, [(h.key, h.value) for h in r.headers]) for r in batch.records] == [
        ("a", 0, [("h", "v")]),
        ("b", 2, []),
    ]
    [failure] = recording.failures
    assert (failure.stage, failure.executing_class) == (stage, executing_class)
    assert failure.consumed is failing


@pytest.mark.parametrize(
    ("failing", "stage", "executing_class"),
    [
        (_message(1, b'"x"', key=b"{bad"), Stage.KEY_CONVERTER, JSON),
        (_message(1, b"{bad"), Stage.VALUE_CONVERTER, JSON),
        (_message(1, b'"x"', headers=(("bad", b"v"),)), Stage.HEADER_CONVERTER, HEADERS),
    ],
)
def test_columns_hold_the_records_batch_builds_and_report_the_same_failure(
    failing: Any, stage: Stage, executing_class: str
) -> None:
    fetched = {
        TopicPartition("t", 0): [
            _message(0, b'"a"', key=b'"k"', headers=(("h", b"v"),)),
            failing,
            _message(2, b'{"n": 1}'),
        ]
    }
    expected_errors, _ = _tolerant()
    expected = SinkRecordBuilder(_plugins(), expected_errors).batch(fetched)
    errors, recording = _tolerant()
    delivery = SinkRecordBuilder(_plugins(), errors).columns(fetched)
    columns = delivery.records
    assert isinstance(columns, SinkBatch)
    assert columns.records() == expected.records
    assert delivery.next_offsets == expected.next_offsets == {TopicPartition("t", 0): 3}
    assert len(columns) == 2
    assert columns.values == ["a", {"n": 1}]
    assert columns.keys == ["k", None]
    assert columns.kafka_offsets == [0, 2]
    assert columns.topics == ["t", "t"] and columns.kafka_partitions == [0, 0]
    assert columns.timestamps == [1_700_000_000_000] * 2
    assert [[(h.key, h.value) for h in headers] for headers in columns.headers] == [[("h", "v")], []]
    [failure] = recording.failures
    assert (failure.stage, failure.executing_class) == (stage, executing_class)
    assert failure.consumed is failing


def test_columns_fail_the_task_when_errors_are_not_tolerated() -> None:
    errors = ErrorHandler("task-0", ErrorPolicy(), [])
    with pytest.raises(ConnectError, match="Tolerance exceeded"):
        SinkRecordBuilder(_plugins(), errors).columns({TopicPartition("t", 0): [_message(0, b"{bad")]})


def test_a_batch_without_revoked_partitions_keeps_the_others_in_order_with_their_headers() -> None:
    errors, _ = _tolerant()
    fetched = {
        TopicPartition("a", 0): [
            ConsumerRecord("a", 0, 0, 1, 0, None, b'"a0"', None, 0, 4, (("x", b"y"),)),
        ],
        TopicPartition("b", 0): [
            ConsumerRecord("b", 0, 5, 1, 0, None, b'"b5"', None, 0, 4, (("h", b"v"),)),
            ConsumerRecord("b", 0, 6, 1, 0, None, b'"b6"', None, 0, 4, ()),
        ],
    }
    batch = SinkRecordBuilder(_plugins(), errors).columns(fetched).records
    assert isinstance(batch, SinkBatch)
    kept = batch.without({TopicPartition("a", 0)})
    assert kept.values == ["b5", "b6"]
    assert [[(h.key, h.value) for h in headers] for headers in kept.headers] == [[("h", "v")], []]
    assert kept.records() == batch.records()[1:]
    assert not batch.without({TopicPartition("a", 0), TopicPartition("b", 0)})
