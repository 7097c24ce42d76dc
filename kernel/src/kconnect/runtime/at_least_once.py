"""At-least-once source delivery: acknowledged offsets go to the worker's offset store.

Commit rule (nothing lost): a source offset is sent to the worker's offset store only after Kafka
acknowledged that record and every earlier record of its source partition
(`kconnect.runtime.submitted_records`), every ``offset.flush.interval.ms``, on every pause and
when the loop ends. A record a transformation dropped, or one skipped under
``errors.tolerance=all``, counts as acknowledged at once (Kafka's rule), so a source partition
whose newest records are all filtered out still advances. A record whose send failed is never
acknowledged, so neither it nor any later record of its partition is committed.

Commits by count (kconnect's ``offset.flush.records``, `kconnect.config.offset_flush_keys`): once
that many records were acknowledged since the last commit, the acknowledged offsets are also
stored in the background while records keep moving, so a crash replays about that many records at
most however fast the task runs. One store runs at a time (a periodic commit, a pause or the end
waits for one in progress); a store that fails for another reason than an unreachable offset store
fails the task, as a periodic commit's does.

Broker outages: the periodic commit does not wait for sends in flight (it stores what is
acknowledged so far, as Kafka's does); a pause or the end waits for them at most
``offset.flush.timeout.ms``. When the worker's offset store is unreachable, the offsets are kept
and stored with the next commit. After a failure, what Kafka acknowledged is still stored.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping
from typing import Any

from kconnect.errors import RetriableError
from kconnect.kafka.clients import ProducerClient
from kconnect.records import SourceRecord
from kconnect.runtime.control import TaskControl
from kconnect.runtime.source_delivery import SendRecords, SendState, TaskCommitNotices
from kconnect.runtime.stall_watch import StallWatchdog
from kconnect.runtime.submitted_records import SubmittedRecords, partition_key
from kconnect.runtime.task_metrics import TaskMetrics
from kconnect.task import TransactionContext

log = logging.getLogger(__name__)


class AtLeastOnceDelivery:
    """The `kconnect.runtime.source_delivery.SourceDelivery` of a task without exactly-once support
    (Kafka's `WorkerSourceTask`)."""

    transaction_context: TransactionContext | None = None
    needs_records = False
    may_skip_failed_sends = True

    def __init__(
        self,
        producer: ProducerClient,
        control: TaskControl,
        submitted: SubmittedRecords,
        sends: SendState,
        notices: TaskCommitNotices,
        stalls: StallWatchdog,
        metrics: TaskMetrics,
        task_id: str,
        *,
        flush_timeout_s: float,
        flush_records: int,
    ) -> None:
        """`flush_timeout_s`: ``offset.flush.timeout.ms``; `flush_records`: ``offset.flush.records``
        (0: no commits by count)."""
        self._producer = producer
        self._control = control
        self._submitted = submitted
        self._sends = sends
        self._notices = notices
        self._stalls = stalls
        self._metrics = metrics
        self._task_id = task_id
        self._flush_timeout_s = flush_timeout_s
        self._flush_records = flush_records
        #: Acknowledged offsets the worker could not store yet, by source partition.
        self._unstored: dict[str, tuple[Mapping[str, Any], Mapping[str, Any] | None]] = {}
        #: `SendState.handled` when the offsets were last taken for storing.
        self._handled_at_commit = 0
        #: Held while offsets are stored: a commit by count runs beside the loop.
        self._store_lock = asyncio.Lock()
        #: The commit by count in progress, if any (``offset.flush.records``).
        self._count_commit: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Nothing to prepare: the worker's offset store is the worker's."""

    async def send(self, records: list[SourceRecord], send: SendRecords) -> None:
        """Send the records as they come."""
        await send(records)

    async def idle(self) -> None:
        """Nothing to do: commits follow the clock and the count."""

    def record_acknowledged(self, record: SourceRecord, metadata: Any) -> None:
        """Tell the task at once (Kafka's `WorkerSourceTask` does in the producer's callback)."""
        self._notices.record(record, metadata)

    def record_dropped(self, record: SourceRecord) -> None:
        """Tell the task at once, with no metadata."""
        self._notices.record(record, None)

    async def commit_due(self) -> None:
        """Store what is acknowledged so far, without waiting for sends in flight."""
        self._sends.raise_failure()
        await self._store_acknowledged()

    async def commit(self) -> None:
        """Give sends in flight up to ``offset.flush.timeout.ms``, fail if Kafka rejected a record,
        then store every acknowledged offset."""
        await self._flush()
        self._sends.raise_failure()
        await self._store_acknowledged()

    async def abandon(self) -> None:
        """Nothing to undo: what Kafka did not acknowledge is not committed."""

    async def after_failure(self) -> None:
        """Best effort: store what Kafka acknowledged (it is safe: Kafka has those records); a
        failure to is logged, never masking the task's own."""
        try:
            await self._flush()
            await self._store_acknowledged()
        except Exception:
            log.warning(
                "Could not commit the acknowledged offsets of failed task %s", self._task_id, exc_info=True
            )

    def check_count(self) -> None:
        """Start a commit by count once ``offset.flush.records`` records were acknowledged since the
        last one, unless one runs; raise the failure of one that ended in error."""
        running = self._count_commit
        if running is not None and running.done():
            self._count_commit = None
            running.result()
        if (
            self._flush_records
            and self._count_commit is None
            and self._sends.handled - self._handled_at_commit >= self._flush_records
        ):
            self._count_commit = asyncio.create_task(
                self._store_acknowledged(), name=f"kconnect-offset-commit-{self._task_id}"
            )

    async def close(self) -> None:
        """Wait for a commit by count in progress; its failure is logged (the run already ends)."""
        running, self._count_commit = self._count_commit, None
        if running is None:
            return
        try:
            await running
        except Exception:
            log.warning("Source task %s: an offset commit by count failed", self._task_id, exc_info=True)

    async def _flush(self) -> None:
        """Wait at most ``offset.flush.timeout.ms`` for the sends in flight to be answered."""
        if not self._submitted.pending:
            return
        try:
            await asyncio.wait_for(self._producer.flush(), self._flush_timeout_s)
        except asyncio.TimeoutError:
            log.warning(
                "Source task %s: %d records were not acknowledged within offset.flush.timeout.ms; "
                "their offsets are committed later, or they are sent again by the next run",
                self._task_id,
                self._submitted.pending,
            )

    async def _store_acknowledged(self) -> None:
        """Have the worker store the acknowledged offsets (and any it could not store last time).

        When the worker's offset store is unreachable (RetriableError, e.g. its Kafka topic during
        a broker outage) the offsets are kept and sent again with the next commit, as Kafka logs a
        failed offset flush and tries again; any other store error fails the task. One store at a
        time: a commit by count may be running.
        """
        async with self._store_lock:
            await self._store_locked()

    async def _store_locked(self) -> None:
        self._handled_at_commit = self._sends.handled
        for partition, offset in self._submitted.committable():
            self._unstored[partition_key(partition)] = (partition, offset)
        if not self._unstored:
            return
        offsets = list(self._unstored.values())
        started = time.monotonic()
        try:
            with self._stalls.marking("the worker has not stored the source offsets"):
                await self._control.commit_source_offsets(offsets)
        except RetriableError as exc:
            self._metrics.commit(started, ok=False)
            log.warning(
                "Source task %s could not store its offsets (%s); trying again at the next commit",
                self._task_id,
                exc,
            )
            return
        self._metrics.commit(started, ok=True)
        self._unstored.clear()
        await self._notices.commit()
