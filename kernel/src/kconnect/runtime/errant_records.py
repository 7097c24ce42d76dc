"""The ErrantRecordReporter a sink task gets from its context (Kafka's WorkerErrantRecordReporter).

A record the task reports goes to the task's `ErrorHandler` as a failure of stage ``TASK_PUT``.
The dead letter queue gets the record as it was consumed (found in the batch being put, by its
original topic, partition and offset, whatever transformations changed); a record the task made
itself is converted back to bytes with the task's converters first, as Kafka does.
"""

from __future__ import annotations

import bisect
import concurrent.futures
from collections.abc import Mapping, Sequence
from typing import Any

from aiokafka.structs import ConsumerRecord

from kconnect.records import SinkRecord, TimestampType
from kconnect.runtime.error_handling import ErrorHandler, Stage
from kconnect.runtime.task_plugins import TaskPlugins
from kconnect.task import TopicPartition

#: Kafka names the interface, not the task's class, as the class that failed in TASK_PUT.
SINK_TASK_CLASS = "org.apache.kafka.connect.sink.SinkTask"
_WIRE_TIMESTAMP_TYPES = {TimestampType.CREATE_TIME: 0, TimestampType.LOG_APPEND_TIME: 1}


class LoopErrantRecordReporter:
    """Reports a sink task's errant records; the sink loop sets `consumed` to the batch being put."""

    def __init__(self, errors: ErrorHandler, plugins: TaskPlugins) -> None:
        self._errors = errors
        self._plugins = plugins
        self.consumed: Mapping[TopicPartition, Sequence[Any]] = {}

    def report(self, record: SinkRecord, error: BaseException) -> concurrent.futures.Future[None]:
        """Report `record` (see `kconnect.task.ErrantRecordReporter`)."""
        consumed = self._original(record) or self._converted(record)
        return self._errors.execute_failed(Stage.TASK_PUT, SINK_TASK_CLASS, error, consumed)

    def _original(self, record: SinkRecord) -> Any:
        topic = record.original_topic or record.topic
        partition = record.original_kafka_partition
        offset = record.original_kafka_offset
        if partition is None or offset is None:
            return None
        messages = self.consumed.get(TopicPartition(topic, partition))
        if not messages:
            return None
        index = bisect.bisect_left(messages, offset, key=lambda message: message.offset)
        if index < len(messages) and messages[index].offset == offset:
            return messages[index]
        return None

    def _converted(self, record: SinkRecord) -> ConsumerRecord[bytes, bytes]:
        topic = record.topic
        key = self._plugins.key_converter.from_connect_data(
            topic, record.key_schema, record.key, record.headers
        )
        value = self._plugins.value_converter.from_connect_data(
            topic, record.value_schema, record.value, record.headers
        )
        convert = self._plugins.header_converter.from_connect_header
        headers = tuple((h.key, convert(topic, h.key, h.schema, h.value) or b"") for h in record.headers)
        return ConsumerRecord(
            topic=topic,
            partition=record.kafka_partition if record.kafka_partition is not None else -1,
            offset=record.kafka_offset,
            timestamp=record.timestamp if record.timestamp is not None else -1,
            timestamp_type=_WIRE_TIMESTAMP_TYPES.get(record.timestamp_type, -1),
            key=key,
            value=value,
            checksum=None,
            serialized_key_size=len(key) if key is not None else -1,
            serialized_value_size=len(value) if value is not None else -1,
            headers=headers,
        )
