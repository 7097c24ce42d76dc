"""The source task loop: poll → transforms → converters → produce → commit what is delivered.

`SourceLoop` runs one task; executors start it through `kconnect.runtime.runner.run_task`
(inside a Spark task, with the Spark executor). It returns when the worker sets the target
state to STOPPED; it raises if the task fails, and the executor reports the traceback.

Steps of a run, and who does each:

1. Start: the producer (a transactional one fences its predecessor first), the delivery
   strategy's `start`, then `SourceTask.start`.
2. Each round while the target is STARTED: one `poll` (or `poll_batch`) in a thread; its records
   go to the `kconnect.runtime.poll_sender.PollSender`, which transforms, converts and sends
   them and acknowledges what Kafka answered; a poll without records backs off
   (`IDLE_BACKOFF_S`). Then a failed send fails the task, and commits by count and every
   ``offset.flush.interval.ms`` are offered to the strategy.
3. On a pause (`TargetFollower`): the strategy commits everything it can, waiting for sends in
   flight; the loop holds until resumed.
4. At the end: the strategy commits (or, after a failure, does what it can without masking it),
   `SourceTask.stop` is called once, then the plugins close and the producer stops.

What is committed when is the delivery strategy's (`kconnect.runtime.source_delivery`), picked
once when the loop is built: `kconnect.runtime.at_least_once.AtLeastOnceDelivery` stores
acknowledged offsets at the worker (periodically, by ``offset.flush.records``, before a pause and at
the end; after a failure, what Kafka acknowledged); under ``exactly.once.source.support=enabled``
`kconnect.runtime.transactional_delivery.TransactionalDelivery` writes records and offsets in
the producer's transactions, commits one at each boundary, a pause and the end, and aborts after a
failure. The strategy also says when the task's ``commit_record`` is called (at once, or once the
transaction committed), whether a record Kafka refused may be skipped under
``errors.tolerance=all`` (not in a transaction) and whether records must be `SourceRecord` objects.

Polls as columns: a task that overrides `SourceTask.poll_batch` is polled through it wherever
nothing needs a `SourceRecord` per record (no transformation, a strategy that does not need them,
``errors.tolerance=none``, `commit_record` not overridden). Each `SourceBatch` is converted column
by column, sent as one run and tracked as one token whose offset, the one after its last record,
is committed once Kafka acknowledged all of its records (`kconnect.runtime.poll_sender`).

Broker outages: while the broker does not answer, the producer retries (see
`kconnect.kafka.clients.DeliveryPolicy`), the loop stops polling and logs that it waits, and a
stop request still ends the task: what Kafka never acknowledged is not committed and is sent again
by the next run. A pause or the end waits for sends in flight at most ``offset.flush.timeout.ms``,
as does stopping the producer.

Stop wakes a blocked poll: `SourceTask.stop`'s contract (Kafka's SourceTask javadoc) is that it may
be called from another thread while `poll` blocks, and should make it return. So when the worker
asks the task to stop while a `poll` is in flight, the loop calls `stop` at once in another thread
of the executor's pool, then waits for that `poll` to return. Its records are still sent and
committed, as Kafka's loop sends what a poll returned before it looks at the stop flag again; no
`poll` follows, and `stop` is called once per run whichever way the run ends.

A lost worker (`TaskControl.worker_lost`: the control channel broke, e.g. the worker was
SIGKILLed) is not a stop request: the records of a poll that returns after it are not sent, nor
the batches of a poll not yet handed to the producer (the sender is halted), since no offset of
theirs can be committed and the task's successor sends them again. Kafka's task dies with its
worker; this keeps a dead worker's task from adding up to a poll's worth of duplicates.

Stalls (kconnect's extension, `kconnect.runtime.stall_watch`): a `poll` that has not returned, a
send Kafka has not taken, storing the offsets at the worker or a `commit` that has not completed,
each for ``task.stall.timeout.ms``, is reported; polls that return nothing (an idle source) are not.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from kconnect.config.connector_keys import CONNECTOR_CLASS_CONFIG
from kconnect.executor import TaskSpec
from kconnect.kafka.clients import ProducerClient
from kconnect.model import TargetState
from kconnect.plugin_host import PluginHost
from kconnect.runtime.at_least_once import AtLeastOnceDelivery
from kconnect.runtime.batch_sender import SendAbandoned
from kconnect.runtime.control import TargetFollower, TaskControl
from kconnect.runtime.error_handling import ErrorHandler
from kconnect.runtime.exactly_once import SourceTransactions, task_producer
from kconnect.runtime.poll_sender import PollSender
from kconnect.runtime.source_delivery import SendState, SourceDelivery, TaskCommitNotices
from kconnect.runtime.source_records import SourceRecordPreparer
from kconnect.runtime.stall_watch import StallWatchdog
from kconnect.runtime.submitted_records import SubmittedRecords
from kconnect.runtime.task_context import LoopOffsetReader, LoopSourceTaskContext
from kconnect.runtime.task_metrics import MetricsReporter, TaskMetrics
from kconnect.runtime.task_plugins import TaskPlugins, build_task_plugins
from kconnect.runtime.transactional_delivery import TransactionalDelivery
from kconnect.task import SourceTask

log = logging.getLogger(__name__)

T = TypeVar("T")

#: What one poll gave: how many records, and how to send them (None: nothing to send).
Polled = tuple[int, Callable[[], Awaitable[None]] | None]

#: How long to wait before polling again when `poll` returned nothing.
IDLE_BACKOFF_S = 0.05
#: How long one wait for a stop request lasts before the target is looked at again.
STOP_WATCH_S = 3600.0


def _load_task(host: PluginHost, spec: TaskSpec) -> SourceTask:
    # Only the task class of a registered connector: never an import of task.class.
    cls = host.task_class(spec.connector_config.get(CONNECTOR_CLASS_CONFIG, ""), spec.task_class)
    if not issubclass(cls, SourceTask):
        raise TypeError(f"task.class {spec.task_class} is not a SourceTask")
    return cls()


class SourceLoop:
    """Runs one source task until it is stopped; one instance per task run."""

    def __init__(
        self,
        spec: TaskSpec,
        control: TaskControl,
        host: PluginHost,
        producer: ProducerClient | None = None,
    ) -> None:
        """Build the task, its converters and transforms, its delivery strategy and its sender;
        `producer` defaults to a real aiokafka one."""
        self.spec = spec
        self.control = control
        self.plugins: TaskPlugins = build_task_plugins(host, spec.worker.props, spec.connector_config)
        self.task = _load_task(host, spec)
        #: Only a task that overrides commit_record is told of each record (Kafka calls a no-op).
        notify_commits = type(self.task).commit_record is not SourceTask.commit_record
        self.submitted = SubmittedRecords()
        self.flush_interval_s = spec.worker.offset_flush_interval_ms / 1000
        self.flush_timeout_s = spec.worker.offset_flush_timeout_ms / 1000
        self.errors = ErrorHandler.for_connector(str(spec.id), spec.connector_config)
        self.preparer = SourceRecordPreparer(self.plugins, self.errors)
        self.metrics = TaskMetrics("source", self.errors.counts)
        self.metrics.active = lambda: self.submitted.pending
        self.reporter = MetricsReporter(self.metrics, control.report_metrics)
        self.stalls = StallWatchdog(spec, control)
        self.sends = SendState(str(spec.id))
        self.producer, transactions = task_producer(spec, producer)
        self.delivery = self._delivery(transactions)
        self.sender = PollSender(
            spec,
            control,
            self.producer,
            self.preparer,
            self.errors,
            self.submitted,
            self.sends,
            self.delivery,
            stalls=self.stalls,
            metrics=self.metrics,
            notify_commits=notify_commits,
        )
        #: Polled as columns (`SourceTask.poll_batch`, overridden) where nothing needs a record
        #: object per record: transformations, a strategy's transactions, `commit_record` and the
        #: per-record reports of ``errors.tolerance=all`` all do.
        polls_batches = (
            type(self.task).poll_batch is not SourceTask.poll_batch
            and not self.plugins.transforms
            and not self.delivery.needs_records
            and not notify_commits
            and not self.errors.policy.tolerate_all
        )
        self._next_poll = self._poll_batches if polls_batches else self._poll_records
        #: The one `SourceTask.stop` call of this run, once made (see `_stop_task`).
        self._stop_call: asyncio.Future[None] | None = None
        #: A `poll` call is running in its thread.
        self._polling = False

    def _delivery(self, transactions: SourceTransactions | None) -> SourceDelivery:
        """The delivery strategy: transactional under exactly-once support, else at least once."""
        notices = TaskCommitNotices(self.task, self.stalls, str(self.spec.id))
        if transactions is not None:
            return TransactionalDelivery(
                transactions,
                self.control,
                self.submitted,
                self.sends,
                notices,
                self.stalls,
                abort_timeout_s=self.flush_timeout_s,
            )
        return AtLeastOnceDelivery(
            self.producer,
            self.control,
            self.submitted,
            self.sends,
            notices,
            self.stalls,
            self.metrics,
            str(self.spec.id),
            flush_timeout_s=self.flush_timeout_s,
            flush_records=self.spec.worker.offset_flush_records,
        )

    @property
    def records_sent(self) -> int:
        """Records handed to Kafka during this run."""
        return self.sender.records_sent

    async def run(self) -> None:
        """Start the task, move records until STOPPED, then commit and stop everything.

        On a failure the delivery strategy does what it can (at least once: commit what Kafka
        acknowledged; in a transaction: abort it), then the failure is raised for the executor.
        """
        loop = asyncio.get_running_loop()
        reader = LoopOffsetReader(self.control.read_source_offsets, loop)
        context = LoopSourceTaskContext(self.spec.task_config, reader, self.delivery.transaction_context)
        self.task.initialize(context)
        # Before the task reads its offsets: a transactional producer's start fences its predecessor
        # and aborts the transaction it left open, so the offsets read are final.
        await self.producer.start()
        try:
            await self.delivery.start()
            await asyncio.to_thread(self.task.start, self.spec.task_config)
            waker = asyncio.create_task(self._wake_poll_on_stop(), name=f"kconnect-wake-poll-{self.spec.id}")
            self.stalls.start()
            try:
                await self._move_records()
                await self.delivery.commit()
            except Exception:
                await self.delivery.after_failure()
                raise
            finally:
                waker.cancel()
                await self.delivery.close()
                self.stalls.stop()
                await self._stop_task()
        finally:
            self.plugins.close()
            await self._stop_producer()
            await self.reporter.final_report()
        log.info("Source task %s stopped after sending %d records", self.spec.id, self.records_sent)

    async def _move_records(self) -> None:
        next_commit = time.monotonic() + self.flush_interval_s
        follower = TargetFollower(self.control)
        while await follower.proceed(self.delivery.commit):
            started = time.monotonic()
            count, send = await self._next_poll()
            if self.control.worker_lost:
                log.warning(
                    "Source task %s: its worker is gone; the %d records of the last poll are not sent",
                    self.spec.id,
                    count,
                )
                return
            if count:
                self.metrics.records_in += count
                self.metrics.batch(started, count)
            if send is not None:
                try:
                    await send()
                except SendAbandoned:
                    if self.control.worker_lost:
                        log.warning("Source task %s: its worker is gone; the rest is not sent", self.spec.id)
                    else:
                        log.warning("Source task %s stops while Kafka does not answer", self.spec.id)
                    await self.delivery.abandon()
                    return
            if not count:
                await self.delivery.idle()
                await self.control.wait_for_target_change(TargetState.STARTED, IDLE_BACKOFF_S)
            self.sends.raise_failure()
            self.delivery.check_count()
            if time.monotonic() >= next_commit:
                await self.delivery.commit_due()
                next_commit = time.monotonic() + self.flush_interval_s
            await self.reporter.maybe_report()

    async def _poll_records(self) -> Polled:
        """One `poll`; its records are sent as the delivery strategy says."""
        records = await self._poll(self.task.poll)
        if not records:
            return 0, None
        return len(records), lambda: self.delivery.send(records, self.sender.send_records)

    async def _poll_batches(self) -> Polled:
        """One `poll_batch`; a batch without records may still carry an offset to commit."""
        batches = await self._poll(self.task.poll_batch)
        if not batches:
            return 0, None
        return sum(map(len, batches)), lambda: self.sender.send_batches(batches)

    async def _poll(self, poll: Callable[[], T]) -> T:
        """One `poll` (or `poll_batch`) in a thread; `_wake_poll_on_stop` may call `stop` meanwhile."""
        self._polling = True
        try:
            with self.stalls.marking("poll() has not returned"):
                return await asyncio.to_thread(poll)
        finally:
            self._polling = False

    async def _wake_poll_on_stop(self) -> None:
        """Runs beside the loop: once the target is STOPPED, call `stop` if a `poll` is blocked.

        A pause does not interrupt a poll (Kafka's does not either): the loop pauses once it returns.
        A stop that finds no `poll` running leaves `stop` to the end of the run.
        """
        while (target := self.control.target) is not TargetState.STOPPED:
            await self.control.wait_for_target_change(target, STOP_WATCH_S)
        if self._polling:
            log.info(
                "Source task %s: stop requested while poll() runs; calling stop() to wake it", self.spec.id
            )
            self._stop_task()

    def _stop_task(self) -> asyncio.Future[None]:
        """`SourceTask.stop` in a thread, called once per run: later callers share that call.

        Called when a stop request finds `poll` blocked (without waiting: `poll` is to return
        first) and when the run ends (waiting for it, before the producer and plugins close).
        """
        if self._stop_call is None:
            self._stop_call = asyncio.ensure_future(asyncio.to_thread(self.task.stop))
        return self._stop_call

    async def _stop_producer(self) -> None:
        """Close the producer; give up after ``offset.flush.timeout.ms`` if the broker does not answer."""
        try:
            await asyncio.wait_for(self.producer.stop(), self.flush_timeout_s)
        except asyncio.TimeoutError:
            log.warning("Source task %s closed its producer with batches Kafka never answered", self.spec.id)
