"""Turns fetched Kafka messages into the batch a sink task's `put` receives.

The sink loop calls `SinkRecordBuilder.batch` once per fetch: each message goes through the
header, key and value converters, then the transformation chain. Under ``errors.tolerance=all`` a
message that fails either step is skipped (and logged); otherwise the error fails the task. The
batch's offsets cover every fetched message, skipped or dropped ones included.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kconnect.records import Headers, SinkRecord, TimestampType
from kconnect.runtime.error_tolerance import ErrorTolerance
from kconnect.runtime.sink_offsets import DeliveryBatch
from kconnect.runtime.task_plugins import TaskPlugins
from kconnect.task import TopicPartition

_TIMESTAMP_TYPES = {0: TimestampType.CREATE_TIME, 1: TimestampType.LOG_APPEND_TIME}


class SinkRecordBuilder:
    """Converts and transforms fetched messages for one sink task."""

    def __init__(self, plugins: TaskPlugins, errors: ErrorTolerance) -> None:
        self._plugins = plugins
        self._errors = errors

    def batch(self, fetched: Mapping[TopicPartition, Sequence[Any]]) -> DeliveryBatch:
        """One fetch's messages (aiokafka ConsumerRecords, per partition, in offset order) as a batch."""
        records: list[SinkRecord] = []
        next_offsets: dict[TopicPartition, int] = {}
        for tp, messages in fetched.items():
            for message in messages:
                record = self.record(message)
                if record is not None:
                    records.append(record)
            if messages:
                next_offsets[tp] = messages[-1].offset + 1
        return DeliveryBatch(records, next_offsets)

    def record(self, message: Any) -> SinkRecord | None:
        """One message as the task sees it; None if a transformation dropped it or it was skipped."""
        where = f"{message.topic}-{message.partition}@{message.offset}"
        try:
            record = self._convert(message)
        except Exception:
            self._errors.skip("conversion", where)
            return None
        try:
            transformed = self._plugins.transform(record)
        except Exception:
            self._errors.skip("transformation", where)
            return None
        assert transformed is None or isinstance(transformed, SinkRecord)
        return transformed

    def _convert(self, message: Any) -> SinkRecord:
        topic = message.topic
        headers = Headers()
        for key, raw in message.headers or ():
            converted = self._plugins.header_converter.to_connect_header(topic, key, raw)
            headers.add(key, converted.value, converted.schema)
        key = self._plugins.key_converter.to_connect_data(topic, message.key, headers)
        value = self._plugins.value_converter.to_connect_data(topic, message.value, headers)
        return SinkRecord(
            topic=topic,
            kafka_partition=message.partition,
            key_schema=key.schema,
            key=key.value,
            value_schema=value.schema,
            value=value.value,
            timestamp=message.timestamp,
            headers=headers,
            kafka_offset=message.offset,
            timestamp_type=_TIMESTAMP_TYPES.get(message.timestamp_type, TimestampType.NO_TIMESTAMP_TYPE),
            original_topic=topic,
            original_kafka_partition=message.partition,
            original_kafka_offset=message.offset,
        )
