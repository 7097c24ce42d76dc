"""The storage sink task: Kafka partitions into committed files, exactly once.

On `open` each partition is recovered (`kconnect_storage.recovery`) and the consumer is sought past
its last committed file. `put` hands each partition's records to its `PartitionWriter`; `pre_commit`
returns, per partition, the offset before which everything is in committed files, so the consumer
group never runs ahead of the files. Revoked partitions and a stopping task throw their open files
away: the next owner reads those records from Kafka again.

A store error (`StoreError`) costs the partition its open files: it is paused, recovered again
``retry.backoff.ms`` later (the task needs `put` calls to do so; the framework makes one after every
poll, with or without records), sought back and resumed. After ``max.retries`` failed attempts in a
row the task fails with the store's error.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import ClassVar

from kconnect import SinkRecord, SinkTask, TopicPartition
from kconnect.errors import ConnectError, DataError

from kconnect_storage.commit_log import CommitLog
from kconnect_storage.config import SinkSettings
from kconnect_storage.formats.config import record_format
from kconnect_storage.naming import temp_directory
from kconnect_storage.partitioners.config import partitioner, time_zone, timestamp_extractor
from kconnect_storage.partitioners.timezones import JodaZone
from kconnect_storage.recovery import recover
from kconnect_storage.stores import StoreError
from kconnect_storage.stores.config import open_store
from kconnect_storage.version import VERSION
from kconnect_storage.writer import PartitionWriter, Parts, kafka_offset, kafka_partition

log = logging.getLogger(__name__)


@dataclass
class Retry:
    """A partition waiting to be recovered after a store error."""

    attempts: int
    at_ms: int
    #: Where to seek if recovery finds no committed file: the first record not yet committed.
    fallback: int | None


def _now_ms() -> int:
    return int(time.time() * 1000)


def next_boundary(now_ms: int, interval_ms: int, zone: JodaZone | None) -> int:
    """The next multiple of `interval_ms` after `now_ms`, counted from 1970-01-01T00:00 in `zone`
    (UTC when None): the wall-clock rotation times of ``rotate.schedule.interval.ms``."""
    offset_ms = zone.offset_ms(now_ms) if zone is not None else 0
    local = now_ms + offset_ms
    return (local // interval_ms + 1) * interval_ms - offset_ms


class StorageSinkTask(SinkTask):
    """Writes topics into files of a store; `store_kind` says which connector's keys name the store."""

    java_class_names: ClassVar[tuple[str, ...]] = ()
    #: "hdfs", "s3" or "storage": the store keys of the connector this task belongs to.
    store_kind: ClassVar[str] = "storage"

    @classmethod
    def version(cls) -> str:
        """The plugin's version."""
        return VERSION

    def start(self, config: Mapping[str, str]) -> None:
        """Open the store and build the format, partitioner and commit log."""
        self.settings = settings = SinkSettings.parse(config)
        store = open_store(self.store_kind, config, temp_directory(settings.topics_dir))
        self.parts = Parts(
            settings=settings,
            store=store,
            record_format=record_format(config, connector=self.store_kind),
            partitioner=partitioner(config),
            extractor=timestamp_extractor(config),
            commit_log=CommitLog(store, settings.logs_dir),
        )
        self.writers: dict[TopicPartition, PartitionWriter] = {}
        self.retries: dict[TopicPartition, Retry] = {}
        self.zone = time_zone(config)
        self.next_rotation: int | None = None
        if settings.rotate_schedule_interval_ms > 0:
            self.next_rotation = next_boundary(_now_ms(), settings.rotate_schedule_interval_ms, self.zone)

    # --- partitions ------------------------------------------------------------------------------

    def open(self, partitions: set[TopicPartition]) -> None:
        """Recover each partition from the store and seek past its committed files; a partition whose
        store does not answer is paused and recovered later, as after a store error in `put`."""
        for tp in sorted(partitions):
            try:
                resume_at = recover(self.parts.store, self.parts.commit_log, self.settings.topics_dir, tp)
            except StoreError as exc:
                self.writers[tp] = PartitionWriter(tp, self.parts, None)
                self._schedule_retry(tp, 1, None, exc)
                continue
            self.writers[tp] = PartitionWriter(tp, self.parts, resume_at)
            if resume_at is not None:
                self.context.offset({tp: resume_at})
                log.info("%s resumes at offset %d, after its committed files", tp, resume_at)

    def close(self, partitions: set[TopicPartition]) -> None:
        """Throw away the open files of revoked partitions: their next owner reads the records again."""
        for tp in partitions:
            writer = self.writers.pop(tp, None)
            if writer is not None:
                writer.abandon()
            if self.retries.pop(tp, None) is not None:
                self.context.resume(tp)  # should it come back, it starts unpaused

    # --- records ---------------------------------------------------------------------------------

    def put(self, records: Sequence[SinkRecord]) -> None:
        """Write each partition's records, rotate on schedule, and retry partitions a store error stopped."""
        now_ms = _now_ms()
        by_partition: dict[TopicPartition, list[SinkRecord]] = {}
        for record in records:
            by_partition.setdefault(kafka_partition(record), []).append(record)
        reject = self._rejecter()
        for tp, batch in by_partition.items():
            if tp not in self.writers and tp not in self.retries:
                self.open({tp})  # the framework always opens first; recover it now if it did not
            retry = self.retries.get(tp)
            if retry is not None:
                # Sought back when it recovers, so these records come again.
                if retry.fallback is None:
                    retry.fallback = kafka_offset(batch[0])
                continue
            writer = self.writers[tp]
            self._guarded(tp, partial(writer.write, batch, now_ms, reject), kafka_offset(batch[0]))
        if self.next_rotation is not None and now_ms >= self.next_rotation:
            for tp, writer in list(self.writers.items()):
                if writer.count and tp not in self.retries:
                    self._guarded(tp, writer.commit, None)
            self.next_rotation = next_boundary(now_ms, self.settings.rotate_schedule_interval_ms, self.zone)
        self._retry_due(now_ms)

    def _rejecter(self) -> Callable[[SinkRecord, DataError], None]:
        reporter = self.context.errant_record_reporter()

        def reject(record: SinkRecord, error: DataError) -> None:
            if reporter is None:
                raise error
            reporter.report(record, error)

        return reject

    def _guarded(self, tp: TopicPartition, action: Callable[[], None], first_offset: int | None) -> None:
        try:
            action()
        except StoreError as exc:
            writer = self.writers[tp]
            resume_at = writer.abandon()
            previous = self.retries.get(tp)
            attempts = (previous.attempts if previous else 0) + 1
            fallback = resume_at if resume_at is not None else first_offset
            self._schedule_retry(tp, attempts, fallback, exc)

    def _schedule_retry(
        self, tp: TopicPartition, attempts: int, fallback: int | None, exc: StoreError
    ) -> None:
        settings = self.settings
        if attempts > settings.max_retries:
            raise ConnectError(
                f"Could not write {tp.topic}-{tp.partition} to {self.parts.store.description} after "
                f"{settings.max_retries} retries: {exc}"
            ) from exc
        log.warning(
            "Writing %s to %s failed (%s); its open files are dropped and it is paused, "
            "retry %d of %d in %d ms",
            tp,
            self.parts.store.description,
            exc,
            attempts,
            settings.max_retries,
            settings.retry_backoff_ms,
        )
        self.retries[tp] = Retry(attempts, _now_ms() + settings.retry_backoff_ms, fallback)
        self.context.pause(tp)

    def _retry_due(self, now_ms: int) -> None:
        for tp, retry in list(self.retries.items()):
            if now_ms < retry.at_ms:
                continue
            try:
                found = recover(self.parts.store, self.parts.commit_log, self.settings.topics_dir, tp)
            except StoreError as exc:
                self._schedule_retry(tp, retry.attempts + 1, retry.fallback, exc)
                continue
            resume_at = found if found is not None else retry.fallback
            del self.retries[tp]
            self.writers[tp] = PartitionWriter(tp, self.parts, resume_at)
            if resume_at is not None:
                self.context.offset({tp: resume_at})
            self.context.resume(tp)
            log.info(
                "%s recovered from %s; resuming at offset %s", tp, self.parts.store.description, resume_at
            )

    def pre_commit(self, current_offsets: Mapping[TopicPartition, int]) -> Mapping[TopicPartition, int]:
        """Per partition, the offset before which every record is in a committed file."""
        safe: dict[TopicPartition, int] = {}
        for tp, writer in self.writers.items():
            offset = writer.safe_offset()
            if offset is not None and tp in current_offsets:
                safe[tp] = min(offset, current_offsets[tp])
        return safe

    def stop(self) -> None:
        """Throw the open files away and close the store."""
        parts = getattr(self, "parts", None)
        if parts is None:
            return
        for writer in self.writers.values():
            writer.abandon()
        self.writers.clear()
        parts.store.close()
