"""A topic read from its beginning into a callback, plus a producer to it (Kafka's KafkaBasedLog).

Each Kafka-backed store owns one `KafkaBasedLog`. The log assigns itself every partition of its
topic (no consumer group), reads from the beginning, and hands every record, in partition order,
to the store's `on_record` callback from one background task. `read_to_end` asks the broker for
the end offsets and returns once the callback has seen everything before them: after it, the
store reflects every write acknowledged before the call, by any worker. Writes go through
`send` (waits for the broker's acknowledgement, acks=all) or `send_nowait` (fire and forget,
for statuses). Failures raise StoreError naming the topic.

The end offsets come from a client of their own (Kafka's log asks its admin client), not from the
reading consumer: a broker answers one request of a connection at a time, so on the reader's
connection the question would wait behind the fetch the reader keeps waiting at the broker (up to
its ``fetch.max.wait.ms``, half a second), and every write, which reads to the end first, with it.

A fetch the broker refuses (the topic's Read denied by an ACL, say) does not end the reader: as
Kafka's log does, it logs the error and fetches again (every `READ_RETRY_BACKOFF_S`) until the
topic can be read; meanwhile `read_to_end` raises the error, and the store's last state stays.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.errors import KafkaError
from aiokafka.structs import TopicPartition

from kconnect.config.client_properties import ClientKind
from kconnect.kafka.clients import broker_unreachable, internal_kwargs
from kconnect.storage.base import StoreError, StoreUnavailableError

log = logging.getLogger(__name__)

READ_WRITE_TIMEOUT_S = 30.0
"""How long a write or a read to the end may take (Kafka's READ_WRITE_TOTAL_TIMEOUT_MS)."""

READ_RETRY_BACKOFF_S = 1.0
"""How long the reader waits before it fetches again after the broker refused a fetch."""

RecordCallback = Callable[[Any], None]
"""Called with each aiokafka ConsumerRecord (``key``/``value`` bytes or None, ``offset``), in order."""


class KafkaBasedLog:
    """One internal topic: a background reader feeding `on_record`, and a producer writing to it."""

    def __init__(
        self,
        topic: str,
        worker_props: Mapping[str, str],
        on_record: RecordCallback,
        *,
        client_id: str,
        what: str,
        read_committed: bool = False,
    ) -> None:
        """Read `topic` into `on_record`; with `read_committed`, only committed transactions' records
        (the offsets topic under exactly-once source support, which tasks write in transactions)."""
        self.topic = topic
        self._what = what
        self._on_record = on_record
        # The worker's top-level client keys (security.protocol, sasl.*, ssl.*...), as Kafka's stores use.
        producer = internal_kwargs(worker_props, ClientKind.PRODUCER)
        producer.update(client_id=client_id, acks="all", linger_ms=0, enable_idempotence=False)
        consumer = {
            "max_poll_records": 4096,
            "metadata_max_age_ms": 3000,
            **internal_kwargs(worker_props, ClientKind.CONSUMER),
        }
        consumer.update(
            group_id=None, client_id=client_id, auto_offset_reset="earliest", enable_auto_commit=False
        )
        if read_committed:
            consumer["isolation_level"] = "read_committed"
        self._producer_kwargs, self._consumer_kwargs = producer, consumer
        self._ends_kwargs = {**consumer, "client_id": f"{client_id}-end-offsets"}
        self._producer: AIOKafkaProducer | None = None
        self._consumer: AIOKafkaConsumer | None = None
        #: Asks the end offsets, on a connection no fetch waits on (see the module's doc).
        self._ends: AIOKafkaConsumer | None = None
        self._partitions: list[TopicPartition] = []
        self._reader: asyncio.Task[None] | None = None
        self._advanced = asyncio.Event()  # set (then replaced) after every fetch, and when reading stops
        self._failure: BaseException | None = None  # why the reader stopped
        self._fetch_error: BaseException | None = None  # why the last fetch failed (None if it worked)
        # Hands records to the producer one caller at a time (FIFO), so writes keep their call order.
        self._send_lock = asyncio.Lock()
        self._unacknowledged: set[asyncio.Future[None]] = set()  # `send_nowait` writes in flight

    def _error(self, doing: str, exc: BaseException) -> StoreError:
        message = f"topic {self.topic} ({self._what}): {doing} failed: {exc!r}"
        if broker_unreachable(exc):
            return StoreUnavailableError(message)
        return StoreError(message)

    @property
    def partition_count(self) -> int:
        """How many partitions the topic has (known after `start`)."""
        return len(self._partitions)

    async def start(self) -> None:
        """Connect, assign every partition from the beginning, start reading, then `read_to_end`."""
        # Clients are made here, on the running loop, so a store that never starts leaves none open.
        self._producer = producer = AIOKafkaProducer(**self._producer_kwargs)
        self._consumer = consumer = AIOKafkaConsumer(**self._consumer_kwargs)
        self._ends = ends = AIOKafkaConsumer(**self._ends_kwargs)
        self._failure = self._fetch_error = None
        try:
            await producer.start()
            await consumer.start()
            await ends.start()
            numbers = await producer.partitions_for(self.topic)
            self._partitions = [TopicPartition(self.topic, p) for p in sorted(numbers)]
            consumer.assign(self._partitions)
            await consumer.seek_to_beginning(*self._partitions)
            self._reader = asyncio.create_task(self._read(consumer), name=f"kconnect-log-{self.topic}")
            self._reader.add_done_callback(self._reader_done)
            await self.read_to_end()
        except BaseException as exc:
            await self.stop()
            if isinstance(exc, KafkaError):
                raise self._error("starting", exc) from exc
            raise

    async def flush(self) -> None:
        """Wait until every `send_nowait` write so far was acknowledged or failed (Kafka's flush)."""
        if self._unacknowledged:
            await asyncio.wait(set(self._unacknowledged), timeout=READ_WRITE_TIMEOUT_S)

    async def stop(self) -> None:
        """Flush `send_nowait` writes, stop reading and close both clients (idempotent)."""
        await self.flush()
        if self._reader is not None:
            self._reader.cancel()
            await asyncio.gather(self._reader, return_exceptions=True)
            self._reader = None
        if self._consumer is not None:
            await self._consumer.stop()
            self._consumer = None
        if self._ends is not None:
            await self._ends.stop()
            self._ends = None
        if self._producer is not None:
            await self._producer.stop()
            self._producer = None

    async def _read(self, consumer: AIOKafkaConsumer) -> None:
        while True:
            try:
                batches = await consumer.getmany(timeout_ms=500)
            except KafkaError as exc:
                await self._fetch_failed(exc)
                continue
            if self._fetch_error is not None:
                log.info("Reading topic %s (%s) again", self.topic, self._what)
                self._fetch_error = None
            for records in batches.values():
                for record in records:
                    try:
                        self._on_record(record)
                    except Exception:  # one bad record must not stop the log, as in Kafka
                        log.exception("Unexpected error in the callback of topic %s", self.topic)
            self._signal()

    async def _fetch_failed(self, exc: KafkaError) -> None:
        if self._fetch_error is None:
            log.error(
                "Error reading topic %s (%s), fetching again until it works: %r", self.topic, self._what, exc
            )
        self._fetch_error = exc
        self._signal()  # a `read_to_end` under way raises it instead of waiting out its timeout
        await asyncio.sleep(READ_RETRY_BACKOFF_S)

    def _signal(self) -> None:
        advanced, self._advanced = self._advanced, asyncio.Event()
        advanced.set()

    def _reader_done(self, task: asyncio.Task[None]) -> None:
        self._failure = asyncio.CancelledError() if task.cancelled() else task.exception()
        if not task.cancelled() and self._failure is not None:
            log.error("Reading topic %s (%s) stopped: %r", self.topic, self._what, self._failure)
        self._signal()  # waiters must not wait for a reader that is gone

    async def read_to_end(self, timeout_s: float = READ_WRITE_TIMEOUT_S) -> None:
        """Return once every record written before this call was passed to `on_record`.

        StoreError naming the topic if the end offsets cannot be read, a fetch made meanwhile
        failed, the reader stopped, or the end is not reached within `timeout_s`.
        """
        try:
            await asyncio.wait_for(self._wait_for_end(), timeout_s)
        except asyncio.TimeoutError:
            raise StoreError(
                f"topic {self.topic} ({self._what}): not read to the end within {timeout_s:g} s"
            ) from None
        except KafkaError as exc:
            raise self._error("reading to the end", exc) from exc

    async def _wait_for_end(self) -> None:
        consumer, asker = self._consumer, self._ends
        if self._reader is None or consumer is None or asker is None:
            raise StoreError(f"topic {self.topic} ({self._what}): the log is not started")
        ends = await asker.end_offsets(self._partitions)
        while True:
            if self._failure is not None:
                raise self._error("reading", self._failure)
            behind = [tp for tp in self._partitions if await consumer.position(tp) < ends[tp]]
            if not behind:
                return
            await self._advanced.wait()
            if self._fetch_error is not None:  # a fetch made after the call began
                raise self._error("reading", self._fetch_error)

    async def send(self, key: bytes | str, value: bytes | None) -> None:
        """Write one record and wait for the broker's acknowledgement; StoreError naming the topic."""
        await self.send_all([(key, value)])

    async def send_all(self, records: Sequence[tuple[bytes | str, bytes | None]]) -> None:
        """Write records in order and wait until the broker acknowledged every one."""
        producer = self._producer
        if producer is None:
            raise StoreError(f"topic {self.topic} ({self._what}): the log is not started")
        try:
            async with self._send_lock:
                futures = [await producer.send(self.topic, value, key=_bytes(key)) for key, value in records]
            await asyncio.wait_for(asyncio.gather(*futures), READ_WRITE_TIMEOUT_S)
        except asyncio.TimeoutError:
            raise StoreUnavailableError(
                f"topic {self.topic} ({self._what}): write not acknowledged within {READ_WRITE_TIMEOUT_S:g} s"
            ) from None
        except KafkaError as exc:
            raise self._error("writing", exc) from exc

    def send_nowait(self, key: bytes | str, value: bytes | None) -> None:
        """Write one record without waiting; a failure is logged (status writes, as in Kafka)."""
        task = asyncio.ensure_future(self.send(key, value))
        self._unacknowledged.add(task)
        task.add_done_callback(self._log_send_failure)

    def _log_send_failure(self, task: asyncio.Future[None]) -> None:
        self._unacknowledged.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("Failed to write to topic %s: %s", self.topic, task.exception())


def _bytes(key: bytes | str) -> bytes:
    return key.encode("utf-8") if isinstance(key, str) else key
