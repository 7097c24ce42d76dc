"""The task side of the executor's control channel: what a running task loop needs from its worker.

An executor hands a task loop a `TaskControl`; the Spark executor implements it over a socket to
the worker, tests may implement it in memory. Only control traffic crosses it: target states,
committed source offsets, offset reads and topic names; never records.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from kconnect.herder.model import TargetState


class TaskControl(Protocol):
    """The worker, as a running task loop sees it."""

    @property
    def target(self) -> TargetState:
        """The target state the worker last asked for."""
        ...

    async def wait_for_target_change(self, current: TargetState, timeout_s: float) -> TargetState:
        """Wait until the target differs from `current` (or the timeout passes); return it."""
        ...

    async def report_running(self) -> None:
        """The task is running (started, or resumed after a pause)."""
        ...

    async def report_paused(self) -> None:
        """The task honoured a pause."""
        ...

    async def commit_source_offsets(
        self, offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]]
    ) -> None:
        """Store these source offsets durably at the worker; returns once they are stored."""
        ...

    async def read_source_offsets(
        self, partitions: Sequence[Mapping[str, Any]]
    ) -> list[Mapping[str, Any] | None]:
        """The committed offsets of these source partitions."""
        ...

    async def topic_used(self, topic: str) -> None:
        """Tell the worker this task used `topic` (first use only; the loop deduplicates)."""
        ...
