"""The source task loop: poll → transforms → converters → produce → commit acknowledged offsets.

`SourceLoop` runs one task; executors start it through `kconnect.runtime.runner.run_task`
(inside a Spark task, with the Spark executor). It returns when the worker sets the target
state to STOPPED; it raises if the task fails, and the executor reports the traceback.

Commit rule (at-least-once, nothing lost): a source offset is sent to the worker's offset store
only after Kafka acknowledged that record and every earlier record of its source partition, every
``offset.flush.interval.ms``, on every pause and when the loop ends. A record a transformation
dropped, or one skipped under ``errors.tolerance=all``, counts as acknowledged at once (Kafka's
rule), so a source partition whose newest records are all filtered out still advances. A record
whose send failed is never acknowledged, so neither it nor any later record of its partition is
committed.

Commits by count (kconnect's ``offset.flush.records``, `kconnect.config.offset_flush_keys`): once
that many records were acknowledged since the last commit, the acknowledged offsets are also
stored in the background while records keep moving, so a crash replays about that many records at
most however fast the task runs. One store runs at a time (a periodic commit, a pause or the end
waits for one in progress); a store that fails for another reason than an unreachable offset store
fails the task, as a periodic commit's does. Not under exactly-once support: there transactions
decide what is committed.

Polls as columns: a task that overrides `SourceTask.poll_batch` is polled through it wherever
nothing needs a `SourceRecord` per record (no transformation, no exactly-once support,
``errors.tolerance=none``, `commit_record` not overridden). Each `SourceBatch` is converted column
by column, sent as one run (`BatchSender.send_runs`) and tracked as one `SubmittedRecord` whose
offset, the one after its last record, is committed once Kafka acknowledged all of its records.

Broker outages: the periodic commit does not wait for sends in flight (it stores what is
acknowledged so far, as Kafka's does); a pause or the end of the loop waits for them at most
``offset.flush.timeout.ms``. While the broker does not answer, the producer retries (see
`kconnect.kafka.clients.DeliveryPolicy`), the loop stops polling and logs that it waits, and a stop request
still ends the task: what Kafka never acknowledged is not committed and is sent again by the next
run.

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

Exactly once (``exactly.once.source.support=enabled``, distributed): the producer is transactional
and `kconnect.runtime.exactly_once.SourceTransactions` writes each transaction's records and
source offsets together; the worker's offset store is not asked to store them. A failure aborts
the open transaction instead of committing what was acknowledged.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from kconnect.config.connector_keys import CONNECTOR_CLASS_CONFIG
from kconnect.errors import RetriableError
from kconnect.executor import TaskSpec
from kconnect.kafka.clients import ProducerClient, delivery_policy
from kconnect.model import TargetState
from kconnect.plugin_host import PluginHost
from kconnect.records import SourceBatch, SourceRecord
from kconnect.runtime.batch_sender import BatchSender, OutgoingRecord, OutgoingRun, SendAbandoned, Span
from kconnect.runtime.control import ActiveTopics, TargetFollower, TaskControl
from kconnect.runtime.error_handling import ErrorHandler, Stage
from kconnect.runtime.exactly_once import task_producer
from kconnect.runtime.source_records import Prepared, SourceRecordPreparer
from kconnect.runtime.stall_watch import StallWatchdog, count_records
from kconnect.runtime.submitted_records import SubmittedRecords, partition_key
from kconnect.runtime.task_context import LoopOffsetReader, LoopSourceTaskContext
from kconnect.runtime.task_metrics import MetricsReporter, TaskMetrics
from kconnect.runtime.task_plugins import TaskPlugins, build_task_plugins
from kconnect.runtime.topic_creation import TopicCreation
from kconnect.task import SourceTask

log = logging.getLogger(__name__)

T = TypeVar("T")

#: The class Kafka names for a failed send (stage KAFKA_PRODUCE) in error reports.
PRODUCER_STAGE_CLASS = "org.apache.kafka.connect.runtime.WorkerSourceTask"

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
        """Build the task, its converters and transforms; `producer` defaults to a real aiokafka one."""
        self.spec = spec
        self.control = control
        self.plugins: TaskPlugins = build_task_plugins(host, spec.worker.props, spec.connector_config)
        self.task = _load_task(host, spec)
        #: Only a task that overrides commit_record is told of each record (Kafka calls a no-op).
        self._notify_commits = type(self.task).commit_record is not SourceTask.commit_record
        self.submitted = SubmittedRecords()
        self.flush_interval_s = spec.worker.offset_flush_interval_ms / 1000
        self.flush_timeout_s = spec.worker.offset_flush_timeout_ms / 1000
        #: ``offset.flush.records``: acknowledged records that start a commit in the background; 0: off.
        self.flush_records = spec.worker.offset_flush_records
        self.errors = ErrorHandler.for_connector(str(spec.id), spec.connector_config)
        self.preparer = SourceRecordPreparer(self.plugins, self.errors)
        #: A retry may sleep: then records are prepared off the event loop, which keeps sending.
        self._convert_in_thread = self.errors.policy.retries
        self.metrics = TaskMetrics("source", self.errors.counts)
        self.metrics.active = lambda: self.submitted.pending
        self.reporter = MetricsReporter(self.metrics, control.report_metrics)
        self.stalls = StallWatchdog(spec, control)
        #: `transactions`: the task's transactions under exactly-once support; None: at-least-once.
        self.producer, self.transactions = task_producer(spec, producer)
        #: Polled as columns (`SourceTask.poll_batch`, overridden) where nothing needs a record
        #: object per record: transformations, transactions, `commit_record` and the per-record
        #: reports of ``errors.tolerance=all`` all do.
        self._polls_batches = (
            type(self.task).poll_batch is not SourceTask.poll_batch
            and not self.plugins.transforms
            and self.transactions is None
            and not self._notify_commits
            and not self.errors.policy.tolerate_all
        )
        self.sender = BatchSender(
            self.producer,
            self._on_ack,
            self._on_send_error,
            policy=delivery_policy(spec.worker.props, spec.connector_config),
            stopping=lambda: control.target is TargetState.STOPPED,
            halted=lambda: control.worker_lost,
            name=f"Source task {spec.id}",
        )
        self.topics = ActiveTopics(control)
        self.topic_creation = TopicCreation.for_task(
            spec.worker,
            spec.connector_config,
            stopping=lambda: control.target is TargetState.STOPPED,
            task=f"Source task {spec.id}",
        )
        self.send_error: BaseException | None = None
        self.records_sent = 0
        #: The one `SourceTask.stop` call of this run, once made (see `_stop_task`).
        self._stop_call: asyncio.Future[None] | None = None
        #: A `poll` call is running in its thread.
        self._polling = False
        #: Records of the open transaction Kafka has, for `commit_record` once it commits.
        self._in_transaction: list[tuple[SourceRecord, Any]] = []
        #: Acknowledged offsets the worker could not store yet, by source partition.
        self._unstored: dict[str, tuple[Mapping[str, Any], Mapping[str, Any] | None]] = {}
        #: Records acknowledged (or dropped) since the offsets were last taken for storing.
        self._acked_since_commit = 0
        #: Held while offsets are stored: a commit by count runs beside the loop.
        self._store_lock = asyncio.Lock()
        #: The commit by count in progress, if any (`offset.flush.records`).
        self._count_commit: asyncio.Task[None] | None = None

    async def run(self) -> None:
        """Start the task, move records until STOPPED, then commit and stop everything.

        On a failure the acknowledged offsets are still committed (they are safe: Kafka has those
        records), then the failure is raised for the executor to report.
        """
        loop = asyncio.get_running_loop()
        reader = LoopOffsetReader(self.control.read_source_offsets, loop)
        transaction_context = self.transactions.context if self.transactions else None
        self.task.initialize(LoopSourceTaskContext(self.spec.task_config, reader, transaction_context))
        # Before the task reads its offsets: a transactional producer's start fences its predecessor
        # and aborts the transaction it left open, so the offsets read are final.
        await self.producer.start()
        try:
            if self.transactions is not None and self.transactions.settings.worker_offsets_topic is not None:
                # The worker opens (and creates) the connector's own offsets topic before the first
                # transaction writes to it, as Kafka's task starts its offset store.
                await self.control.read_source_offsets([])
            await asyncio.to_thread(self.task.start, self.spec.task_config)
            waker = asyncio.create_task(self._wake_poll_on_stop(), name=f"kconnect-wake-poll-{self.spec.id}")
            self.stalls.start()
            try:
                await self._move_records()
                await self._commit(wait=True)
            except Exception:
                await self._commit_after_failure()
                raise
            finally:
                waker.cancel()
                await self._end_count_commit()
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
        while await follower.proceed(self._commit_before_pause):
            started = time.monotonic()
            records: list[SourceRecord] | None = None
            batches: Sequence[SourceBatch] | None = None
            if self._polls_batches:
                batches = await self._poll(self.task.poll_batch)
                count = sum(map(len, batches)) if batches else 0
            else:
                records = await self._poll(self.task.poll)
                count = len(records) if records else 0
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
            if count or batches:  # a batch without records may still carry an offset to commit
                try:
                    if batches:
                        await self._send_batches(batches)
                    else:
                        await self._dispatch(records or [])
                except SendAbandoned:
                    if self.control.worker_lost:
                        log.warning("Source task %s: its worker is gone; the rest is not sent", self.spec.id)
                    else:
                        log.warning("Source task %s stops while Kafka does not answer", self.spec.id)
                    if self.transactions is not None:
                        await self.transactions.abort(self.flush_timeout_s)
                    return
            if not count:
                if self.transactions is not None:
                    await self._dispatch([])
                await self.control.wait_for_target_change(TargetState.STARTED, IDLE_BACKOFF_S)
            self._raise_send_error()
            self._check_count_commit()
            if time.monotonic() >= next_commit:
                await self._commit()
                next_commit = time.monotonic() + self.flush_interval_s
            await self.reporter.maybe_report()

    async def _dispatch(self, records: list[SourceRecord]) -> None:
        """Send a poll's records: in transactions under exactly-once support, else as they come."""
        if self.transactions is None:
            await self._send_all(records)
        elif await self.transactions.dispatch(records, self._send_all):
            await self._after_transaction()

    async def _after_transaction(self) -> None:
        """A transaction committed: its records are acknowledged, so forget them and tell the task."""
        self._raise_send_error()
        self.submitted.committable()
        done, self._in_transaction = self._in_transaction, []
        for record, metadata in done:
            self._commit_record(record, metadata)
        with self.stalls.marking("commit() has not returned"):
            await asyncio.to_thread(self.task.commit)

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

    async def _send_all(self, records: list[SourceRecord]) -> None:
        """Transform and convert a poll's records, then send them in per-partition batches."""
        if self._convert_in_thread:
            prepared = await asyncio.to_thread(self._prepare_all, records)
        else:
            prepared = self._prepare_all(records)
        outgoing: list[OutgoingRecord] = []
        submit = self.submitted.submit
        topics: dict[str, None] = {}
        last_topic = None
        for original, ready in zip(records, prepared, strict=True):
            if ready is None:
                self._drop(original)
                continue
            record, key, value, headers = ready
            topic = record.topic
            if topic != last_topic:  # a poll's records mostly share a topic: one lookup per run of it
                topics[topic] = None
                last_topic = topic
            outgoing.append(
                OutgoingRecord(
                    topic,
                    record.kafka_partition,
                    key,
                    value,
                    record.timestamp,
                    headers,
                    (submit(original.source_partition, original.source_offset), original),
                )
            )
        await self._prepare_topics(topics)
        with self.stalls.marking(
            f"Kafka has not taken {count_records(len(outgoing))} (the producer waits for the broker)"
        ):
            await self.sender.send(outgoing)
        self.records_sent += len(outgoing)

    async def _send_batches(self, batches: Sequence[SourceBatch]) -> None:
        """Convert a poll's batches column by column and send them with one offset each.

        No object is built per record: a batch's records share one `SubmittedRecord`, which
        Kafka's acknowledgements count down, so its offset is committed once all are acknowledged.
        """
        if self._convert_in_thread:
            prepared = await asyncio.to_thread(lambda: [self.preparer.prepare_batch(b) for b in batches])
        else:
            prepared = [self.preparer.prepare_batch(batch) for batch in batches]
        runs: list[OutgoingRun] = []
        keyed: list[OutgoingRecord] = []
        topics: dict[str, None] = {}
        sent = 0
        for batch, ready in zip(batches, prepared, strict=True):
            values = ready.values
            token = self.submitted.submit(batch.source_partition, batch.source_offset, len(values))
            self._acked_since_commit += len(batch) - len(values)  # dropped after an error: done
            topic, partition = batch.topic, batch.kafka_partition
            topics[topic] = None
            sent += len(values)
            if ready.keys is None:
                runs.append(OutgoingRun(topic, partition, values, ready.timestamps, ready.headers, token))
            else:  # keys choose each record's partition: sent one by one, still with one token
                timestamps = ready.timestamps or [None] * len(values)
                headers = ready.headers or [[] for _ in values]
                columns = zip(ready.keys, values, timestamps, headers, strict=True)
                keyed += [
                    OutgoingRecord(topic, partition, key, value, timestamp, wire_headers, token)
                    for key, value, timestamp, wire_headers in columns
                ]
        await self._prepare_topics(topics)
        waiting = f"Kafka has not taken {count_records(sent)} (the producer waits for the broker)"
        with self.stalls.marking(waiting):
            await self.sender.send_runs(runs)
            if keyed:
                await self.sender.send(keyed)
        self.records_sent += sent

    async def _prepare_topics(self, topics: dict[str, None]) -> None:
        """Before a send: tell the worker of topics this run uses for the first time (its active
        topics), and create those that do not exist yet (``topic.creation.*``)."""
        for topic in topics:
            if self.topics.is_new(topic):
                await self.control.topic_used(topic)
        await self.topic_creation.ensure(topics)

    def _prepare_all(self, records: list[SourceRecord]) -> list[Prepared | None]:
        """Each record transformed and converted; None where it was dropped or skipped after an error."""
        return self.preparer.prepare_all(records)

    def _drop(self, record: SourceRecord) -> None:
        """A record that will not be sent counts as acknowledged: its offset is committed in turn."""
        self.submitted.ack(self.submitted.submit(record.source_partition, record.source_offset))
        self._acked_since_commit += 1
        self._record_done(record, None)

    def _on_ack(self, spans: Sequence[Span], metadata: Any) -> None:
        ack = self.submitted.ack
        if self._polls_batches:  # the tokens are batches' SubmittedRecords, a span per batch
            acked = 0
            for submitted, count in spans:
                ack(submitted, count)
                acked += count
        else:  # a token per record: (SubmittedRecord, SourceRecord)
            acked = len(spans)
            if self._notify_commits:
                for index, ((submitted, record), _) in enumerate(spans):
                    ack(submitted)
                    self._record_done(record, metadata._replace(offset=metadata.offset + index))
            else:
                for token, _ in spans:
                    ack(token[0])
        self.metrics.records_out += acked
        self._acked_since_commit += acked

    def _record_done(self, record: SourceRecord, metadata: Any) -> None:
        """Kafka has the record (or it was dropped): tell the task now, or, in a transaction, once
        the transaction committed (Kafka's exactly-once task calls commitRecord then)."""
        if self.transactions is None:
            self._commit_record(record, metadata)
        elif self._notify_commits:
            self._in_transaction.append((record, metadata))

    def _commit_record(self, record: SourceRecord, metadata: Any) -> None:
        # Kafka logs and goes on: commit_record is a notification, the offset is Kafka's to track.
        try:
            self.task.commit_record(record, metadata)
        except Exception:
            log.exception("commit_record of %s failed", self.spec.id)

    def _on_send_error(self, error: BaseException, spans: Sequence[Span]) -> bool:
        """A batch Kafka did not take: under ``errors.tolerance=all`` its records are reported and
        skipped, their offsets committed in turn (Kafka's KIP-779); otherwise the task fails."""
        # In a transaction a failed batch dooms the whole transaction: no record can be skipped.
        # (Polled batches are only taken under errors.tolerance=none.)
        if not self.errors.policy.tolerate_all or self.transactions is not None:
            self.send_error = self.send_error or error
            return False
        for (submitted, record), _ in spans:
            self.errors.execute_failed(Stage.KAFKA_PRODUCE, PRODUCER_STAGE_CLASS, error, source_record=record)
            self.errors.counts.skipped += 1
            self.submitted.ack(submitted)
            self._commit_record(record, None)
        return True

    def _raise_send_error(self) -> None:
        if self.send_error is not None:
            raise RuntimeError(f"Source task {self.spec.id}: {self.send_error}") from self.send_error

    async def _commit_before_pause(self) -> None:
        await self._commit(wait=True)

    async def _commit(self, wait: bool = False) -> None:
        """Store every acknowledged offset and tell the task.

        Steps: with `wait`, give sends in flight up to ``offset.flush.timeout.ms`` to be answered;
        fail if Kafka rejected a record; take the acknowledged prefix of each source partition,
        have the worker store it durably, and only then call `SourceTask.commit`.
        """
        if self.transactions is not None:
            # Exactly once: transactions end at their boundaries; a pause or the end commits.
            if not wait:
                return
            with self.stalls.marking("the producer transaction's commit has not completed"):
                committed = await self.transactions.commit()
            if committed:
                await self._after_transaction()
            return
        if wait:
            await self._flush()
        self._raise_send_error()
        await self._store_acknowledged()

    async def _flush(self) -> None:
        """Wait at most ``offset.flush.timeout.ms`` for the sends in flight to be answered."""
        if not self.submitted.pending:
            return
        try:
            await asyncio.wait_for(self.producer.flush(), self.flush_timeout_s)
        except asyncio.TimeoutError:
            log.warning(
                "Source task %s: %d records were not acknowledged within offset.flush.timeout.ms; "
                "their offsets are committed later, or they are sent again by the next run",
                self.spec.id,
                self.submitted.pending,
            )

    async def _stop_producer(self) -> None:
        """Close the producer; give up after ``offset.flush.timeout.ms`` if the broker does not answer."""
        try:
            await asyncio.wait_for(self.producer.stop(), self.flush_timeout_s)
        except asyncio.TimeoutError:
            log.warning("Source task %s closed its producer with batches Kafka never answered", self.spec.id)

    def _check_count_commit(self) -> None:
        """Start a commit by count once ``offset.flush.records`` records were acknowledged since the
        last one, unless one runs; raise the failure of one that ended in error."""
        running = self._count_commit
        if running is not None and running.done():
            self._count_commit = None
            running.result()
        if (
            self.flush_records
            and self.transactions is None
            and self._count_commit is None
            and self._acked_since_commit >= self.flush_records
        ):
            self._count_commit = asyncio.create_task(
                self._store_acknowledged(), name=f"kconnect-offset-commit-{self.spec.id}"
            )

    async def _end_count_commit(self) -> None:
        """Wait for a commit by count in progress; its failure is logged (the run already ends)."""
        running, self._count_commit = self._count_commit, None
        if running is None:
            return
        try:
            await running
        except Exception:
            log.warning("Source task %s: an offset commit by count failed", self.spec.id, exc_info=True)

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
        self._acked_since_commit = 0
        for partition, offset in self.submitted.committable():
            self._unstored[partition_key(partition)] = (partition, offset)
        if not self._unstored:
            return
        offsets = list(self._unstored.values())
        started = time.monotonic()
        try:
            with self.stalls.marking("the worker has not stored the source offsets"):
                await self.control.commit_source_offsets(offsets)
        except RetriableError as exc:
            self.metrics.commit(started, ok=False)
            log.warning(
                "Source task %s could not store its offsets (%s); trying again at the next commit",
                self.spec.id,
                exc,
            )
            return
        self.metrics.commit(started, ok=True)
        self._unstored.clear()
        with self.stalls.marking("commit() has not returned"):
            await asyncio.to_thread(self.task.commit)

    async def _commit_after_failure(self) -> None:
        """Best effort after a failure: store what Kafka acknowledged, never mask the failure itself.

        Under exactly-once support nothing is stored: the open transaction is aborted instead.
        """
        if self.transactions is not None:
            await self.transactions.abort(self.flush_timeout_s)
            return
        try:
            await self._flush()
            await self._store_acknowledged()
        except Exception:
            log.warning(
                "Could not commit the acknowledged offsets of failed task %s", self.spec.id, exc_info=True
            )
