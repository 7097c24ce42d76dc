"""Runs a JdbcSourceTask the way the source loop does, against a real database, keeping its offsets.

`SourceRun.poll_until` calls `poll` until enough records came; each record's offset is kept as the
committed offset of its partition (what the worker stores once Kafka acknowledged it), so a new
task started with `restart` resumes where the last one stopped.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

from kconnect import SourceRecord
from kconnect_jdbc.source.task import JdbcSourceTask


class CommittedOffsets:
    """Source offsets by partition, as the worker's offset store keeps them."""

    def __init__(self) -> None:
        self.by_partition: dict[str, Mapping[str, Any]] = {}

    def offset(self, partition: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """The committed offset of `partition`."""
        return self.by_partition.get(json.dumps(dict(partition), sort_keys=True))

    def offsets(
        self, partitions: Sequence[Mapping[str, Any]]
    ) -> list[tuple[Mapping[str, Any], Mapping[str, Any] | None]]:
        """Committed offsets of several partitions."""
        return [(p, self.offset(p)) for p in partitions]

    def commit(self, record: SourceRecord) -> None:
        """Keep `record`'s offset as its partition's committed one."""
        if record.source_partition is not None and record.source_offset is not None:
            key = json.dumps(dict(record.source_partition), sort_keys=True)
            self.by_partition[key] = record.source_offset


class SourceRun:
    """One started task and the offsets it committed."""

    def __init__(self, config: Mapping[str, str], offsets: CommittedOffsets | None = None) -> None:
        self.config = dict(config)
        self.offsets = offsets or CommittedOffsets()
        self.task = JdbcSourceTask()
        self.task.initialize(self)  # type: ignore[arg-type]
        self.task.start(self.config)

    @property
    def configs(self) -> Mapping[str, str]:
        """The task's config (SourceTaskContext)."""
        return self.config

    @property
    def offset_storage_reader(self) -> CommittedOffsets:
        """The committed offsets (SourceTaskContext)."""
        return self.offsets

    def poll_until(self, count: int, timeout: float = 30.0) -> list[SourceRecord]:
        """Poll until `count` records came (more is an error of the caller's expectation)."""
        records: list[SourceRecord] = []
        deadline = time.monotonic() + timeout
        while len(records) < count and time.monotonic() < deadline:
            batch = self.task.poll() or []
            for record in batch:
                self.offsets.commit(record)
            records += batch
        assert len(records) >= count, f"only {len(records)} of {count} records within {timeout} s"
        return records

    def poll_for(self, seconds: float) -> list[SourceRecord]:
        """Every record polled during `seconds`."""
        records: list[SourceRecord] = []
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            batch = self.task.poll() or []
            for record in batch:
                self.offsets.commit(record)
            records += batch
        return records

    def restart(self) -> SourceRun:
        """Stop this task and start a new one on the same committed offsets."""
        self.task.stop()
        return SourceRun(self.config, self.offsets)

    def stop(self) -> None:
        """Stop the task."""
        self.task.stop()
