"""How a source task's records become committed: the source loop's delivery strategy.

`kconnect.runtime.source_loop.SourceLoop` moves records (poll, transform, convert, send) the same
way whatever the worker promises; what differs is when their source offsets are committed and
how the task hears of it. That is a `SourceDelivery`, chosen once when the loop is built (as
Kafka's runtime picks `WorkerSourceTask` or `ExactlyOnceWorkerSourceTask`, each with its own
answers to `AbstractWorkerSourceTask`'s hooks):

- `kconnect.runtime.at_least_once.AtLeastOnceDelivery`: offsets Kafka acknowledged go to the
  worker's offset store, periodically, by count, before a pause and at the end;
- `kconnect.runtime.transactional_delivery.TransactionalDelivery` (``exactly.once.source.support``):
  records and offsets are written in the task's producer transactions
  (`kconnect.runtime.exactly_once.SourceTransactions`); the worker's store is not asked.

Both tell the task through one `TaskCommitNotices` (``SourceTask.commit_record``,
``SourceTask.commit``) and read what Kafka answered so far from one `SendState`, which the
loop's `kconnect.runtime.poll_sender.PollSender` writes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from kconnect.records import SourceRecord
from kconnect.runtime.stall_watch import StallWatchdog
from kconnect.task import SourceTask, TransactionContext

log = logging.getLogger(__name__)

SendRecords = Callable[[list[SourceRecord]], Awaitable[None]]
"""The loop's send: transforms, converts and hands records to the producer (not yet acknowledged)."""


class SendState:
    """What Kafka answered about a task's sends so far: written by the poll sender's callbacks,
    read by the delivery strategy and the loop."""

    def __init__(self, task_id: str) -> None:
        self._task_id = task_id
        #: The first send Kafka failed that was not skipped: the task fails with it.
        self.error: BaseException | None = None
        #: Records acknowledged by Kafka or dropped before sending, since the run started
        #: (``offset.flush.records`` counts these).
        self.handled = 0

    def failed(self, error: BaseException) -> None:
        """A send failed and fails the task; the first failure is the one raised."""
        self.error = self.error or error

    def raise_failure(self) -> None:
        """Raise the send failure, if any, naming the task."""
        if self.error is not None:
            raise RuntimeError(f"Source task {self._task_id}: {self.error}") from self.error


class TaskCommitNotices:
    """Tells a source task what was committed: ``commit_record`` per record, ``commit`` per commit."""

    def __init__(self, task: SourceTask, stalls: StallWatchdog, task_id: str) -> None:
        self._task = task
        self._stalls = stalls
        self._task_id = task_id

    def record(self, record: SourceRecord, metadata: Any) -> None:
        """`SourceTask.commit_record` of `record` (metadata None: it was not sent)."""
        # Kafka logs and goes on: commit_record is a notification, the offset is Kafka's to track.
        try:
            self._task.commit_record(record, metadata)
        except Exception:
            log.exception("commit_record of %s failed", self._task_id)

    async def commit(self) -> None:
        """`SourceTask.commit` in a thread, watched for a stall, once offsets are committed."""
        with self._stalls.marking("commit() has not returned"):
            await asyncio.to_thread(self._task.commit)


class SourceDelivery(Protocol):
    """What a source loop does at each step where delivery guarantees differ.

    The loop calls `start` before the task starts, `send` with each poll's records and `idle`
    after a poll without any, `commit_due` every ``offset.flush.interval.ms``, `check_count` once
    a round, `commit` before a pause and at the end, `abandon` when sends were given up,
    `after_failure` when the run failed, and `close` last. The poll sender calls
    `record_acknowledged` and `record_dropped` (only for a task that overrides ``commit_record``).
    """

    @property
    def transaction_context(self) -> TransactionContext | None:
        """The task's `TransactionContext` (connector-defined transactions), else None."""
        ...

    @property
    def needs_records(self) -> bool:
        """Whether each record must be a `SourceRecord` (no polls as columns)."""
        ...

    @property
    def may_skip_failed_sends(self) -> bool:
        """Whether a record Kafka refused may be skipped under ``errors.tolerance=all``."""
        ...

    async def start(self) -> None:
        """Before the task starts (and after the producer did)."""
        ...

    async def send(self, records: list[SourceRecord], send: SendRecords) -> None:
        """Send a poll's records (never empty) with `send`.

        Polls as columns (`kconnect.records.SourceBatch`) do not come here: they are sent as they
        come, and only for a strategy that does not `needs_records`.
        """
        ...

    async def idle(self) -> None:
        """A poll returned no record."""
        ...

    def record_acknowledged(self, record: SourceRecord, metadata: Any) -> None:
        """Kafka acknowledged `record`; `metadata` says where it is."""
        ...

    def record_dropped(self, record: SourceRecord) -> None:
        """`record` will not be sent: a transformation dropped it, or it was skipped after an error."""
        ...

    async def commit_due(self) -> None:
        """``offset.flush.interval.ms`` passed since the last periodic commit."""
        ...

    def check_count(self) -> None:
        """Once a round: commit by count when due; raise a failed commit by count."""
        ...

    async def commit(self) -> None:
        """Before a pause and at the end: commit all that can be, waiting for sends in flight."""
        ...

    async def abandon(self) -> None:
        """Sends were given up (the task stops while Kafka does not answer, or its worker is gone)."""
        ...

    async def after_failure(self) -> None:
        """The run failed: best effort, never masking the failure."""
        ...

    async def close(self) -> None:
        """The run ends: wait for commits still running."""
        ...
