"""FileStreamSource: each line of a file (or stdin) becomes a record on one topic.

Offsets: partition ``{"filename": <file>}``, offset ``{"position": <byte after the line>}``, the
shape Kafka's FileStreamSourceTask uses, so the offsets REST API shows the familiar form. A line
is emitted only once its newline was written, so a half-written last line is never cut in two.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Mapping
from typing import IO, Any, ClassVar, TypeVar

from kconnect import ConfigDef, SourceBatch, SourceConnector, SourceRecord, SourceTask
from kconnect.config import ConfigType, Importance, NonEmptyString
from kconnect.connector import ExactlyOnceSupport
from kconnect.data.schema import STRING_SCHEMA
from kconnect.errors import ConnectError

from kconnect_file.lines import LineBuffer
from kconnect_file.version import VERSION

log = logging.getLogger(__name__)

T = TypeVar("T")

FILE_CONFIG = "file"
TOPIC_CONFIG = "topic"
FILENAME_FIELD = "filename"
POSITION_FIELD = "position"
BATCH_SIZE_CONFIG = "batch.size"
DEFAULT_BATCH_SIZE = 2000
READ_CHUNK = 1 << 20


class FileStreamSourceConnector(SourceConnector):
    """Reads one file (or stdin when ``file`` is unset) into one topic, with a single task."""

    java_class_names: ClassVar[tuple[str, ...]] = ("org.apache.kafka.connect.file.FileStreamSourceConnector",)
    config_def: ClassVar[ConfigDef] = (
        ConfigDef()
        .define(
            FILE_CONFIG,
            type=ConfigType.STRING,
            default=None,
            importance=Importance.HIGH,
            documentation="Source filename. If not specified, the standard input will be used",
        )
        .define(
            TOPIC_CONFIG,
            type=ConfigType.STRING,
            importance=Importance.HIGH,
            documentation="The topic to publish data to",
            validator=NonEmptyString(),
        )
        .define(
            BATCH_SIZE_CONFIG,
            type=ConfigType.INT,
            default=DEFAULT_BATCH_SIZE,
            importance=Importance.LOW,
            documentation=(
                "The maximum number of records the source task can read from the file each time it is polled"
            ),
        )
    )

    @classmethod
    def version(cls) -> str:
        """The plugin's version."""
        return VERSION

    def start(self, config: Mapping[str, str]) -> None:
        """Keep the (validated) config for the single task."""
        self.config_def.parse(config)
        self.config = dict(config)

    def task_class(self) -> type[FileStreamSourceTask]:
        """FileStreamSourceTask."""
        return FileStreamSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        """One task: a file is read by a single reader."""
        return [dict(self.config)]

    def stop(self) -> None:
        """Nothing to release."""

    def exactly_once_support(self, config: Mapping[str, str]) -> ExactlyOnceSupport:
        """SUPPORTED when reading a file, UNSUPPORTED for stdin (whose offsets are not tracked), as
        Kafka's connector answers; a file only appended to while the connector runs is read once.

        Asked by validation for ``exactly.once.support=required``; a config that does not parse
        raises (validation shows the error on that key)."""
        filename = self.config_def.parse(config)[FILE_CONFIG]
        return ExactlyOnceSupport.SUPPORTED if filename else ExactlyOnceSupport.UNSUPPORTED

    def alter_offsets(self, config: Mapping[str, str], offsets: Mapping[Any, Any]) -> bool:
        """Accept offsets ``{"filename": ...}`` -> ``{"position": <int >= 0>}``, as Kafka's connector checks.

        Called by the herder for a KIP-875 alter or reset of the STOPPED connector; raises
        ConnectError (Kafka's texts) for a config reading stdin or a malformed offset. Tombstones
        are always accepted, so stale partitions can be cleaned up.
        """
        filename = self.config_def.parse(config)[FILE_CONFIG]
        if not filename:
            raise ConnectError(
                f"Offsets cannot be modified if the '{FILE_CONFIG}' configuration is unspecified. "
                "This is because stdin is used for input and offsets are not tracked."
            )
        for partition, offset in offsets.items():
            if offset is None:
                continue
            if POSITION_FIELD not in offset:
                raise ConnectError(
                    f"Offset objects should either be null or contain the key '{POSITION_FIELD}'"
                )
            position = offset[POSITION_FIELD]
            if not isinstance(position, int) or isinstance(position, bool):
                raise ConnectError(
                    f"The value for the '{POSITION_FIELD}' key in the offset is expected to be a Long value"
                )
            if position < 0:
                raise ConnectError(
                    f"The value for the '{POSITION_FIELD}' key in the offset should be a non-negative value"
                )
            if partition is None:
                raise ConnectError("Partition objects cannot be null")
            if FILENAME_FIELD not in partition:
                raise ConnectError(f"Partition objects should contain the key '{FILENAME_FIELD}'")
        # The task checks on start-up whether the position fits the configured file.
        return True


class FileStreamSourceTask(SourceTask):
    """Reads complete lines from the file, resuming at the committed byte position."""

    java_class_names: ClassVar[tuple[str, ...]] = ("org.apache.kafka.connect.file.FileStreamSourceTask",)

    @classmethod
    def version(cls) -> str:
        """The plugin's version."""
        return VERSION

    def start(self, config: Mapping[str, str]) -> None:
        """Read the config and the committed position; the file is opened on the first poll."""
        parsed = FileStreamSourceConnector.config_def.parse(config)
        self.filename: str | None = str(parsed[FILE_CONFIG] or "") or None
        self.topic: str = str(parsed[TOPIC_CONFIG])
        self.batch_size: int = int(str(parsed[BATCH_SIZE_CONFIG]))
        self.stream: IO[bytes] | None = None
        self.lines = LineBuffer()
        if self.filename:
            committed = self.context.offset_storage_reader.offset({FILENAME_FIELD: self.filename})
            if committed is not None:
                position = committed.get(POSITION_FIELD)
                if not isinstance(position, int):
                    raise ValueError(f"Offset position is the incorrect type: {position!r}")
                self.lines = LineBuffer(position)
                log.info("Resuming %s at byte %d", self.filename, position)

    def _open(self) -> IO[bytes] | None:
        if self.stream is not None:
            return self.stream
        if not self.filename:
            self.stream = sys.stdin.buffer
            return self.stream
        try:
            stream = open(self.filename, "rb")
        except FileNotFoundError:
            log.warning(
                "Couldn't find file %s for FileStreamSourceTask, sleeping to wait for it to be created",
                self.filename,
            )
            return None
        stream.seek(self.lines.position)
        self.stream = stream
        return stream

    def poll(self) -> list[SourceRecord] | None:
        """Return up to ``batch.size`` complete new lines, or None when there are none yet.

        Reads a chunk only when the buffer holds no complete line; each record's offset is the
        byte position just after its line.
        """
        partition = {FILENAME_FIELD: self.filename} if self.filename else None
        topic = self.topic
        records = [
            SourceRecord(
                topic=topic,
                value_schema=STRING_SCHEMA,
                value=line,
                source_partition=partition,
                source_offset={POSITION_FIELD: position} if partition else None,
            )
            for line, position in self._read(self.lines.take)
        ]
        return records or None

    def poll_batch(self) -> list[SourceBatch] | None:
        """The lines `poll` would return, as one batch whose offset is the position after the last.

        The framework takes this instead of `poll` where it can (`SourceTask.poll_batch`): no
        record object and no offset per line.
        """
        lines = self._read(self.lines.take_lines)
        if not lines:
            return None
        partition = {FILENAME_FIELD: self.filename} if self.filename else None
        return [
            SourceBatch(
                topic=self.topic,
                values=lines,
                value_schema=STRING_SCHEMA,
                source_partition=partition,
                source_offset={POSITION_FIELD: self.lines.position} if partition else None,
            )
        ]

    def _read(self, take: Callable[[int], list[T]]) -> list[T]:
        """Up to ``batch.size`` lines out of the buffer by `take`, reading more only when it has
        no complete line; empty when the file has none (or is not there yet)."""
        stream = self._open()
        if stream is None:
            return []
        taken: list[T] = []
        while len(taken) < self.batch_size:
            more = take(self.batch_size - len(taken))
            if not more:
                chunk = stream.read(READ_CHUNK) if self.filename else stream.readline()
                if not chunk:
                    break
                self.lines.feed(chunk)
                continue
            taken += more
        return taken

    def stop(self) -> None:
        """Close the file."""
        if self.stream is not None and self.filename:
            self.stream.close()
        self.stream = None
