"""Sends what a source task's poll returned and tracks what Kafka answered about it.

The source loop hands `PollSender` each poll: records (`send_records`) or, where nothing needs a
`SourceRecord` per record, column batches (`send_batches`). Either way the records are transformed
and converted (`kconnect.runtime.source_records`), the topics they use are reported and created,
and they are handed to `kconnect.runtime.batch_sender.BatchSender` with one kind of token,
`SendToken`: the `SubmittedRecord` whose offset the records carry, and the polled record when
there is one. A record is one token; a `SourceBatch` is one token for all its records, so its
offset, the one after its last record, is committable once Kafka acknowledged every one of them.
A new way of polling adds its own send here and reuses the tokens and callbacks as they are.

When Kafka answers, `_on_ack` and `_on_send_error` acknowledge the tokens (`SubmittedRecords`),
count them (`SendState.handled`, the task's metrics) and tell the delivery strategy
(`kconnect.runtime.source_delivery.SourceDelivery`) of each record for ``commit_record``; a
failure that is not skipped is kept in `SendState` for the loop to raise.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from kconnect.executor import TaskSpec
from kconnect.kafka.clients import ProducerClient, delivery_policy
from kconnect.model import TargetState
from kconnect.records import SourceBatch, SourceRecord
from kconnect.runtime.batch_sender import BatchSender, OutgoingRecord, OutgoingRun, Span
from kconnect.runtime.control import ActiveTopics, TaskControl
from kconnect.runtime.error_handling import ErrorHandler, Stage
from kconnect.runtime.source_delivery import SendState, SourceDelivery
from kconnect.runtime.source_records import SourceRecordPreparer
from kconnect.runtime.stall_watch import StallWatchdog, count_records
from kconnect.runtime.submitted_records import SubmittedRecord, SubmittedRecords
from kconnect.runtime.task_metrics import TaskMetrics
from kconnect.runtime.topic_creation import TopicCreation

#: The class Kafka names for a failed send (stage KAFKA_PRODUCE) in error reports.
PRODUCER_STAGE_CLASS = "org.apache.kafka.connect.runtime.WorkerSourceTask"

SendToken = tuple[SubmittedRecord, SourceRecord | None]
"""What Kafka's answer about sent records acknowledges: their `SubmittedRecord` and the polled
record (None for a batch's records, which have no record object)."""


class PollSender:
    """Sends a source task's polls to Kafka; one instance per task run."""

    def __init__(
        self,
        spec: TaskSpec,
        control: TaskControl,
        producer: ProducerClient,
        preparer: SourceRecordPreparer,
        errors: ErrorHandler,
        submitted: SubmittedRecords,
        sends: SendState,
        delivery: SourceDelivery,
        *,
        stalls: StallWatchdog,
        metrics: TaskMetrics,
        notify_commits: bool,
    ) -> None:
        """`notify_commits`: the task overrides ``commit_record``, so `delivery` hears of each record."""
        self._control = control
        self._preparer = preparer
        self._errors = errors
        self._submitted = submitted
        self._sends = sends
        self._delivery = delivery
        self._stalls = stalls
        self._metrics = metrics
        self._notify_commits = notify_commits
        #: A retry may sleep: then records are prepared off the event loop, which keeps sending.
        self._convert_in_thread = errors.policy.retries
        #: A record Kafka refused is skipped (``errors.tolerance=all``) when delivery allows it.
        self._skips_failed_sends = errors.policy.tolerate_all and delivery.may_skip_failed_sends
        self._sender = BatchSender(
            producer,
            self._on_ack,
            self._on_send_error,
            policy=delivery_policy(spec.worker.props, spec.connector_config),
            stopping=lambda: control.target is TargetState.STOPPED,
            halted=lambda: control.worker_lost,
            name=f"Source task {spec.id}",
        )
        self._topics = ActiveTopics(control)
        self._topic_creation = TopicCreation.for_task(
            spec.worker,
            spec.connector_config,
            stopping=lambda: control.target is TargetState.STOPPED,
            task=f"Source task {spec.id}",
        )
        self.records_sent = 0

    async def send_records(self, records: list[SourceRecord]) -> None:
        """Transform and convert a poll's records, then send them in per-partition batches."""
        if self._convert_in_thread:
            prepared = await asyncio.to_thread(self._preparer.prepare_all, records)
        else:
            prepared = self._preparer.prepare_all(records)
        outgoing: list[OutgoingRecord] = []
        submit = self._submitted.submit
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
            token: SendToken = (submit(original.source_partition, original.source_offset), original)
            outgoing.append(
                OutgoingRecord(topic, record.kafka_partition, key, value, record.timestamp, headers, token)
            )
        await self._prepare_topics(topics)
        with self._stalls.marking(
            f"Kafka has not taken {count_records(len(outgoing))} (the producer waits for the broker)"
        ):
            await self._sender.send(outgoing)
        self.records_sent += len(outgoing)

    async def send_batches(self, batches: Sequence[SourceBatch]) -> None:
        """Convert a poll's batches column by column and send them with one token each.

        No object is built per record: a batch's records share one `SubmittedRecord`, which
        Kafka's acknowledgements count down, so its offset is committed once all are acknowledged.
        """
        prepare = self._preparer.prepare_batch
        if self._convert_in_thread:
            prepared = await asyncio.to_thread(lambda: [prepare(batch) for batch in batches])
        else:
            prepared = [prepare(batch) for batch in batches]
        runs: list[OutgoingRun] = []
        keyed: list[OutgoingRecord] = []
        topics: dict[str, None] = {}
        sent = 0
        for batch, ready in zip(batches, prepared, strict=True):
            values = ready.values
            token: SendToken = (
                self._submitted.submit(batch.source_partition, batch.source_offset, len(values)),
                None,
            )
            self._sends.handled += len(batch) - len(values)  # dropped after an error: done
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
        with self._stalls.marking(waiting):
            await self._sender.send_runs(runs)
            if keyed:
                await self._sender.send(keyed)
        self.records_sent += sent

    async def _prepare_topics(self, topics: dict[str, None]) -> None:
        """Before a send: tell the worker of topics this run uses for the first time (its active
        topics), and create those that do not exist yet (``topic.creation.*``)."""
        for topic in topics:
            if self._topics.is_new(topic):
                await self._control.topic_used(topic)
        await self._topic_creation.ensure(topics)

    def _drop(self, record: SourceRecord) -> None:
        """A record that will not be sent counts as acknowledged: its offset is committed in turn."""
        self._submitted.ack(self._submitted.submit(record.source_partition, record.source_offset))
        self._sends.handled += 1
        if self._notify_commits:
            self._delivery.record_dropped(record)

    def _on_ack(self, spans: Sequence[Span], metadata: Any) -> None:
        """Kafka acknowledged a batch: its tokens, as spans, and its first record's metadata (the
        others' offsets follow it one by one)."""
        ack = self._submitted.ack
        acked = 0
        if self._notify_commits:
            acknowledged = self._delivery.record_acknowledged
            for (submitted, record), count in spans:
                ack(submitted, count)
                if record is not None:
                    acknowledged(record, metadata._replace(offset=metadata.offset + acked))
                acked += count
        else:
            for (submitted, _), count in spans:
                ack(submitted, count)
                acked += count
        self._metrics.records_out += acked
        self._sends.handled += acked

    def _on_send_error(self, error: BaseException, spans: Sequence[Span]) -> bool:
        """A batch Kafka did not take: under ``errors.tolerance=all`` its records are reported and
        skipped, their offsets committed in turn (Kafka's KIP-779); otherwise the task fails."""
        if not self._skips_failed_sends:
            self._sends.failed(error)
            return False
        for (submitted, record), count in spans:
            self._errors.execute_failed(
                Stage.KAFKA_PRODUCE, PRODUCER_STAGE_CLASS, error, source_record=record
            )
            self._errors.counts.skipped += count
            self._submitted.ack(submitted, count)
            if self._notify_commits and record is not None:
                self._delivery.record_dropped(record)
        return True
