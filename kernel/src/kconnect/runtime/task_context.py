"""The contexts a task sees (`SourceTaskContext`, `SinkTaskContext`), backed by the task loop.

Task code runs in a worker thread of the loop (so a slow `poll`/`put` never stalls Kafka I/O);
calls that need the worker are bridged back onto the loop's event loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import Any

from kconnect.task import ErrantRecordReporter, TopicPartition, TransactionContext

#: How long a read of committed source offsets from a task's or connector's thread waits.
OFFSET_READ_TIMEOUT_S = 60.0

#: Reads the committed offsets of some source partitions, in their order (None where there is none).
ReadOffsets = Callable[[list[Mapping[str, Any]]], Coroutine[Any, Any, Sequence[Mapping[str, Any] | None]]]


class LoopOffsetReader:
    """An OffsetStorageReader for code in a worker thread: each read runs on the event loop `loop`.

    A task's reader asks the worker through its control channel; a source connector's reads the
    worker's offset store (`kconnect.herder.connectors`). Never call it from `loop` itself.
    """

    def __init__(self, read: ReadOffsets, loop: asyncio.AbstractEventLoop) -> None:
        self._read = read
        self._loop = loop

    def offset(self, partition: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """The committed offset of one source partition, or None."""
        return self.offsets([partition])[0][1]

    def offsets(
        self, partitions: Sequence[Mapping[str, Any]]
    ) -> list[tuple[Mapping[str, Any], Mapping[str, Any] | None]]:
        """The committed offsets of these partitions, as (partition, offset) pairs."""
        future = asyncio.run_coroutine_threadsafe(self._read(list(partitions)), self._loop)
        return list(zip(partitions, future.result(timeout=OFFSET_READ_TIMEOUT_S), strict=True))


class LoopSourceTaskContext:
    """The SourceTaskContext of a task run by the source loop."""

    def __init__(
        self,
        configs: Mapping[str, str],
        reader: LoopOffsetReader,
        transactions: TransactionContext | None = None,
    ) -> None:
        self._configs = configs
        self._reader = reader
        self._transactions = transactions

    @property
    def configs(self) -> Mapping[str, str]:
        """The task's configuration."""
        return self._configs

    @property
    def offset_storage_reader(self) -> LoopOffsetReader:
        """Reads this connector's committed source offsets."""
        return self._reader

    @property
    def transaction_context(self) -> TransactionContext | None:
        """The task's transaction context under connector-defined transaction boundaries, else None."""
        return self._transactions


class LoopSinkTaskContext:
    """The SinkTaskContext of a task run by the sink loop; requests are applied between batches.

    Partitions the task pauses stay paused across a pause/resume of the whole task.
    """

    def __init__(self, configs: Mapping[str, str], errant: ErrantRecordReporter | None = None) -> None:
        self._configs = configs
        self._errant = errant
        self.assigned: set[TopicPartition] = set()
        self.offset_resets: dict[TopicPartition, int] = {}
        #: The partitions the task paused; the loop keeps the consumer's pauses in line with it.
        self.paused: set[TopicPartition] = set()
        self.timeout_ms: int | None = None
        self.commit_requested = False

    @property
    def configs(self) -> Mapping[str, str]:
        """The task's configuration."""
        return self._configs

    def errant_record_reporter(self) -> ErrantRecordReporter | None:
        """The reporter for records `put` cannot handle; None without a DLQ or error logging."""
        return self._errant

    def assignment(self) -> set[TopicPartition]:
        """The partitions this task currently consumes."""
        return set(self.assigned)

    def offset(self, offsets: Mapping[TopicPartition, int]) -> None:
        """Rewind or skip: the next records read from these partitions start at the offsets."""
        self.offset_resets.update(offsets)

    def timeout(self, timeout_ms: int) -> None:
        """Wait this long before retrying after a RetriableError."""
        self.timeout_ms = timeout_ms

    def pause(self, *partitions: TopicPartition) -> None:
        """Stop fetching these partitions."""
        self.paused.update(partitions)

    def resume(self, *partitions: TopicPartition) -> None:
        """Resume fetching these partitions."""
        self.paused.difference_update(partitions)

    def request_commit(self) -> None:
        """Commit offsets soon."""
        self.commit_requested = True
