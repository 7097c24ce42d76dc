"""A connector config's record pipeline run over sample records, without a broker (``kconnect test``).

`DryRun` builds what a task loop builds around its task (`build_task_plugins`: the converters and
the transformation chain with its predicates; `ErrorHandler.for_connector`: the ``errors.*`` keys)
and pushes records through the loop's own steps:

* source: each `SourceRecord` goes through `SourceRecordPreparer` (transformations, then the
  converters' bytes), as `SourceLoop` prepares what it sends;
* sink: each consumed message (raw key, value and headers) goes through `SinkRecordBuilder`
  (converters, then transformations), as `SinkLoop` builds what ``put`` receives.

Each record gives one `Outcome`: delivered, dropped by a transformation, skipped after an error
(``errors.tolerance=all``), or failed: under ``errors.tolerance=none`` the first failure ends the run
with "Tolerance exceeded in error handler", as it fails the task.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from kconnect.errors import ConnectError
from kconnect.plugin_host import PluginHost
from kconnect.records import ConnectRecord, SinkRecord, SourceRecord
from kconnect.runtime.error_handling import ErrorHandler, Failure
from kconnect.runtime.sink_records import SinkRecordBuilder
from kconnect.runtime.source_records import SourceRecordPreparer
from kconnect.runtime.task_plugins import TaskPlugins, build_task_plugins


@dataclass(frozen=True)
class Delivered:
    """A record that reaches Kafka (source: with the converters' bytes) or the task (sink)."""

    record: ConnectRecord
    key: bytes | None = None
    value: bytes | None = None
    headers: tuple[tuple[str, bytes], ...] = ()


@dataclass(frozen=True)
class Dropped:
    """A transformation returned no record (a Filter, say)."""


@dataclass(frozen=True)
class Skipped:
    """The record failed and ``errors.tolerance=all`` skipped it."""

    failure: Failure


@dataclass(frozen=True)
class Failed:
    """The record failed and ``errors.tolerance=none`` failed the task: the run ends here."""

    failure: Failure
    message: str


Outcome = Delivered | Dropped | Skipped | Failed

T = TypeVar("T")


class _Failures:
    """An error reporter that keeps the failures of the record being processed."""

    def __init__(self) -> None:
        self.seen: list[Failure] = []

    def report(self, failure: Failure) -> None:
        """Keep `failure` (called by the `ErrorHandler`)."""
        self.seen.append(failure)

    def take(self) -> Failure | None:
        """The last failure since the previous call, if any."""
        last = self.seen[-1] if self.seen else None
        self.seen.clear()
        return last


class DryRun:
    """One connector config's converters, transformations, predicates and error policy."""

    def __init__(self, host: PluginHost, worker: Mapping[str, str], connector: Mapping[str, str]) -> None:
        """Build the plugins as a task loop does; ConnectError names the key of one that cannot be made."""
        self._failures = _Failures()
        self.plugins: TaskPlugins = build_task_plugins(host, worker, connector)
        name = connector.get("name") or "dry-run"
        self._errors = ErrorHandler.for_connector(f"{name}-0", connector, self._failures)

    def source(self, records: Iterable[SourceRecord]) -> Iterator[Outcome]:
        """What a source task's records become; stops after a `Failed`."""
        preparer = SourceRecordPreparer(self.plugins, self._errors)
        for record in records:
            result = self._attempt(functools.partial(preparer.prepare, record))
            if isinstance(result, tuple):
                transformed, key, value, headers = result
                yield Delivered(transformed, key, value, tuple(headers))
                continue
            yield result
            if isinstance(result, Failed):
                return

    def sink(self, messages: Iterable[Any]) -> Iterator[Outcome]:
        """What consumed messages (aiokafka ConsumerRecords) become for the task; stops after a `Failed`."""
        builder = SinkRecordBuilder(self.plugins, self._errors)
        for message in messages:
            result = self._attempt(functools.partial(builder.record, message))
            if isinstance(result, SinkRecord):
                yield Delivered(result)
                continue
            yield result
            if isinstance(result, Failed):
                return

    def _attempt(self, step: Callable[[], T | None]) -> T | Dropped | Skipped | Failed:
        """`step`'s result, or what happened to the record instead."""
        try:
            result = step()
        except ConnectError as exc:
            failure = self._failures.take()
            if failure is None:
                raise
            return Failed(failure, str(exc))
        failure = self._failures.take()
        if result is not None:
            return result
        return Dropped() if failure is None else Skipped(failure)

    def close(self) -> None:
        """Close every transformation and predicate."""
        self.plugins.close()
