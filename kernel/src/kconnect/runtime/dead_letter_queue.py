"""A sink connector's dead letter queue (``errors.deadletterqueue.*``, Kafka's DeadLetterQueueReporter).

Each failed record is written, as the bytes it was consumed as (key, value, headers, timestamp), to
the topic ``errors.deadletterqueue.topic.name``. With ``errors.deadletterqueue.context.headers.enable``
it also carries Kafka's ``__connect.errors.*`` headers: where the record came from, which connector
and task, which stage and class failed, and the error's class, message and stack trace.

The topic is created when missing (one partition, ``errors.deadletterqueue.topic.replication.factor``
replicas, through an admin client with the worker's admin settings and the connector's
``admin.override.*``) before the task starts; a topic that cannot be created fails the task. Writes
go through one producer (the worker's ``producer.*`` settings and the connector's ``producer.override.*``),
in report order. `report` may be called from any thread (a task's ``put`` runs in its own); it
returns a future that is done when Kafka acknowledged the write.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import traceback
from asyncio import CancelledError
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from aiokafka.errors import KafkaError

from kconnect.config.connector_keys import (
    DLQ_CONTEXT_HEADERS_ENABLE_CONFIG,
    DLQ_TOPIC_NAME_CONFIG,
    DLQ_TOPIC_REPLICATION_FACTOR_CONFIG,
)
from kconnect.errors import ConnectError
from kconnect.kafka.clients import admin_kwargs, create_producer
from kconnect.kafka.topic_admin import TopicAdmin, new_topic
from kconnect.runtime.error_handling import Failure, error_class_name

log = logging.getLogger(__name__)

HEADER_PREFIX = "__connect.errors."


@dataclass(frozen=True)
class DeadLetterQueueConfig:
    """The ``errors.deadletterqueue.*`` keys of a sink connector."""

    topic: str
    replication_factor: int = 3
    context_headers: bool = False

    @classmethod
    def from_config(cls, config: Mapping[str, str]) -> DeadLetterQueueConfig | None:
        """The DLQ of a connector config, or None when ``errors.deadletterqueue.topic.name`` is blank."""
        topic = config.get(DLQ_TOPIC_NAME_CONFIG, "").strip()
        if not topic:
            return None
        return cls(
            topic,
            int(config.get(DLQ_TOPIC_REPLICATION_FACTOR_CONFIG, "3").strip()),
            config.get(DLQ_CONTEXT_HEADERS_ENABLE_CONFIG, "false").strip().lower() == "true",
        )


def context_headers(failure: Failure, connector: str, task: int) -> list[tuple[str, bytes]]:
    """Kafka's ``__connect.errors.*`` headers describing `failure`, in Kafka's order, UTF-8 encoded."""
    message = failure.consumed
    topic, partition, offset = (
        ("", -1, -1) if message is None else (message.topic, message.partition, message.offset)
    )
    error = failure.error
    trace = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    headers = [
        ("topic", topic),
        ("partition", str(partition)),
        ("offset", str(offset)),
        ("connector.name", connector),
        ("task.id", str(task)),
        ("stage", failure.stage.value),
        ("class.name", failure.executing_class),
        ("exception.class.name", error_class_name(error)),
        ("exception.message", str(error)),
        ("exception.stacktrace", trace),
    ]
    return [(HEADER_PREFIX + name, value.encode("utf-8")) for name, value in headers]


async def ensure_dlq_topic(
    worker: Mapping[str, str], connector: Mapping[str, str], dlq: DeadLetterQueueConfig
) -> None:
    """Create the DLQ topic with one partition unless it exists (Kafka's rule); ConnectError if that fails."""
    try:
        async with TopicAdmin.connect(admin_kwargs(worker, connector)) as admin:
            if await admin.existing([dlq.topic]):
                return
            log.info("Dead letter queue topic %s does not exist; creating it", dlq.topic)
            for result in await admin.create([new_topic(dlq.topic, 1, dlq.replication_factor)]):
                if not (result.created or result.existed):
                    raise ConnectError(
                        f"Could not initialize dead letter queue with topic={dlq.topic}: {result.error}"
                    )
    except KafkaError as exc:
        raise ConnectError(f"Could not initialize dead letter queue with topic={dlq.topic}: {exc!r}") from exc


@dataclass(frozen=True)
class _Write:
    key: bytes | None
    value: bytes | None
    headers: list[tuple[str, bytes]]
    timestamp_ms: int | None
    done: concurrent.futures.Future[None]


class DeadLetterQueue:
    """The ErrorReporter that writes failed sink records to the DLQ topic; one per task run."""

    def __init__(
        self,
        dlq: DeadLetterQueueConfig,
        connector: str,
        task: int,
        worker: Mapping[str, str],
        connector_config: Mapping[str, str],
    ) -> None:
        """Nothing connects until `start`."""
        self.dlq = dlq
        self.connector = connector
        self.task = task
        self._worker = worker
        self._connector_config = connector_config
        self._producer: Any = None
        self._queue: asyncio.Queue[_Write | None] = asyncio.Queue()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._sender: asyncio.Task[None] | None = None
        #: Kafka's deadletterqueue-produce-requests / -failures.
        self.produce_requests = 0
        self.produce_failures = 0

    async def start(self) -> None:
        """Create the topic if missing, then connect the producer."""
        await ensure_dlq_topic(self._worker, self._connector_config, self.dlq)
        self._producer = create_producer(self._worker, self._connector_config)
        await self._producer.start()
        self._loop = asyncio.get_running_loop()
        self._sender = asyncio.create_task(self._send_in_order(), name=f"dlq-{self.connector}-{self.task}")

    def report(self, failure: Failure) -> concurrent.futures.Future[None] | None:
        """Queue the failed record's original bytes for the DLQ; None if there is no consumed record."""
        self.produce_requests += 1
        message = failure.consumed
        if message is None or self._loop is None:
            self.produce_failures += 1
            return None
        headers = list(message.headers or ())
        if self.dlq.context_headers:
            present = {key for key, _ in headers}
            for key, value in context_headers(failure, self.connector, self.task):
                if key in present:
                    log.error("Header already contains the '%s' key.", key)
                else:
                    headers.append((key, value))
        timestamp = message.timestamp if message.timestamp is not None and message.timestamp >= 0 else None
        done: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._loop.call_soon_threadsafe(
            self._queue.put_nowait, _Write(message.key, message.value, headers, timestamp, done)
        )
        return done

    async def _send_in_order(self) -> None:
        while (write := await self._queue.get()) is not None:
            try:
                sent = await self._producer.send(
                    self.dlq.topic,
                    value=write.value,
                    key=write.key,
                    headers=write.headers,
                    timestamp_ms=write.timestamp_ms,
                )
            except Exception as exc:
                self._failed(write.done, exc)
                continue
            sent.add_done_callback(lambda future, done=write.done: self._acknowledged(future, done))

    def _acknowledged(self, future: asyncio.Future[Any], done: concurrent.futures.Future[None]) -> None:
        error = CancelledError("the write was cancelled") if future.cancelled() else future.exception()
        if error is not None:
            self._failed(done, error)
        else:
            done.set_result(None)

    def _failed(self, done: concurrent.futures.Future[None], error: BaseException) -> None:
        self.produce_failures += 1
        log.error("Could not produce message to dead letter queue. topic=%s", self.dlq.topic, exc_info=error)
        done.set_exception(
            ConnectError(f"Could not produce message to dead letter queue. topic={self.dlq.topic}: {error!r}")
        )

    async def stop(self) -> None:
        """Send what is queued, wait for Kafka's answers, and close the producer."""
        if self._sender is not None:
            self._queue.put_nowait(None)
            await self._sender
        if self._producer is not None:
            await self._producer.stop()
