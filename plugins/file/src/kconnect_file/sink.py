"""FileStreamSink: writes each record's value as one line of a file (or stdout)."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import IO, Any, ClassVar

from kconnect import ConfigDef, SinkBatch, SinkConnector, SinkRecord, SinkTask, TopicPartition
from kconnect.config import ConfigType, Importance
from kconnect.data.values import java_to_string

from kconnect_file.version import VERSION

FILE_CONFIG = "file"


def render(value: Any) -> str:
    """A value as Kafka's FileStreamSink prints it: Java's ``toString`` of the value (``null``,
    ``true``, ``Struct{id=1,name=Ada}``, ``{a=1}``, ``1.0E20``); bytes as UTF-8 text."""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return java_to_string(value)


class FileStreamSinkConnector(SinkConnector):
    """Appends every record's value to one file (stdout when ``file`` is unset)."""

    java_class_names: ClassVar[tuple[str, ...]] = ("org.apache.kafka.connect.file.FileStreamSinkConnector",)
    config_def: ClassVar[ConfigDef] = ConfigDef().define(
        FILE_CONFIG,
        type=ConfigType.STRING,
        default=None,
        importance=Importance.HIGH,
        documentation="Destination filename. If not specified, the standard output will be used",
    )

    @classmethod
    def version(cls) -> str:
        """The plugin's version."""
        return VERSION

    def start(self, config: Mapping[str, str]) -> None:
        """Keep the config for the tasks."""
        self.config = dict(config)

    def task_class(self) -> type[FileStreamSinkTask]:
        """FileStreamSinkTask."""
        return FileStreamSinkTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        """`max_tasks` identical tasks, as Kafka's connector gives."""
        return [dict(self.config) for _ in range(max_tasks)]

    def stop(self) -> None:
        """Nothing to release."""

    def alter_offsets(self, config: Mapping[str, str], offsets: Mapping[Any, Any]) -> bool:
        """Accept any KIP-875 alter or reset: the file holds no offsets of its own (as Kafka's sink)."""
        return True


class FileStreamSinkTask(SinkTask):
    """Writes values as lines; each batch is flushed to the OS when `put` returns."""

    java_class_names: ClassVar[tuple[str, ...]] = ("org.apache.kafka.connect.file.FileStreamSinkTask",)

    @classmethod
    def version(cls) -> str:
        """The plugin's version."""
        return VERSION

    def start(self, config: Mapping[str, str]) -> None:
        """Open the file for appending."""
        filename = config.get(FILE_CONFIG) or None
        self.stream: IO[str] = (
            open(filename, "a", encoding="utf-8", newline="\n", buffering=1 << 20) if filename else sys.stdout
        )
        self.owns_stream = filename is not None

    def put(self, records: Sequence[SinkRecord]) -> None:
        """Append one line per record and hand the batch to the OS (low latency, cheap per batch)."""
        if not records:
            return
        self.stream.write("".join(render(r.value) + "\n" for r in records))
        self.stream.flush()

    def put_batch(self, batch: SinkBatch) -> None:
        """`put` for a fetch given as columns (no transformation configured): the values alone."""
        if not batch:
            return
        values = batch.values
        if all(type(value) is str for value in values):
            # Text values, the common case, need no rendering: joined with the newlines as they are.
            self.stream.write("\n".join(values))
            self.stream.write("\n")
        else:
            self.stream.write("".join(render(value) + "\n" for value in values))
        self.stream.flush()

    def flush(self, current_offsets: Mapping[TopicPartition, int]) -> None:
        """Make every written line durable before its offset is committed."""
        self.stream.flush()
        if self.owns_stream:
            import os

            os.fsync(self.stream.fileno())

    def stop(self) -> None:
        """Flush and close the file."""
        self.stream.flush()
        if self.owns_stream:
            self.stream.close()
