"""One Kafka partition's way into files: open files per encoded partition, rotation, commit.

`PartitionWriter` keeps the invariant the exactly-once promise rests on: ``next_offset`` is the
offset after the last record written for the partition (in an open or a committed file), and any
record below it is skipped, whenever and however often Kafka delivers it again. Rotation seals every
open file of the partition and publishes them through the `CommitLog`, so the committed files'
names always say where the partition's output ends (`kconnect_storage.recovery` reads them back).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from kconnect import SinkRecord, TopicPartition
from kconnect.data.projector import project
from kconnect.data.schema import Schema
from kconnect.errors import DataError

from kconnect_storage.commit_log import CommitLog
from kconnect_storage.config import SchemaCompatibility, SinkSettings
from kconnect_storage.formats import RecordFormat, RecordWriter
from kconnect_storage.naming import committed_name, join, name_prefix
from kconnect_storage.partitioners import Partitioner
from kconnect_storage.partitioners.extractors import TimestampExtractor
from kconnect_storage.stores import StagedFile, Store, Token

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Parts:
    """What every partition writer of a task shares: the store, format, partitioner and settings."""

    settings: SinkSettings
    store: Store
    record_format: RecordFormat
    partitioner: Partitioner
    extractor: TimestampExtractor
    commit_log: CommitLog


@dataclass
class OpenFile:
    """A staged file of one encoded partition, with the records not yet handed to its writer."""

    directory: str
    staged: StagedFile
    writer: RecordWriter
    first_offset: int
    last_offset: int
    pending: list[SinkRecord] = field(default_factory=list)

    def drain(self) -> None:
        """Hand the pending records to the format's writer (one call per batch: formats work column-wise)."""
        if self.pending:
            self.writer.write(self.pending)
            self.pending = []


def kafka_offset(record: SinkRecord) -> int:
    """The offset the record was consumed at, whatever transformations changed."""
    return record.original_kafka_offset if record.original_kafka_offset is not None else record.kafka_offset


def kafka_partition(record: SinkRecord) -> TopicPartition:
    """The Kafka partition the record was consumed from, whatever transformations changed (the kernel's
    sink loop keys its offsets the same way)."""
    if record.original_kafka_partition is not None:
        partition = record.original_kafka_partition
    else:
        partition = record.kafka_partition or 0
    return TopicPartition(record.original_topic or record.topic, partition)


class PartitionWriter:
    """Writes the records of one Kafka partition into files and commits them; see the module docstring."""

    def __init__(self, tp: TopicPartition, parts: Parts, next_offset: int | None) -> None:
        """A writer resuming after `next_offset` (None: nothing of the partition was written yet)."""
        self.tp = tp
        self.parts = parts
        self.next_offset = next_offset
        self.files: dict[str, OpenFile] = {}
        #: Records in the open files (what flush.size counts).
        self.count = 0
        #: First offset of the records in the open files (where to resume if they are lost).
        self.batch_first_offset: int | None = None
        #: Time (of the timestamp extractor) of the first record in the open files.
        self.batch_timestamp: int | None = None
        #: The value schema of the open files; kept across rotations for schema.compatibility.
        self.schema: Schema | None = None
        self._schema_seen = False

    # --- writing ---------------------------------------------------------------------------------

    def write(
        self, records: Sequence[SinkRecord], now_ms: int, reject: Callable[[SinkRecord, DataError], None]
    ) -> None:
        """Write the partition's records (in offset order), committing whenever a rotation is due.

        A record that cannot be placed or fit (no field, no schema version, no format for it) goes to
        `reject`, which reports it to the errant record reporter or raises.
        """
        settings = self.parts.settings
        for record in records:
            offset = kafka_offset(record)
            if self.next_offset is not None and offset < self.next_offset:
                continue
            try:
                if record.value is None:
                    if settings.ignore_null_values:
                        continue
                    raise DataError(
                        f"Null valued records are not writeable with current behavior.on.null.values 'fail' "
                        f"settings (record {record.topic}-{self.tp.partition}@{offset})"
                    )
                if record.topic != self.tp.topic:
                    raise DataError(
                        f"Record {self.tp.topic}-{self.tp.partition}@{offset} was renamed to topic "
                        f"{record.topic!r} by a transformation: the storage sink writes a record under the "
                        "topic it was read from (its recovery finds the files there), so it takes no "
                        "topic-renaming transformation"
                    )
                record = self._fit_schema(record)
                if settings.rotate_interval_ms > 0:
                    timestamp = self.parts.extractor.extract(record, now_ms)
                    if self.batch_timestamp is None:
                        self.batch_timestamp = timestamp
                    elif timestamp - self.batch_timestamp >= settings.rotate_interval_ms:
                        self.commit()
                        self.batch_timestamp = timestamp
                encoded = self.parts.partitioner.encode_partition(record, now_ms)
                open_file = self.files.get(encoded)
                if open_file is None:
                    open_file = self._open(encoded, offset)
            except DataError as exc:
                reject(record, exc)
                continue
            open_file.pending.append(record)
            open_file.last_offset = offset
            if self.batch_first_offset is None:
                self.batch_first_offset = offset
            self.next_offset = offset + 1
            self.count += 1
            if self.count >= settings.flush_size:
                self.commit()
        for open_file in self.files.values():
            open_file.drain()

    def _fit_schema(self, record: SinkRecord) -> SinkRecord:
        """Rotate on a schema change, or project the record onto the open schema (schema.compatibility)."""
        schema = record.value_schema
        if self._schema_seen and (schema is self.schema or schema == self.schema):
            return record
        current = self.schema
        compatibility = self.parts.settings.schema_compatibility
        if (
            not self._schema_seen
            or compatibility is SchemaCompatibility.NONE
            or schema is None
            or current is None
        ):
            change = True
        else:
            if schema.version is None or current.version is None:
                raise DataError(
                    f"Schema version required for {compatibility.value} compatibility "
                    f"(record {record.topic}-{self.tp.partition}@{kafka_offset(record)})"
                )
            if compatibility is SchemaCompatibility.FORWARD:
                change = schema.version < current.version
            else:
                change = schema.version > current.version
        if change:
            if self.count:
                log.info("Value schema of %s changed: committing its open files", self.tp)
                self.commit()
            self.schema = schema
            self._schema_seen = True
            return record
        assert current is not None and schema is not None
        projected: SinkRecord = record.new_record(
            value=project(schema, record.value, current), value_schema=current
        )
        return projected

    def _open(self, encoded: str, offset: int) -> OpenFile:
        parts = self.parts
        directory = join(
            parts.settings.topics_dir, parts.partitioner.partitioned_path(self.tp.topic, encoded)
        )
        staged = parts.store.stage(directory, name_prefix(self.tp))
        try:
            writer = parts.record_format.writer(staged, self.schema)  # type: ignore[arg-type]
        except DataError as exc:
            staged.discard()
            raise DataError(f"{exc} (record {self.tp.topic}-{self.tp.partition}@{offset})") from exc
        except BaseException:
            staged.discard()
            raise
        open_file = OpenFile(directory, staged, writer, offset, offset)
        self.files[encoded] = open_file
        return open_file

    # --- committing ------------------------------------------------------------------------------

    def commit(self) -> None:
        """Seal every open file under its final name and publish them together (a rotation)."""
        if not self.files:
            return
        settings = self.parts.settings
        extension = self.parts.record_format.extension
        tokens: list[Token] = []
        for open_file in self.files.values():
            open_file.drain()
            open_file.writer.close()
            name = committed_name(
                self.tp, open_file.first_offset, open_file.last_offset, extension, settings.zero_pad_width
            )
            tokens.append(open_file.staged.seal(join(open_file.directory, name)))
        self.files.clear()
        self.parts.commit_log.publish(self.tp, tokens)
        log.debug("Committed %d records of %s in %d files", self.count, self.tp, len(tokens))
        self.count = 0
        self.batch_first_offset = None
        self.batch_timestamp = None

    def safe_offset(self) -> int | None:
        """The offset before which every record of the partition is in a committed file (or skipped)."""
        return self.batch_first_offset if self.batch_first_offset is not None else self.next_offset

    def abandon(self) -> int | None:
        """Throw the open files away (their records are read from Kafka again); returns where to resume."""
        resume_at = self.safe_offset()
        for open_file in self.files.values():
            try:
                # Closed first, so the format's writer has nothing left to flush into a discarded file.
                open_file.writer.close()
            except Exception as exc:
                log.debug("Closing an abandoned file of %s failed: %s", self.tp, exc)
            try:
                open_file.staged.discard()
            except Exception as exc:
                # What is left behind is thrown away by the next recovery of the partition.
                log.warning("Could not discard a staged file of %s: %s", self.tp, exc)
        self.files.clear()
        self.count = 0
        self.batch_first_offset = None
        self.batch_timestamp = None
        self.next_offset = resume_at
        return resume_at
