"""Turns fetched Kafka messages into the batch a sink task's `put` (or `put_batch`) receives.

The sink loop calls `SinkRecordBuilder.batch` once per fetch: each message goes through the
header, key and value converters, then the transformation chain. For a task that takes columns
(`SinkTask.put_batch`) and a connector without transformations it calls `SinkRecordBuilder.columns`
instead: the same conversions and error handling, kept as a `SinkBatch` with no record objects.
A message that fails a step goes to the task's `ErrorHandler` (retried, reported, then skipped or
failing the task, as the connector's ``errors.*`` keys say). The batch's offsets cover every
fetched message, skipped or dropped ones included, and the batch keeps the fetched messages so
that a record the task reports as errant reaches the dead letter queue as the bytes it was
consumed as.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from kconnect.data.schema import SchemaAndValue
from kconnect.frozen_init import positional_constructor
from kconnect.records import (
    TIMESTAMP_TYPES_BY_CODE,
    Headers,
    SinkBatch,
    SinkRecord,
    TimestampType,
    consumed_sink_record,
)
from kconnect.runtime.error_handling import ErrorHandler, Stage, StageError
from kconnect.runtime.sink_offsets import DeliveryBatch
from kconnect.runtime.task_plugins import TaskPlugins
from kconnect.task import TopicPartition

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
                        TIMESTAMP_TYPES_BY_CODE.get(message.timestamp_type, _NO_TIMESTAMP_TYPE),
                        topic,
                        partition,
                        offset,
                    )
                )
            if messages:
                next_offsets[tp] = messages[-1].offset + 1
        return DeliveryBatch(records, next_offsets, consumed=fetched)

    def columns(self, fetched: Mapping[TopicPartition, Sequence[Any]]) -> DeliveryBatch:
        """One fetch's messages as a `SinkBatch` (no transformation is configured): the same
        conversions and error handling as `batch`, without a record object per message."""
        messages: list[Any] = []
        keys: list[SchemaAndValue] = []
        values: list[SchemaAndValue] = []
        headers: dict[int, Headers] = {}
        next_offsets: dict[TopicPartition, int] = {}
        key_of, value_of = self._key, self._value
        keep_message, keep_key, keep_value = messages.append, keys.append, values.append
        for tp, fetched_messages in fetched.items():
            for message in fetched_messages:
                if message.headers:
                    parts = self._parts_or_none(message)
                else:
                    # A message without headers: the converters get None (their contract allows it),
                    # not an empty Headers each.
                    topic = message.topic
                    stage = _KEY
                    try:
                        key = key_of(topic, message.key, None)
                        stage = _VALUE
                        value = value_of(topic, message.value, None)
                    except Exception as exc:
                        failed = self._plugins.converter_error(stage, exc)
                        retry = functools.partial(self._parts, message)
                        parts = self._errors.recover(failed, retry, consumed=message)
                    else:
                        keep_message(message)
                        keep_key(key)
                        keep_value(value)
                        continue
                if parts is not None:
                    key, value, converted_headers = parts
                    if converted_headers:
                        headers[len(messages)] = converted_headers
                    keep_message(message)
                    keep_key(key)
                    keep_value(value)
            if fetched_messages:
                next_offsets[tp] = fetched_messages[-1].offset + 1
        return DeliveryBatch(SinkBatch(messages, keys, values, headers), next_offsets, consumed=fetched)

    def _parts_or_none(self, message: Any) -> tuple[SchemaAndValue, SchemaAndValue, Headers] | None:
        """`_parts`, with a failure handed to the error handler (retried, skipped or raised)."""
        try:
            return self._parts(message)
        except StageError as failed:
            return self._errors.recover(failed, lambda: self._parts(message), consumed=message)

    def _parts(self, message: Any) -> tuple[SchemaAndValue, SchemaAndValue, Headers]:
        """A message's converted key, value and headers (StageError naming the failing converter)."""
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
        return key, value, headers

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
        return consumed_sink_record(message, *self._parts(message))
