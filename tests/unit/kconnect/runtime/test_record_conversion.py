"""SourceRecordPreparer.prepare_all and SinkRecordBuilder.batch: a converter's failure reaches the error
handler with its stage and the converter's class, and the good records around it pass in order."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from aiokafka.structs import ConsumerRecord
from kconnect.data.schema import STRING_SCHEMA
from kconnect.errors import ConnectError, DataError
from kconnect.records import Headers, SinkBatch, SourceBatch, SourceRecord
from kconnect.runtime.error_handling import ErrorHandler, ErrorPolicy, Failure, Stage
from kconnect.runtime.sink_records import SinkRecordBuilder
from kconnect.runtime.source_records import SourceRecordPreparer
from kconnect.runtime.task_plugins import TaskPlugins
from kconnect.task import SourceTask, TopicPartition
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


class HeaderWritingJson(JsonConverter):
    """A value converter that adds a header naming the topic to the record it converts."""

    def from_connect_data(
        self, topic: str, schema: Any, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        assert headers is not None
        headers.add("written-for", f"{topic}:{value}")
        return super().from_connect_data(topic, schema, value, headers)


def _batch(values: list[Any], **columns: Any) -> SourceBatch:
    return SourceBatch(
        topic="t",
        values=values,
        value_schema=STRING_SCHEMA,
        source_partition={"file": "a"},
        source_offset={"position": len(values)},
        **columns,
    )


def test_prepare_batch_converts_the_value_column_as_prepare_all_converts_its_records() -> None:
    errors = ErrorHandler("task-0", ErrorPolicy())
    preparer = SourceRecordPreparer(_plugins(), errors)
    batch = _batch(["a", "b", "c"], timestamps=[1, 2, 3])
    ready = preparer.prepare_batch(batch)
    by_records = preparer.prepare_all(batch.records())
    assert list(ready.values) == [p[2] for p in by_records if p] == [b'"a"', b'"b"', b'"c"']
    assert ready.keys is None and ready.headers is None and ready.timestamps == [1, 2, 3]


def test_prepare_batch_skips_what_the_error_handler_skips_and_keeps_the_rest_in_order() -> None:
    errors, recording = _tolerant()
    ready = SourceRecordPreparer(_plugins(), errors).prepare_batch(_batch(["a", object(), "c"]))
    assert list(ready.values) == [b'"a"', b'"c"']
    [failure] = recording.failures
    assert failure.stage is Stage.VALUE_CONVERTER
    assert failure.source_record is not None and failure.source_record.source_offset is None, (
        "only the batch's last record carries its offset"
    )


def test_a_converter_that_writes_headers_gets_one_headers_per_record() -> None:
    plugins = TaskPlugins(_json(), HeaderWritingJson(), SimpleHeaderConverter(), [])
    ready = SourceRecordPreparer(plugins, ErrorHandler("task-0", ErrorPolicy())).prepare_batch(
        _batch(["a", "b"])
    )
    assert ready.headers == [[("written-for", b"t:a")], [("written-for", b"t:b")]]


def test_a_keyed_batch_converts_keys_and_headers_record_by_record() -> None:
    batch = _batch(
        ["a", "b"], keys=["k1", "k2"], key_schema=STRING_SCHEMA, headers=[Headers().add("h", "1"), Headers()]
    )
    ready = SourceRecordPreparer(_plugins(), ErrorHandler("task-0", ErrorPolicy())).prepare_batch(batch)
    assert ready.keys == [b'"k1"', b'"k2"'] and list(ready.values) == [b'"a"', b'"b"']
    assert ready.headers == [[("h", b"1")], []]


def test_a_batchs_records_are_polls_with_the_offset_on_the_last() -> None:
    batch = _batch(["a", "b"], keys=["k1", "k2"], key_schema=STRING_SCHEMA, kafka_partition=2)
    first, last = batch.records()
    assert (first.topic, first.kafka_partition, first.key, first.value) == ("t", 2, "k1", "a")
    assert first.source_partition == last.source_partition == {"file": "a"}
    assert (first.source_offset, last.source_offset) == (None, {"position": 2})
    assert batch.record(-1) == last and len(batch) == 2


def test_the_default_poll_batch_gives_each_polled_record_as_a_batch_of_one() -> None:
    class OneRecordEach(SourceTask):
        def start(self, config: Any) -> None:
            pass

        def poll(self) -> list[SourceRecord] | None:
            return [
                SourceRecord(
                    topic="t",
                    key="k",
                    value="v",
                    timestamp=5,
                    headers=Headers().add("h", "x"),
                    source_partition={"p": 1},
                    source_offset={"o": 2},
                )
            ]

        def stop(self) -> None:
            pass

    [batch] = OneRecordEach().poll_batch() or []
    assert batch.records() == OneRecordEach().poll()
