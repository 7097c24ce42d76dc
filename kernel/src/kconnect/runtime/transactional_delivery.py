"""Exactly-once source delivery as the source loop sees it: records and offsets in transactions.

Under ``exactly.once.source.support=enabled`` (a distributed worker) the task's producer is
transactional and `kconnect.runtime.exactly_once.SourceTransactions` writes each transaction's
records and source offsets together, ending transactions where ``transaction.boundary`` says
(Kafka's `ExactlyOnceWorkerSourceTask` with its `TransactionBoundaryManager`). So here:

- the worker's offset store is never asked to store offsets: no periodic commit, none by count;
- ``SourceTask.commit_record`` of a record (sent or dropped) waits until its transaction
  committed, then ``SourceTask.commit`` follows;
- a pause or the end commits the open transaction; sends given up and failures abort it;
- each record is needed as a `SourceRecord` (its offset joins the transaction), and a record
  Kafka refused cannot be skipped: it dooms the whole transaction.
"""

from __future__ import annotations

from typing import Any

from kconnect.records import SourceRecord
from kconnect.runtime.control import TaskControl
from kconnect.runtime.exactly_once import SourceTransactions
from kconnect.runtime.source_delivery import SendRecords, SendState, TaskCommitNotices
from kconnect.runtime.stall_watch import StallWatchdog
from kconnect.runtime.submitted_records import SubmittedRecords
from kconnect.task import TransactionContext


class TransactionalDelivery:
    """The `kconnect.runtime.source_delivery.SourceDelivery` of a task with exactly-once support."""

    needs_records = True
    may_skip_failed_sends = False

    def __init__(
        self,
        transactions: SourceTransactions,
        control: TaskControl,
        submitted: SubmittedRecords,
        sends: SendState,
        notices: TaskCommitNotices,
        stalls: StallWatchdog,
        *,
        abort_timeout_s: float,
    ) -> None:
        """`abort_timeout_s` (``offset.flush.timeout.ms``): how long an abort after a failure may wait."""
        self._transactions = transactions
        self._control = control
        self._submitted = submitted
        self._sends = sends
        self._notices = notices
        self._stalls = stalls
        self._abort_timeout_s = abort_timeout_s
        #: Records of the open transaction Kafka has (or that were dropped), for `commit_record`
        #: once it commits.
        self._in_transaction: list[tuple[SourceRecord, Any]] = []

    @property
    def transaction_context(self) -> TransactionContext | None:
        """The task's context under ``transaction.boundary=connector``, else None."""
        return self._transactions.context

    async def start(self) -> None:
        """Have the worker open (and create) the connector's own offsets topic before the first
        transaction writes to it, as Kafka's task starts its offset store."""
        if self._transactions.settings.worker_offsets_topic is not None:
            await self._control.read_source_offsets([])

    async def send(self, records: list[SourceRecord], send: SendRecords) -> None:
        """Send the records in the open transaction, ending it where the boundary says."""
        if await self._transactions.dispatch(records, send):
            await self._committed()

    async def idle(self) -> None:
        """A poll without records may still end a transaction (by interval, or the task's request)."""
        if await self._transactions.poll_done():
            await self._committed()

    def record_acknowledged(self, record: SourceRecord, metadata: Any) -> None:
        """Tell the task once the transaction committed (Kafka's exactly-once task does then)."""
        self._in_transaction.append((record, metadata))

    def record_dropped(self, record: SourceRecord) -> None:
        """As `record_acknowledged`, with no metadata."""
        self._in_transaction.append((record, None))

    async def commit_due(self) -> None:
        """Nothing: transactions end at their boundaries."""

    def check_count(self) -> None:
        """Nothing: transactions decide what is committed."""

    async def commit(self) -> None:
        """Commit the open transaction (a pause or the end is a boundary)."""
        with self._stalls.marking("the producer transaction's commit has not completed"):
            committed = await self._transactions.commit()
        if committed:
            await self._committed()

    async def abandon(self) -> None:
        """Abort the open transaction: none of its records becomes visible."""
        await self._transactions.abort(self._abort_timeout_s)

    async def after_failure(self) -> None:
        """Abort the open transaction instead of committing what was acknowledged."""
        await self._transactions.abort(self._abort_timeout_s)

    async def close(self) -> None:
        """Nothing runs beside the loop."""

    async def _committed(self) -> None:
        """A transaction committed: its records are acknowledged, so forget them and tell the task."""
        self._sends.raise_failure()
        self._submitted.committable()
        done, self._in_transaction = self._in_transaction, []
        for record, metadata in done:
            self._notices.record(record, metadata)
        await self._notices.commit()
