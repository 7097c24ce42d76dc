"""The sink task loop: consume → converters → transforms → put → pre_commit/flush → commit.

`SinkLoop` runs one task; executors start it through `kconnect.runtime.runner.run_task`. The
task's consumer joins the group ``connect-<connector name>`` (Kafka's name, so Kafka's tools
show sink progress; ``consumer.override.group.id`` names another: `sink_group_id`), and offsets
are committed to it only after `pre_commit` (by default `flush`) returned: every
``offset.flush.interval.ms``, before partitions are revoked, on pause and on clean stop. As in
Kafka, a partition's position at assignment counts as committed, and a commit sends every
assigned partition once any of them moved, so the group holds an offset for each one.

Rules, as Kafka's WorkerSinkTask keeps them:

* **One call into the task at a time.** aiokafka runs the rebalance listener in its own
  coordination task, not inside `getmany`, so a revocation could arrive while `put` runs in its
  thread. Every task call (`put`, `pre_commit`, `open`, `close`) holds one lock, so the commit
  and `close` of a revocation wait for the `put` in flight, and a batch fetched while a
  revocation ran is not put: its partitions that stay assigned are read again from its first
  offset (it may have been fetched under the new assignment, after the position was reset).
* **Paused means polling with every partition paused**, so the consumer keeps its group
  membership through any pause and a resume causes no rebalance and no redelivery.
* **put after every poll**, also one that returned no record (an empty list), so a task can act
  on time alone (rotate files on a schedule, retry after an outage).
* **RetriableError from put**: every partition is paused, the consumer keeps polling, and the
  same batch is offered again after ``context.timeout`` (default 1 s).
* **A commit refused because the group rebalanced, or not answered because the broker is
  unreachable** (a retriable error) is logged; the offsets stay uncommitted and the next commit
  sends them again. It does not fail the task. aiokafka re-finds the coordinator and re-joins the
  group by itself once the broker is back.
* **A task error inside the rebalance listener** (aiokafka only logs those) fails the task from
  the loop, with its trace.

Stalls (kconnect's extension, `kconnect.runtime.stall_watch`): a `put` that has not returned, a
batch `put` keeps refusing with RetriableError, a `pre_commit` or a consumer commit that has not
completed, each for ``task.stall.timeout.ms``, is reported; waiting in the consumer for records is not.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterable, Mapping
from typing import Any

from aiokafka import ConsumerRebalanceListener
from aiokafka.errors import (
    CommitFailedError,
    IllegalGenerationError,
    KafkaError,
    RebalanceInProgressError,
    UnknownMemberIdError,
)
from aiokafka.structs import TopicPartition as KafkaTopicPartition

from kconnect.config.connector_config import whole_topic_pattern
from kconnect.config.connector_keys import CONNECTOR_CLASS_CONFIG, TOPICS_CONFIG, TOPICS_REGEX_CONFIG
from kconnect.errors import RetriableError
from kconnect.executor import TaskSpec
from kconnect.kafka.clients import (
    ConsumerClient,
    broker_unreachable,
    consumer_kwargs,
    create_consumer,
    refresh_metadata,
    sink_group_id,
)
from kconnect.plugin_host import PluginHost
from kconnect.records import SinkBatch
from kconnect.runtime.control import ActiveTopics, TargetFollower, TaskControl
from kconnect.runtime.dead_letter_queue import DeadLetterQueue, DeadLetterQueueConfig
from kconnect.runtime.errant_records import LoopErrantRecordReporter
from kconnect.runtime.error_handling import ErrorHandler, ErrorReporter
from kconnect.runtime.sink_offsets import DeliveryBatch, SinkOffsets
from kconnect.runtime.sink_records import SinkRecordBuilder
from kconnect.runtime.stall_watch import StallWatchdog, count_records
from kconnect.runtime.task_context import LoopSinkTaskContext
from kconnect.runtime.task_metrics import MetricsReporter, TaskMetrics
from kconnect.runtime.task_plugins import TaskPlugins, build_task_plugins
from kconnect.task import SinkTask, TopicPartition

log = logging.getLogger(__name__)

#: Commit errors that mean "the group rebalanced under this commit": retried by the next commit.
REBALANCE_COMMIT_ERRORS = (
    CommitFailedError,
    IllegalGenerationError,
    RebalanceInProgressError,
    UnknownMemberIdError,
)
#: How long one `getmany` waits for records.
POLL_TIMEOUT_MS = 200
#: For this long after it subscribes, a sink with nothing assigned asks for metadata every
#: `TOPIC_LOOKUP_INTERVAL_S`, so the first record of a topic created after it started arrives
#: within a fraction of a second (Java's consumer retries unknown topics at its retry backoff).
TOPIC_LOOKUP_PERIOD_S = 30.0
TOPIC_LOOKUP_INTERVAL_S = 0.25
#: How long the rebalance listener waits for a newly assigned partition's position.
POSITION_TIMEOUT_S = 10.0
#: Wait before offering a batch again after RetriableError, when the task set no `context.timeout`.
DEFAULT_RETRY_MS = 1000


def _load_task(host: PluginHost, spec: TaskSpec) -> SinkTask:
    # Only the task class of a registered connector: never an import of task.class.
    cls = host.task_class(spec.connector_config.get(CONNECTOR_CLASS_CONFIG, ""), spec.task_class)
    if not issubclass(cls, SinkTask):
        raise TypeError(f"task.class {spec.task_class} is not a SinkTask")
    return cls()


def _ours(partitions: Iterable[KafkaTopicPartition]) -> set[TopicPartition]:
    return {TopicPartition(tp.topic, tp.partition) for tp in partitions}


class _Rebalance(ConsumerRebalanceListener):  # type: ignore[misc]
    """Hands aiokafka's rebalance callbacks to the loop."""

    def __init__(self, loop: SinkLoop) -> None:
        self.loop = loop

    async def on_partitions_revoked(self, revoked: set[KafkaTopicPartition]) -> None:
        await self.loop.partitions_revoked(_ours(revoked))

    async def on_partitions_assigned(self, assigned: set[KafkaTopicPartition]) -> None:
        await self.loop.partitions_assigned(_ours(assigned))


class SinkLoop:
    """Runs one sink task until it is stopped; one instance per task run."""

    def __init__(
        self,
        spec: TaskSpec,
        control: TaskControl,
        host: PluginHost,
        consumer: ConsumerClient | None = None,
    ) -> None:
        """Build the task, its converters and transforms; `consumer` defaults to a real aiokafka one."""
        self.spec = spec
        self.control = control
        self.plugins: TaskPlugins = build_task_plugins(host, spec.worker.props, spec.connector_config)
        self.task = _load_task(host, spec)
        dlq = DeadLetterQueueConfig.from_config(spec.connector_config)
        self.dlq: DeadLetterQueue | None = None
        if dlq is not None:
            self.dlq = DeadLetterQueue(
                dlq, spec.id.connector, spec.id.task, spec.worker.props, spec.connector_config
            )
        reporters: tuple[ErrorReporter, ...] = (self.dlq,) if self.dlq else ()
        self.errors = ErrorHandler.for_connector(str(spec.id), spec.connector_config, *reporters)
        self.errant: LoopErrantRecordReporter | None = None
        if self.dlq or self.errors.policy.log_enable:
            self.errant = LoopErrantRecordReporter(self.errors, self.plugins)
        self.context = LoopSinkTaskContext(spec.task_config, self.errant)
        self.flush_interval_s = spec.worker.offset_flush_interval_ms / 1000
        self.builder = SinkRecordBuilder(self.plugins, self.errors)
        #: The task takes each fetch as columns (it overrides `put_batch`; transformations need records).
        overrides = type(self.task).put_batch is not SinkTask.put_batch
        self._takes_columns = overrides and not self.plugins.transforms
        self.metrics = TaskMetrics("sink", self.errors.counts)
        self.metrics.partitions = lambda: len(self.context.assigned)
        self.metrics.active = lambda: len(self._redelivery.records) if self._redelivery else 0
        if self.dlq is not None:
            queue = self.dlq
            self.metrics.dlq_requests = lambda: queue.produce_requests
            self.metrics.dlq_failures = lambda: queue.produce_failures
        self.reporter = MetricsReporter(self.metrics, control.report_metrics)
        self.stalls = StallWatchdog(spec, control)
        #: The stall mark of the batch waiting for `put` to accept it after RetriableError, if any.
        self._refused_mark: int | None = None
        #: A retry may sleep: then records are converted off the event loop, which keeps the consumer alive.
        self._convert_in_thread = self.errors.policy.retries
        group = sink_group_id(spec.worker.props, spec.id.connector, spec.connector_config)
        settings = consumer_kwargs(spec.worker.props, spec.connector_config, group)
        self.keep_alive_s = min(0.5, settings.get("max_poll_interval_ms", 300_000) / 4000)
        self.consumer = consumer or create_consumer(spec.worker.props, spec.connector_config, group)
        self.offsets = SinkOffsets()
        self.topics = ActiveTopics(control)
        self._task_lock = asyncio.Lock()
        #: Bumped when a revocation starts and ends: a batch fetched under an older value is stale.
        self._revocations = 0
        self._redelivery: DeliveryBatch | None = None
        self._paused = False
        self._closed = False
        self._listener_error: BaseException | None = None
        self._lookup_until = 0.0
        self._next_lookup = 0.0

    async def run(self) -> None:
        """Start the task, deliver records until STOPPED, then commit and stop everything."""
        self.task.initialize(self.context)
        if self.dlq is not None:
            await self.dlq.start()
        await self.consumer.start()
        try:
            await asyncio.to_thread(self.task.start, self.spec.task_config)
            self._subscribe()
            self.stalls.start()
            try:
                await self._deliver()
                await self.commit()
            finally:
                self.stalls.stop()
                async with self._task_lock:
                    self._closed = True
                    if self.context.assigned:
                        await asyncio.to_thread(self.task.close, set(self.context.assigned))
                    await asyncio.to_thread(self.task.stop)
        finally:
            self.plugins.close()
            await self.consumer.stop()
            if self.dlq is not None:
                await self.dlq.stop()
            await self.reporter.final_report()
        log.info("Sink task %s stopped after delivering %d records", self.spec.id, self.metrics.records_out)

    def _subscribe(self) -> None:
        config = self.spec.connector_config
        topics = [t.strip() for t in config.get(TOPICS_CONFIG, "").split(",") if t.strip()]
        listener = _Rebalance(self)
        if topics:
            self.consumer.subscribe(topics=topics, listener=listener)
            self._lookup_until = time.monotonic() + TOPIC_LOOKUP_PERIOD_S
        elif config.get(TOPICS_REGEX_CONFIG):
            self.consumer.subscribe(
                pattern=whole_topic_pattern(config[TOPICS_REGEX_CONFIG]), listener=listener
            )
        else:
            raise ValueError("Must configure one of topics or topics.regex")

    async def _deliver(self) -> None:
        next_commit = time.monotonic() + self.flush_interval_s
        follower = TargetFollower(self.control, self.keep_alive_s)
        while await follower.proceed(self._pause, self._resume, self._poll_paused):
            self._raise_listener_error()
            self._apply_context_requests()
            if self._redelivery is not None:
                await self._retry_redelivery()
            else:
                await self._look_for_topics()
                revocations = self._revocations
                fetched = await self.consumer.getmany(timeout_ms=POLL_TIMEOUT_MS)
                self._raise_listener_error()
                if fetched:
                    await self._put_fetched(fetched, revocations)
                else:
                    await self._put_nothing()
            if time.monotonic() >= next_commit or self.context.commit_requested:
                await self.commit()
                next_commit = time.monotonic() + self.flush_interval_s
            await self.reporter.maybe_report()

    async def _look_for_topics(self) -> None:
        now = time.monotonic()
        if now >= self._lookup_until or now < self._next_lookup or self.consumer.assignment():
            return
        self._next_lookup = now + TOPIC_LOOKUP_INTERVAL_S
        await refresh_metadata(self.consumer)

    # --- pause / resume --------------------------------------------------------------------------

    async def _pause(self) -> None:
        """Commit what was delivered, then pause every partition (the consumer keeps polling)."""
        await self.commit()
        self._paused = True
        self._sync_pauses()

    def _resume(self) -> None:
        self._paused = False
        self._sync_pauses()

    async def _poll_paused(self) -> None:
        """Poll with every partition paused: returns nothing, keeps the consumer in its group."""
        self._sync_pauses()
        self._rewind(await self.consumer.getmany(timeout_ms=0))
        self._raise_listener_error()

    def _sync_pauses(self) -> None:
        """Pause what should be: all while paused or awaiting a retry, else what the task paused."""
        assigned = set(self.consumer.assignment())
        if self._paused or self._redelivery is not None:
            wanted = assigned
        else:
            wanted = {tp for tp in assigned if TopicPartition(tp.topic, tp.partition) in self.context.paused}
        paused = set(self.consumer.paused()) & assigned
        if wanted - paused:
            self.consumer.pause(*(wanted - paused))
        if paused - wanted:
            self.consumer.resume(*(paused - wanted))

    def _rewind(self, fetched: Mapping[KafkaTopicPartition, Any]) -> None:
        """Records returned while they may not be delivered are read again later, from the same offset."""
        for tp, messages in fetched.items():
            if messages:
                self.consumer.seek(tp, messages[0].offset)

    def _apply_context_requests(self) -> None:
        ctx = self.context
        if ctx.offset_resets:
            for tp, offset in ctx.offset_resets.items():
                self.consumer.seek(KafkaTopicPartition(tp.topic, tp.partition), offset)
                self.offsets.current[tp] = offset
            ctx.offset_resets.clear()
        self._sync_pauses()

    # --- put --------------------------------------------------------------------------------------

    async def _put_fetched(self, fetched: Mapping[KafkaTopicPartition, Any], revocations: int) -> None:
        for tp, messages in fetched.items():
            self.metrics.records_in += len(messages)
            if self.topics.is_new(tp.topic):
                await self.control.topic_used(tp.topic)
        ours = {TopicPartition(tp.topic, tp.partition): m for tp, m in fetched.items()}
        build = self.builder.columns if self._takes_columns else self.builder.batch
        if self._convert_in_thread:
            batch = await asyncio.to_thread(build, ours)
        else:
            batch = build(ours)
        async with self._task_lock:
            if revocations != self._revocations:
                # The batch may come from before the rebalance or from the new assignment (aiokafka
                # fetches while the listener runs): read it again from its first offset either way,
                # so nothing is skipped. Everything before that offset was already delivered.
                log.debug("Re-reading a batch of %s fetched while partitions were revoked", self.spec.id)
                assigned = set(self.consumer.assignment())
                self._rewind({tp: m for tp, m in fetched.items() if tp in assigned})
                return
            await self._put_locked(batch)

    async def _put_nothing(self) -> None:
        """A poll that returned no record still calls `put` with none (as Kafka's WorkerSinkTask does),
        so a task can act on time alone: rotate files on a schedule, retry a paused partition.

        Skipped while a rebalance holds the task: the loop goes on fetching meanwhile, as it does
        when records arrive (their batch then waits for the lock).
        """
        if self._task_lock.locked():
            return
        async with self._task_lock:
            await self._put_locked(DeliveryBatch([], {}))

    async def _retry_redelivery(self) -> None:
        batch = self._redelivery
        assert batch is not None
        wait_ms = int((batch.retry_at - time.monotonic()) * 1000)
        if wait_ms > 0:
            # Every partition is paused: this returns nothing and keeps the consumer in its group.
            self._rewind(await self.consumer.getmany(timeout_ms=min(wait_ms, POLL_TIMEOUT_MS)))
            return
        async with self._task_lock:
            if self._redelivery is not None:
                await self._put_locked(self._redelivery)

    async def _put_locked(self, batch: DeliveryBatch) -> None:
        """Offer `batch` to `put` (the task lock is held); on RetriableError keep it for later."""
        if self.errant is not None:
            self.errant.consumed = batch.consumed
        started = time.monotonic()
        count = len(batch.records)
        try:
            with self.stalls.marking(
                f"put() of {count_records(count)} has not returned" if count else "put() has not returned"
            ):
                records = batch.records
                if isinstance(records, SinkBatch):
                    await asyncio.to_thread(self.task.put_batch, records)
                else:
                    await asyncio.to_thread(self.task.put, records)
        except RetriableError:
            if self._refused_mark is None and count:
                what = f"put() has not accepted {count_records(count)} (it raised RetriableError)"
                self._refused_mark = self.stalls.watch.begin(what, since=started)
            delay_ms = self.context.timeout_ms or DEFAULT_RETRY_MS
            log.warning(
                "put of %s raised a retriable error; offering the batch again in %d ms",
                self.spec.id,
                delay_ms,
            )
            batch.retry_at = time.monotonic() + delay_ms / 1000
            self._redelivery = batch
            self._sync_pauses()
            return
        self._redelivery = None
        self._end_refused_mark()
        if batch.records or batch.next_offsets:
            self.offsets.delivered(batch.next_offsets)
            self.metrics.records_out += len(batch.records)
            self.metrics.batch(started, len(batch.records))
        self._sync_pauses()

    def _end_refused_mark(self) -> None:
        """The batch `put` refused is accepted or gone (its partitions revoked): no longer a stall."""
        if self._refused_mark is not None:
            self.stalls.watch.end(self._refused_mark)
            self._refused_mark = None

    # --- commit -----------------------------------------------------------------------------------

    async def commit(self) -> None:
        """Ask the task what is durable (`pre_commit`), then commit exactly that to the group."""
        async with self._task_lock:
            await self._commit_locked()

    async def _commit_locked(self) -> None:
        self.context.commit_requested = False
        if not self.offsets.current:
            return
        # Kafka must hold the dead-letter copies of skipped records before their offsets are committed.
        await self.errors.flush()
        with self.stalls.marking("pre_commit() has not returned"):
            safe = await asyncio.to_thread(self.task.pre_commit, dict(self.offsets.current))
        to_commit = self.offsets.to_commit(safe, self.context.assigned)
        if not to_commit:
            return
        started = time.monotonic()
        offsets = {KafkaTopicPartition(tp.topic, tp.partition): offset for tp, offset in to_commit.items()}
        try:
            with self.stalls.marking("the consumer's offset commit has not completed"):
                await self.consumer.commit(offsets)
        except REBALANCE_COMMIT_ERRORS as exc:
            self.metrics.commit(started, ok=False)
            log.warning(
                "Committing offsets of %s failed because its consumer group rebalanced (%s); "
                "the next commit sends them again",
                self.spec.id,
                exc,
            )
            return
        except KafkaError as exc:
            self.metrics.commit(started, ok=False)
            if not broker_unreachable(exc):
                raise
            log.warning(
                "Committing offsets of %s failed because the broker did not answer (%r); "
                "the next commit sends them again",
                self.spec.id,
                exc,
            )
            return
        self.offsets.commit_succeeded(to_commit)
        self.metrics.commit(started, ok=True)

    # --- rebalance --------------------------------------------------------------------------------

    async def partitions_revoked(self, partitions: set[TopicPartition]) -> None:
        """Called by the rebalance listener: after any `put` in flight, commit, then `close` them."""
        if not partitions:
            return
        async with self._task_lock:
            self._revocations += 1
            if self._closed:
                return
            try:
                await self._commit_locked()
                await asyncio.to_thread(self.task.close, partitions & self.context.assigned)
            except Exception as exc:
                log.exception("Revoking partitions of %s failed", self.spec.id)
                self._listener_error = self._listener_error or exc
            finally:
                # Bumped again at the end: a batch fetched while this revocation ran is stale too.
                self._revocations += 1
                self.context.assigned -= partitions
                self.offsets.forget(partitions)
                if self._redelivery is not None:
                    self._redelivery.drop(partitions)
                    if not self._redelivery:
                        self._redelivery = None
                        self._end_refused_mark()

    async def partitions_assigned(self, partitions: set[TopicPartition]) -> None:
        """Called by the rebalance listener: record each new partition's position as committed (Kafka's
        HandleRebalance), then `open` them, paused if the task is."""
        async with self._task_lock:
            if self._closed:
                return
            self.context.assigned |= partitions
            self._sync_pauses()
            if not partitions:
                return
            self.offsets.assigned(await self._positions(partitions))
            try:
                await asyncio.to_thread(self.task.open, set(partitions))
            except Exception as exc:
                log.exception("Opening partitions of %s failed", self.spec.id)
                self._listener_error = self._listener_error or exc

    async def _positions(self, partitions: set[TopicPartition]) -> dict[TopicPartition, int]:
        """The consumer's position in each partition (aiokafka fetches the committed offsets first).

        A partition whose position is not known within `POSITION_TIMEOUT_S` (the broker is away) is
        left out: it is committed once records of it were delivered, as any other.
        """

        async def position(tp: TopicPartition) -> int | None:
            try:
                kafka_tp = KafkaTopicPartition(tp.topic, tp.partition)
                return await asyncio.wait_for(self.consumer.position(kafka_tp), POSITION_TIMEOUT_S)
            except (asyncio.TimeoutError, KafkaError) as exc:
                log.debug("No position of %s for %s at assignment: %r", tp, self.spec.id, exc)
                return None

        ordered = sorted(partitions)
        found = await asyncio.gather(*(position(tp) for tp in ordered))
        return {tp: offset for tp, offset in zip(ordered, found, strict=True) if offset is not None}

    def _raise_listener_error(self) -> None:
        if self._listener_error is not None:
            raise RuntimeError(
                f"Sink task {self.spec.id} failed during a consumer group rebalance: {self._listener_error!r}"
            ) from self._listener_error
