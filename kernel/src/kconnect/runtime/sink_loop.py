"""The sink task loop: consume → converters → transforms → put → pre_commit/flush → commit.

`SinkLoop` runs one task; executors start it through
`kconnect.runtime.runner.run_task`. The task's consumer joins the group
``connect-<connector name>`` (Kafka's name, so Kafka's tools show sink progress), and offsets are
committed to it only after `pre_commit` (by default `flush`) returned: every
``offset.flush.interval.ms``, before partitions are revoked, on pause and on clean stop.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Mapping

from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener, ConsumerRecord
from aiokafka.structs import TopicPartition as KafkaTopicPartition

from kconnect.errors import RetriableError
from kconnect.executor import TaskSpec
from kconnect.plugin_host import PluginHost
from kconnect.records import Headers, SinkRecord, TimestampType
from kconnect.runtime.control import ActiveTopics, TargetFollower, TaskControl
from kconnect.runtime.kafka_clients import consumer_kwargs
from kconnect.runtime.task_context import LoopSinkTaskContext
from kconnect.runtime.task_plugins import TaskPlugins, build_task_plugins
from kconnect.task import SinkTask, TopicPartition

log = logging.getLogger(__name__)

_TIMESTAMP_TYPES = {0: TimestampType.CREATE_TIME, 1: TimestampType.LOG_APPEND_TIME}


def sink_group_id(connector: str) -> str:
    """The consumer group of a sink connector (Kafka's ``connect-<name>``)."""
    return f"connect-{connector}"


def _load_task(host: PluginHost, spec: TaskSpec) -> SinkTask:
    # Only the task class of a registered connector: never an import of task.class.
    cls = host.task_class(spec.connector_config.get("connector.class", ""), spec.task_class)
    if not issubclass(cls, SinkTask):
        raise TypeError(f"task.class {spec.task_class} is not a SinkTask")
    return cls()


class _Rebalance(ConsumerRebalanceListener):  # type: ignore[misc]
    """Commits before partitions leave and opens new ones, as Kafka's WorkerSinkTask does."""

    def __init__(self, loop: SinkLoop) -> None:
        self.loop = loop

    async def on_partitions_revoked(self, revoked: set[KafkaTopicPartition]) -> None:
        partitions = {TopicPartition(tp.topic, tp.partition) for tp in revoked}
        if partitions:
            await self.loop.commit()
            await asyncio.to_thread(self.loop.task.close, partitions)
            self.loop.context.assigned -= partitions
            for tp in partitions:
                self.loop.current.pop(tp, None)

    async def on_partitions_assigned(self, assigned: set[KafkaTopicPartition]) -> None:
        partitions = {TopicPartition(tp.topic, tp.partition) for tp in assigned}
        self.loop.context.assigned |= partitions
        if partitions:
            await asyncio.to_thread(self.loop.task.open, partitions)


class SinkLoop:
    """Runs one sink task until it is stopped; one instance per task run."""

    def __init__(self, spec: TaskSpec, control: TaskControl, host: PluginHost) -> None:
        self.spec = spec
        self.control = control
        self.plugins: TaskPlugins = build_task_plugins(host, spec.worker, spec.connector_config)
        self.task = _load_task(host, spec)
        self.context = LoopSinkTaskContext(spec.task_config)
        self.flush_interval_s = int(spec.worker.get("offset.flush.interval.ms", "60000")) / 1000
        self.tolerate_errors = spec.connector_config.get("errors.tolerance", "none").strip().lower() == "all"
        self.consumer = AIOKafkaConsumer(
            **consumer_kwargs(spec.worker, spec.connector_config, sink_group_id(spec.id.connector))
        )
        #: Next offset to read per partition: what is safe to commit once `put` data is flushed.
        self.current: dict[TopicPartition, int] = {}
        self.committed: dict[TopicPartition, int] = {}
        self.topics = ActiveTopics(control)
        self.records_put = 0

    async def run(self) -> None:
        """Start the task, deliver records until STOPPED, then commit and stop everything."""
        self.task.initialize(self.context)
        await self.consumer.start()
        try:
            await asyncio.to_thread(self.task.start, self.spec.task_config)
            self._subscribe()
            try:
                await self._deliver()
                await self.commit()
            finally:
                if self.context.assigned:
                    await asyncio.to_thread(self.task.close, set(self.context.assigned))
                await asyncio.to_thread(self.task.stop)
        finally:
            self.plugins.close()
            await self.consumer.stop()
        log.info("Sink task %s stopped after delivering %d records", self.spec.id, self.records_put)

    def _subscribe(self) -> None:
        config = self.spec.connector_config
        topics = [t.strip() for t in config.get("topics", "").split(",") if t.strip()]
        listener = _Rebalance(self)
        if topics:
            self.consumer.subscribe(topics=topics, listener=listener)
        elif config.get("topics.regex"):
            self.consumer.subscribe(pattern=re.compile(config["topics.regex"]).pattern, listener=listener)
        else:
            raise ValueError("Must configure one of topics or topics.regex")

    async def _deliver(self) -> None:
        next_commit = time.monotonic() + self.flush_interval_s
        follower = TargetFollower(self.control)
        while await follower.proceed(self._pause, self._resume):
            self._apply_context_requests()
            batches = await self.consumer.getmany(timeout_ms=200)
            for tp, messages in batches.items():
                await self._put(TopicPartition(tp.topic, tp.partition), messages)
            if time.monotonic() >= next_commit or self.context.commit_requested:
                await self.commit()
                next_commit = time.monotonic() + self.flush_interval_s

    async def _pause(self) -> None:
        """Commit what was delivered, then stop fetching (the consumer keeps its group membership)."""
        await self.commit()
        self.consumer.pause(*self.consumer.assignment())

    def _resume(self) -> None:
        self.consumer.resume(*self.consumer.assignment())

    def _apply_context_requests(self) -> None:
        ctx = self.context
        if ctx.offset_resets:
            for tp, offset in ctx.offset_resets.items():
                self.consumer.seek(KafkaTopicPartition(tp.topic, tp.partition), offset)
                self.current[tp] = offset
            ctx.offset_resets.clear()
        if ctx.paused:
            self.consumer.pause(*(KafkaTopicPartition(t, p) for t, p in ctx.paused))
        if ctx.to_resume:
            self.consumer.resume(*(KafkaTopicPartition(t, p) for t, p in ctx.to_resume))
            ctx.to_resume.clear()

    async def _put(self, tp: TopicPartition, messages: list[ConsumerRecord[bytes, bytes]]) -> None:
        if self.topics.is_new(tp.topic):
            await self.control.topic_used(tp.topic)
        records: list[SinkRecord] = []
        for message in messages:
            record = self._convert(message)
            if record is not None:
                records.append(record)
        while True:
            try:
                await asyncio.to_thread(self.task.put, records)
                break
            except RetriableError:
                delay_ms = self.context.timeout_ms or 1000
                log.warning("put of %s raised a retriable error; retrying in %d ms", self.spec.id, delay_ms)
                await asyncio.sleep(delay_ms / 1000)
        self.records_put += len(records)
        self.current[tp] = messages[-1].offset + 1

    def _convert(self, message: ConsumerRecord[bytes, bytes]) -> SinkRecord | None:
        topic = message.topic
        try:
            headers = Headers()
            for key, raw in message.headers or ():
                converted = self.plugins.header_converter.to_connect_header(topic, key, raw)
                headers.add(key, converted.value, converted.schema)
            key = self.plugins.key_converter.to_connect_data(topic, message.key, headers)
            value = self.plugins.value_converter.to_connect_data(topic, message.value, headers)
        except Exception:
            if not self.tolerate_errors:
                raise
            log.warning(
                "Skipping %s-%d@%d: conversion failed (errors.tolerance=all)",
                topic,
                message.partition,
                message.offset,
                exc_info=True,
            )
            return None
        record = SinkRecord(
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
        transformed = self.plugins.transform(record)
        assert transformed is None or isinstance(transformed, SinkRecord)
        return transformed

    async def commit(self) -> None:
        """Ask the task what is durable (`pre_commit`), then commit exactly that to the group."""
        self.context.commit_requested = False
        if not self.current:
            return
        safe: Mapping[TopicPartition, int] = await asyncio.to_thread(self.task.pre_commit, dict(self.current))
        to_commit: dict[KafkaTopicPartition, int] = {}
        for tp, offset in safe.items():
            if tp in self.context.assigned and self.committed.get(tp) != offset:
                to_commit[KafkaTopicPartition(tp.topic, tp.partition)] = offset
        if to_commit:
            await self.consumer.commit(to_commit)
            for ktp, offset in to_commit.items():
                self.committed[TopicPartition(ktp.topic, ktp.partition)] = offset
