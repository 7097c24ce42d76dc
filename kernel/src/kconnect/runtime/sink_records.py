"""Turns fetched Kafka messages into the batch a sink task's `put` receives.

The sink loop calls `SinkRecordBuilder.batch` once per fetch: each message goes through the
header, key and value converters, then the transformation chain. A message that fails a step goes
to the task's `ErrorHandler` (retried, reported, then skipped or failing the task, as the
connector's ``errors.*`` keys say). The batch's offsets cover every fetched message, skipped or
dropped ones included, and the batch keeps the fetched messages so that a record the task reports
as errant reaches the dead letter queue as the bytes it was consumed as.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kconnect.frozen_init import positional_constructor
from kconnect.records import Headers, SinkRecord, TimestampType
from kconnect.runtime.error_handling import ErrorHandler, Stage, StageError
from kconnect.runtime.sink_offsets import DeliveryBatch
from kconnect.runtime.task_plugins import TaskPlugins
from kconnect.task import TopicPartition

_TIMESTAMP_TYPES = {0: TimestampType.CREATE_TIME, 1: TimestampType.LOG_APPEND_TIME}
_NO_TIMESTAMP_TYPE = TimestampType.NO_TIMESTAMP_TYPE
_KEY, _VALUE = Stage.KEY_CONVERTER, Stage.VALUE_CONVERTER
_sink_record = positional_constructor(SinkRecord)


class SinkRecordBuilder:
    """Converts and transforms fetched messages for one sink task."""

    def __init__(self, plugins: TaskPlugins, errors: ErrorHandler) -> None:
        self._plugins = plugins
        self._errors = errors
        self._key = plugins.key_converter.to_connect_data
        self._value = plugins.value_converter.to_connect_data

    def batch(self, fetched: Mapping[TopicPartition, Sequence[Any]]) -> DeliveryBatch:
        """One fetch's messages (aiokafka ConsumerRecords, per partition, in offset order) as a batch."""
        records: list[SinkRecord] = []
        next_offsets: dict[TopicPartition, int] = {}
        # `_convert` inlined for a message without headers where nothing transforms it, its
        # converters and constructor in locals: a fetch is thousands of messages, and a call plus
        # a dozen attribute lookups per message were a tenth of a sink's instructions per record.
        # Any other message takes `record`'s path.
        transforms = bool(self._plugins.transforms)
        key_of, value_of, build, record_of = self._key, self._value, _sink_record, self.record
        append = records.append
        for tp, messages in fetched.items():
            for message in messages:
                if transforms or message.headers:
                    record = record_of(message)
                    if record is not None:
                        append(record)
                    continue
                topic, partition, offset = message.topic, message.partition, message.offset
                headers = Headers()
                stage = _KEY
                try:
                    key = key_of(topic, message.key, headers)
                    stage = _VALUE
                    value = value_of(topic, message.value, headers)
                except Exception as exc:
                    record = self._recover(self._plugins.converter_error(stage, exc), message)
                    if record is not None:
                        append(record)
                    continue
                append(
                    build(
                        topic,
                        partition,
                        key.schema,
                        key.value,
                        value.schema,
                        value.value,
                        message.timestamp,
                        headers,
                        offset,
                        _TIMESTAMP_TYPES.get(message.timestamp_type, _NO_TIMESTAMP_TYPE),
                        topic,
                        partition,
                        offset,
                    )
                )
            if messages:
                next_offsets[tp] = messages[-1].offset + 1
        return DeliveryBatch(records, next_offsets, consumed=fetched)

    def record(self, message: Any) -> SinkRecord | None:
        """One message as the task sees it; None if a transformation dropped it or it was skipped."""
        try:
            return self._convert_and_transform(message)
        except StageError as failed:
            return self._recover(failed, message)

    def _recover(self, failed: StageError, message: Any) -> SinkRecord | None:
        """The error handler's answer to `message` failing a step: retried, skipped or raised."""
        return self._errors.recover(failed, lambda: self._convert_and_transform(message), consumed=message)

    def _convert_and_transform(self, message: Any) -> SinkRecord | None:
        record = self._convert(message)
        if not self._plugins.transforms:
            return record
        transformed = self._plugins.transform(record)
        assert transformed is None or isinstance(transformed, SinkRecord)
        return transformed

    def _convert(self, message: Any) -> SinkRecord:
        topic = message.topic
        headers = Headers()
        stage = Stage.HEADER_CONVERTER
        try:
            if message.headers:
                convert = self._plugins.header_converter.to_connect_header
                for key, raw in message.headers:
                    converted = convert(topic, key, raw)
                    headers.add(key, converted.value, converted.schema)
            stage = Stage.KEY_CONVERTER
            key = self._key(topic, message.key, headers)
            stage = Stage.VALUE_CONVERTER
            value = self._value(topic, message.value, headers)
        except Exception as exc:
            raise self._plugins.converter_error(stage, exc) from exc
        partition, offset = message.partition, message.offset
        return _sink_record(
            topic,
            partition,
            key.schema,
            key.value,
            value.schema,
            value.value,
            message.timestamp,
            headers,
            offset,
            _TIMESTAMP_TYPES.get(message.timestamp_type, _NO_TIMESTAMP_TYPE),
            topic,
            partition,
            offset,
        )
