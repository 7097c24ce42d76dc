"""Throwaway connectors and tasks for tests, every one the suite uses: each does one thing, and is
named for it. A test file defines a connector class of its own only when the class itself is what it
tests (a subclass with a Java name, two classes registered under one alias).

Unit tests import the classes and register them, under aliases of their own, with a `PluginHost` of
their own (``PluginHost.load(extra_plugins=[...])``). Integration tests install this file into a
worker process as a third-party plugin (`tests.plugin_package.install_connectors`); there
`register_connectors` registers the connectors a real worker runs, under `ALIASES`. So this module
imports only kconnect and the standard library: in a worker process ``tests`` is not importable.

A connector's task class is its class attribute ``task``, so a test that needs another task makes a
subclass (`source_connector`, `sink_connector`).
"""

from __future__ import annotations

import itertools
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from kconnect import (
    ConfigDef,
    RetriableError,
    SinkBatch,
    SinkConnector,
    SinkRecord,
    SinkTask,
    SourceBatch,
    SourceConnector,
    SourceRecord,
    SourceTask,
    TopicPartition,
    hookimpl,
)
from kconnect.connector import ConnectorTransactionBoundaries, ExactlyOnceSupport
from kconnect.model import TargetState
from kconnect.plugin_host import PluginRegistry

# --- tasks -------------------------------------------------------------------------------------------------

#: How long an idle source task's `poll` waits before it returns nothing (so a real worker does not spin).
IDLE_POLL_S = 0.2


class IdleSourceTask(SourceTask):
    """Starts, polls nothing (after `IDLE_POLL_S`) and stops."""

    def start(self, config: Mapping[str, str]) -> None:
        """Nothing to set up."""

    def poll(self) -> list[SourceRecord] | None:
        """Nothing, after a short wait."""
        time.sleep(IDLE_POLL_S)
        return None

    def stop(self) -> None:
        """Nothing to release."""


#: How long a busy source task's `poll` keeps a core busy before it returns nothing.
BUSY_POLL_S = 0.5


class BusySourceTask(IdleSourceTask):
    """Polls nothing, after keeping a core busy for `BUSY_POLL_S`: a hot task's load, without records."""

    def poll(self) -> list[SourceRecord] | None:
        """Nothing, after computing for a while."""
        deadline = time.perf_counter() + BUSY_POLL_S
        while time.perf_counter() < deadline:
            pass
        return None


class IdleSinkTask(SinkTask):
    """Starts, accepts every record without keeping it, and stops."""

    def start(self, config: Mapping[str, str]) -> None:
        """Nothing to set up."""

    def put(self, records: Sequence[SinkRecord]) -> None:
        """Drop the records."""

    def stop(self) -> None:
        """Nothing to release."""


#: The connector key naming the file a `BlockingPollTask` writes its calls to (optional).
EVENTS_FILE = "events.file"
#: The longest a blocking poll waits if nothing wakes it (so a broken stop cannot wedge a task forever).
POLL_LIMIT_S = 120.0


class BlockingPollTask(SourceTask):
    """`poll` blocks until `stop`, called from another thread, wakes it: the shape of many connectors
    ported from Java, whose `poll` waits on the external system.

    Each call is kept in `events` as ``(event, thread id)`` (``start``, ``poll``, ``stop``,
    ``poll-returned``, and ``poll-after-stop``, which should never happen) and, when the connector
    config names `EVENTS_FILE`, appended to that file as ``<run> <event> <unix time>``, ``<run>`` being
    this instance's id. The woken poll returns `woken_records` (set it on the task; none by default).
    """

    def __init__(self) -> None:
        self.woken_records: list[SourceRecord] | None = None
        self.events: list[tuple[str, int]] = []
        self._woken = threading.Event()
        self._lock = threading.Lock()
        self._run = uuid.uuid4().hex[:8]
        self._events_file: Path | None = None

    def start(self, config: Mapping[str, str]) -> None:
        """Remember the events file, if any."""
        if config.get(EVENTS_FILE):
            self._events_file = Path(config[EVENTS_FILE])
        self._record("start")

    def poll(self) -> list[SourceRecord] | None:
        """Block until `stop` is called; then return `woken_records`."""
        if self._woken.is_set():
            self._record("poll-after-stop")
            return None
        self._record("poll")
        self._woken.wait(POLL_LIMIT_S)
        self._record("poll-returned")
        return self.woken_records

    def stop(self) -> None:
        """Wake the blocked poll."""
        self._record("stop")
        self._woken.set()

    def names(self) -> list[str]:
        """The events so far, without their threads."""
        with self._lock:
            return [event for event, _ in self.events]

    def _record(self, event: str) -> None:
        with self._lock:
            self.events.append((event, threading.get_ident()))
            if self._events_file is not None:
                with self._events_file.open("a", encoding="utf-8") as out:
                    out.write(f"{self._run} {event} {time.time():.3f}\n")


class ScriptedSourceTask(SourceTask):
    """Returns the polls in `script` in turn, counting them in `polls`; when they run out, asks
    `control` (the worker control running it) to stop the task, if `stop_when_done`. Counts `commits`
    and keeps each committed record's value and metadata; `stopped` once stopped. The test sets
    `script`, `control` and `stop_when_done` on the task before it runs."""

    def __init__(self) -> None:
        self.script: list[list[SourceRecord]] = []
        self.control: Any = None
        self.stop_when_done = True
        self.polls = 0
        self.commits = 0
        self.committed_records: list[tuple[Any, Any]] = []
        self.stopped = False

    def start(self, config: Mapping[str, str]) -> None:
        """Nothing to set up."""

    def poll(self) -> list[SourceRecord] | None:
        """The next scripted poll; at the end, nothing (and a stop request, if `stop_when_done`)."""
        if not self.script:
            if self.stop_when_done:
                self.control.set_threadsafe(TargetState.STOPPED)
            return None
        self.polls += 1
        return self.script.pop(0)

    def commit(self) -> None:
        """Count the commit."""
        self.commits += 1

    def commit_record(self, record: SourceRecord, metadata: Any | None) -> None:
        """Keep the record's value and its metadata."""
        self.committed_records.append((record.value, metadata))

    def stop(self) -> None:
        """Remember the stop."""
        self.stopped = True


class BlockingBatchPollTask(BlockingPollTask):
    """`BlockingPollTask` polled as columns: `poll_batch` blocks as `poll` does, then returns the
    woken records as one batch (the last one's offset), or None."""

    def poll_batch(self) -> list[SourceBatch] | None:
        """`poll`, its records as one batch."""
        records = self.poll()
        if not records:
            return None
        first, last = records[0], records[-1]
        return [
            SourceBatch(
                topic=first.topic,
                values=[record.value for record in records],
                value_schema=first.value_schema,
                kafka_partition=first.kafka_partition,
                source_partition=first.source_partition,
                source_offset=last.source_offset,
            )
        ]


class ScriptedBatchSourceTask(SourceTask):
    """Returns the polls in `script` in turn, each a list of `SourceBatch`es: as columns from
    `poll_batch`, as their records from `poll` (counted in `batch_polls` and `record_polls`); when
    they run out, asks `control` to stop the task, if `stop_when_done`. It does not override
    `commit_record`, so the source loop may take its batches as they are."""

    def __init__(self) -> None:
        self.script: list[list[SourceBatch]] = []
        self.control: Any = None
        self.stop_when_done = True
        self.batch_polls = 0
        self.record_polls = 0
        self.commits = 0

    def start(self, config: Mapping[str, str]) -> None:
        """Nothing to set up."""

    def _next(self) -> list[SourceBatch] | None:
        if not self.script:
            if self.stop_when_done:
                self.control.set_threadsafe(TargetState.STOPPED)
            return None
        return self.script.pop(0)

    def poll_batch(self) -> list[SourceBatch] | None:
        """The next scripted poll, as it is."""
        batches = self._next()
        self.batch_polls += batches is not None
        return batches

    def poll(self) -> list[SourceRecord] | None:
        """The records of the next scripted poll, batch after batch."""
        batches = self._next()
        self.record_polls += batches is not None
        return None if batches is None else [r for batch in batches for r in batch.records()]

    def commit(self) -> None:
        """Count the commit."""
        self.commits += 1

    def stop(self) -> None:
        """Nothing to release."""


class CallLog:
    """Intervals of task calls, recorded from the task's thread, to check that none overlap."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.calls: list[tuple[str, float, float]] = []

    def record(self, name: str, started: float) -> None:
        """Record a call named `name` that began at `started` (monotonic) and ends now."""
        with self.lock:
            self.calls.append((name, started, time.monotonic()))

    def names(self) -> list[str]:
        """The calls' names, in the order they ended."""
        return [c[0] for c in self.calls]

    def overlaps(self) -> list[tuple[str, str]]:
        """Each pair of calls where the second began before the first ended."""
        ordered = sorted(self.calls, key=lambda c: c[1])
        return [(a[0], b[0]) for a, b in itertools.pairwise(ordered) if b[1] < a[2]]


class RecordingSinkTask(SinkTask):
    """Keeps every accepted value; the test sets how put, pre_commit and open behave (after `start`),
    and reads the calls' intervals in `calls`."""

    def start(self, config: Mapping[str, str]) -> None:
        """Every switch well-behaved; nothing recorded yet."""
        self.values: list[str] = []
        self.calls = CallLog()
        self.retriable_failures = 0
        self.put_delay_s = 0.0
        self.pre_commit_gate: threading.Event | None = None
        self.at_pre_commit_gate = threading.Event()
        self.pre_commit_answer: (
            Callable[[Mapping[TopicPartition, int]], Mapping[TopicPartition, int]] | None
        ) = None
        self.open_error: Exception | None = None
        self.opened: list[set[TopicPartition]] = []
        self.closed: list[set[TopicPartition]] = []
        self.on_put: Callable[[], None] = lambda: None
        self.in_put = threading.Event()
        #: Records whose value starts with this go to the ErrantRecordReporter instead.
        self.errant_prefix: str | None = None

    def put(self, records: Sequence[SinkRecord]) -> None:
        """Keep the values (those starting with `errant_prefix` go to the errant record reporter),
        after `put_delay_s`; the first `retriable_failures` calls with records fail, retriably."""
        started = time.monotonic()
        if records:
            self.in_put.set()
            time.sleep(self.put_delay_s)
        try:
            if self.retriable_failures and records:
                self.retriable_failures -= 1
                raise RetriableError("the external system is busy")
            reporter = self.context.errant_record_reporter()
            for record in records:
                if self.errant_prefix and record.value.startswith(self.errant_prefix):
                    assert reporter is not None
                    reporter.report(record, ValueError(f"cannot write {record.value}"))
                else:
                    self.values.append(record.value)
            self.on_put()
        finally:
            self.in_put.clear()
            self.calls.record("put" if records else "empty put", started)

    def pre_commit(self, current_offsets: Mapping[TopicPartition, int]) -> Mapping[TopicPartition, int]:
        """The offsets `pre_commit_answer` gives, or those given; waits at `pre_commit_gate` if set."""
        started = time.monotonic()
        if self.pre_commit_gate is not None:
            self.at_pre_commit_gate.set()
            self.pre_commit_gate.wait(5)
        self.calls.record("pre_commit", started)
        return self.pre_commit_answer(current_offsets) if self.pre_commit_answer else current_offsets

    def open(self, partitions: set[TopicPartition]) -> None:
        """Record the partitions; raise `open_error` if set."""
        started = time.monotonic()
        self.opened.append(set(partitions))
        self.calls.record("open", started)
        if self.open_error is not None:
            raise self.open_error

    def close(self, partitions: set[TopicPartition]) -> None:
        """Record the partitions."""
        started = time.monotonic()
        self.closed.append(set(partitions))
        self.calls.record("close", started)

    def stop(self) -> None:
        """Nothing to release."""


class ColumnRecordingSinkTask(RecordingSinkTask):
    """`RecordingSinkTask` taking each fetch as columns (`put_batch`): the sink loop's column path.

    It keeps the values the columns give and otherwise behaves as `put` does, with the batch's
    `record(i)` going to the errant record reporter; `batches` counts the calls."""

    def start(self, config: Mapping[str, str]) -> None:
        """As `RecordingSinkTask`, with no batch seen."""
        super().start(config)
        self.batches = 0

    def put_batch(self, batch: SinkBatch) -> None:
        """`put`'s behaviour, from the batch's columns."""
        self.batches += 1
        values = batch.values
        if self.errant_prefix is None and not self.retriable_failures and not self.put_delay_s:
            started = time.monotonic()
            self.values.extend(values)
            self.on_put()
            self.calls.record("put" if values else "empty put", started)
            return
        self.put([batch.record(i) for i in range(len(batch))])


#: The connector key naming a file: while it exists, the call `HOLD_IN` names blocks (a held task).
HOLD_FILE = "hold.file"
#: Which call a held task holds: ``poll`` or ``commit`` (`HeldSourceTask`), ``put`` or ``pre_commit``
#: (`HeldSinkTask`).
HOLD_IN = "hold.in"
#: How often a held call looks whether its hold file is gone.
HOLD_CHECK_S = 0.05


def hold(config: Mapping[str, str], call: str, released: threading.Event) -> None:
    """Block while the file `HOLD_FILE` names exists, if `call` is the one `HOLD_IN` names; `released`
    (set by `stop`) or `POLL_LIMIT_S` ends the wait too."""
    path = config.get(HOLD_FILE)
    if config.get(HOLD_IN) != call or not path:
        return
    deadline = time.monotonic() + POLL_LIMIT_S
    while Path(path).exists() and not released.is_set() and time.monotonic() < deadline:
        released.wait(HOLD_CHECK_S)


class HeldSourceTask(SourceTask):
    """Returns one record per poll, to ``topic`` (without ``topic`` it is an idle source: each poll
    returns nothing after `IDLE_POLL_S`); the call `HOLD_IN` names (``poll`` or ``commit``) blocks
    while the file `HOLD_FILE` names exists: a test stalls it by creating the file, frees it by
    deleting it."""

    def start(self, config: Mapping[str, str]) -> None:
        """Keep the config."""
        self.config = dict(config)
        self.released = threading.Event()
        self.sent = 0

    def poll(self) -> list[SourceRecord] | None:
        """One record numbered from 0, or nothing when idle; held first if ``hold.in`` is ``poll``."""
        hold(self.config, "poll", self.released)
        topic = self.config.get("topic")
        if not topic:
            time.sleep(IDLE_POLL_S)
            return None
        time.sleep(HOLD_CHECK_S)
        self.sent += 1
        return [
            SourceRecord(
                topic=topic,
                value=str(self.sent),
                source_partition={"held": "p"},
                source_offset={"n": self.sent},
            )
        ]

    def commit(self) -> None:
        """Held if ``hold.in`` is ``commit``."""
        hold(self.config, "commit", self.released)

    def stop(self) -> None:
        """Free a held call."""
        self.released.set()


class HeldSinkTask(SinkTask):
    """Accepts every record; the call `HOLD_IN` names (``put`` with records, or ``pre_commit``) blocks
    while the file `HOLD_FILE` names exists."""

    def start(self, config: Mapping[str, str]) -> None:
        """Keep the config."""
        self.config = dict(config)
        self.released = threading.Event()

    def put(self, records: Sequence[SinkRecord]) -> None:
        """Held if ``hold.in`` is ``put`` and there are records."""
        if records:
            hold(self.config, "put", self.released)

    def pre_commit(self, current_offsets: Mapping[TopicPartition, int]) -> Mapping[TopicPartition, int]:
        """Held if ``hold.in`` is ``pre_commit``; then every offset given."""
        hold(self.config, "pre_commit", self.released)
        return current_offsets

    def stop(self) -> None:
        """Free a held call."""
        self.released.set()


#: The connector key naming the file a `FlakySourceTask` appends each run's start time to.
RUNS_FILE = "runs.file"
#: The connector key saying how many of a `FlakySourceTask`'s first runs fail.
FAILING_RUNS = "failing.runs"
#: The connector key saying how many lines a `FlakySourceTask` sends in all.
LINES = "lines"
#: The connector key naming the file a `FlakySource` appends each start's time to.
STARTS_FILE = "starts.file"
#: The connector key saying how many of a `FlakySource`'s first starts fail.
FAILING_STARTS = "failing.starts"


class FlakySourceTask(SourceTask):
    """Sends ``0`` ... ``lines - 1`` to ``topic``, each with the source offset of the line after it,
    resuming from the committed offset. Each run appends its start time to the file `RUNS_FILE` names;
    the first `FAILING_RUNS` runs each send `PER_FAILING_RUN` lines, wait until the worker has
    committed their offsets (a commit after the send) and then fail. A restart that resumes from
    the committed offsets therefore sends every line once."""

    PER_FAILING_RUN = 5
    PARTITION: ClassVar[dict[str, str]] = {"source": "flaky"}

    def start(self, config: Mapping[str, str]) -> None:
        """Count this run in the runs file; read where the last run's committed offsets left off."""
        self._topic, self._lines = config["topic"], int(config[LINES])
        runs_file = Path(config[RUNS_FILE])
        with runs_file.open("a", encoding="utf-8") as out:
            out.write(f"{time.time():.3f}\n")
        self._run = len(runs_file.read_text(encoding="utf-8").splitlines())
        self._failing = self._run <= int(config.get(FAILING_RUNS, "0"))
        offset = self.context.offset_storage_reader.offset(self.PARTITION)
        self._next = int(offset["line"]) if offset else 0
        self._sent = 0
        self._commits_after_send = 0
        self._stopped = threading.Event()

    def poll(self) -> list[SourceRecord] | None:
        """The next lines; a failing run fails once its lines' offsets are committed."""
        if self._failing and self._sent >= self.PER_FAILING_RUN:
            if self._commits_after_send >= 1:
                raise RuntimeError(f"Flaky run {self._run} fails on purpose after line {self._next - 1}")
            self._stopped.wait(IDLE_POLL_S)
            return None
        if self._next >= self._lines:
            self._stopped.wait(IDLE_POLL_S)
            return None
        end = min(self._lines, self._next + self.PER_FAILING_RUN) if self._failing else self._lines
        records = [
            SourceRecord(
                topic=self._topic,
                value=str(line),
                source_partition=self.PARTITION,
                source_offset={"line": line + 1},
            )
            for line in range(self._next, end)
        ]
        self._next, self._sent, self._commits_after_send = end, self._sent + len(records), 0
        return records

    def commit(self) -> None:
        """Count the commit."""
        self._commits_after_send += 1

    def stop(self) -> None:
        """Wake an idle poll."""
        self._stopped.set()


# --- connectors --------------------------------------------------------------------------------------------


class IdleSource(SourceConnector):
    """Starts and stops doing nothing; one task, given the connector's whole config; its task is `task`."""

    task: ClassVar[type[SourceTask]] = IdleSourceTask

    def start(self, config: Mapping[str, str]) -> None:
        """Keep the config for the task."""
        self.config = dict(config)

    def task_class(self) -> type[SourceTask]:
        """`task`."""
        return self.task

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        """One task config: the connector's."""
        return [dict(self.config)]

    def stop(self) -> None:
        """Nothing to release."""


class BusySource(IdleSource):
    """One `BusySourceTask`, which keeps a core busy and sends nothing."""

    task = BusySourceTask


class IdleSink(SinkConnector):
    """Starts and stops doing nothing; one task, given the connector's whole config; its task is `task`."""

    task: ClassVar[type[SinkTask]] = IdleSinkTask

    def start(self, config: Mapping[str, str]) -> None:
        """Keep the config for the task."""
        self.config = dict(config)

    def task_class(self) -> type[SinkTask]:
        """`task`."""
        return self.task

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        """One task config: the connector's."""
        return [dict(self.config)]

    def stop(self) -> None:
        """Nothing to release."""


def source_connector(task: type[SourceTask]) -> type[IdleSource]:
    """An `IdleSource` whose task class is `task`, named ``<task>Connector``."""
    return type(f"{task.__name__}Connector", (IdleSource,), {"task": task, "__module__": task.__module__})


def sink_connector(task: type[SinkTask]) -> type[IdleSink]:
    """An `IdleSink` whose task class is `task`, named ``<task>Connector``."""
    return type(f"{task.__name__}Connector", (IdleSink,), {"task": task, "__module__": task.__module__})


class VersionedSource(IdleSource):
    """An idle source whose `version()` is 2.5.0 (`IdleSource`'s is Kafka's ``undefined``)."""

    @classmethod
    def version(cls) -> str:
        """2.5.0."""
        return "2.5.0"


class GreedySource(IdleSource):
    """Generates one task config more than ``tasks.max`` allows (KIP-1004's bug); its tasks are idle."""

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        """``tasks.max`` + 1 configs, each the connector's with its ``index``."""
        return [{**self.config, "index": str(i)} for i in range(max_tasks + 1)]


class BlockingPollSource(IdleSource):
    """One `BlockingPollTask`, which writes its calls to the file the `EVENTS_FILE` key names."""

    task = BlockingPollTask
    config_def = ConfigDef().define(
        EVENTS_FILE, type="STRING", importance="HIGH", documentation="Where the task writes its calls."
    )


class SecretSink(IdleSink):
    """A sink with a PASSWORD key (``db.password``), as a JDBC sink has; fails to start on request
    (``fail=yes``) with an error naming the password, so a test can check it is scrubbed. Every config
    it starts with is kept in `started` (clear it first)."""

    config_def = (
        ConfigDef()
        .define("db.password", type="PASSWORD", importance="HIGH", documentation="Secret.")
        .define("db.user", type="STRING", importance="HIGH", default="", documentation="User.")
        .define("file", type="STRING", importance="HIGH", documentation="Where.")
    )
    started: ClassVar[list[dict[str, str]]] = []

    def start(self, config: Mapping[str, str]) -> None:
        """Keep the config; fail naming the password when ``fail`` is ``yes``."""
        SecretSink.started.append(dict(config))
        if config.get("fail") == "yes":
            raise RuntimeError(f"login refused for password {config['db.password']}")
        super().start(config)


class SwitchableSource(IdleSource):
    """A source a test steers through class switches (`reset` puts them back): `events` records each
    ``start`` and ``stop``; `fail_start` fails the start; `task_suffix` ends every task's ``index``, so
    a restart can give new task configs; a config with the key ``slow`` validates in
    `slow_validation_s`. Tasks get only ``topic`` (as Kafka's file connectors give only what tasks need)
    and their ``index``, ``tasks.max`` of them. Offsets can always be altered."""

    config_def = ConfigDef().define(
        "topic", type="STRING", importance="HIGH", documentation="Where to write."
    )
    events: ClassVar[list[str]] = []
    fail_start: ClassVar[bool] = False
    task_suffix: ClassVar[str] = ""
    slow_validation_s: ClassVar[float] = 0.0

    def start(self, config: Mapping[str, str]) -> None:
        """Record the start; fail if `fail_start`."""
        SwitchableSource.events.append("start")
        if SwitchableSource.fail_start:
            raise RuntimeError("cannot start")
        super().start(config)

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        """``topic`` and ``index`` for each of `max_tasks` tasks."""
        topic = self.config["topic"]
        return [{"topic": topic, "index": f"{i}{SwitchableSource.task_suffix}"} for i in range(max_tasks)]

    def validate(self, config: Mapping[str, str]) -> Any:
        """Validate, slowly if the config has the key ``slow``."""
        if "slow" in config:
            time.sleep(SwitchableSource.slow_validation_s)
        return super().validate(config)

    def stop(self) -> None:
        """Record the stop."""
        SwitchableSource.events.append("stop")

    def alter_offsets(self, config: Mapping[str, str], offsets: Mapping[Any, Any]) -> bool:
        """Any offsets may be written."""
        return True

    @classmethod
    def reset(cls) -> None:
        """Every switch back to well-behaved, `events` emptied."""
        SwitchableSource.events.clear()
        SwitchableSource.fail_start = False
        SwitchableSource.task_suffix = ""
        SwitchableSource.slow_validation_s = 0.0


class FlakySource(IdleSource):
    """One `FlakySourceTask`, given the connector's whole config. Each `start` appends its time to the
    file `STARTS_FILE` names (if any), and the first `FAILING_STARTS` starts fail."""

    task = FlakySourceTask

    def start(self, config: Mapping[str, str]) -> None:
        """Count this start; fail if it is one of the first `FAILING_STARTS`."""
        if config.get(STARTS_FILE):
            starts_file = Path(config[STARTS_FILE])
            with starts_file.open("a", encoding="utf-8") as out:
                out.write(f"{time.time():.3f}\n")
            starts = len(starts_file.read_text(encoding="utf-8").splitlines())
            if starts <= int(config.get(FAILING_STARTS, "0")):
                raise RuntimeError(f"Flaky start {starts} fails on purpose")
        super().start(config)


class HangingSource(SwitchableSource):
    """A source whose `start` (or, with `hang_in` ``task_configs``, `task_configs`) blocks until the
    test sets `release`, then fails with `error` if one is set. `reset` puts the switches back."""

    release: ClassVar[threading.Event] = threading.Event()
    hang_in: ClassVar[str] = "start"
    error: ClassVar[str | None] = None

    def start(self, config: Mapping[str, str]) -> None:
        """Hang first if `hang_in` is ``start``."""
        if HangingSource.hang_in == "start":
            self._hang()
        self.config = dict(config)

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        """Hang first if `hang_in` is ``task_configs``."""
        if HangingSource.hang_in == "task_configs":
            self._hang()
        return super().task_configs(max_tasks)

    def _hang(self) -> None:
        HangingSource.release.wait(30)
        if HangingSource.error is not None:
            raise RuntimeError(HangingSource.error)

    @classmethod
    def reset(cls) -> None:
        """Every switch back, `SwitchableSource`'s too; a new, unset `release`."""
        SwitchableSource.reset()
        HangingSource.release = threading.Event()
        HangingSource.hang_in = "start"
        HangingSource.error = None


#: The keys whose values `ExactlyOnceAnswers` gives as its answers: SUPPORTED, UNSUPPORTED, null
#: (None) or raise (an exception whose message is the connector's name for the question).
ANSWER_EXACTLY_ONCE = "answer.exactly.once"
ANSWER_TRANSACTION_BOUNDARIES = "answer.transaction.boundaries"


class ExactlyOnceAnswers(IdleSource):
    """Answers `exactly_once_support` and `can_define_transaction_boundaries` as its config says.

    Each answer is the value of `ANSWER_EXACTLY_ONCE` / `ANSWER_TRANSACTION_BOUNDARIES` (keys it does
    not declare, so validate lists none of them). Its Java twin, ``tests/java/ExactlyOnceAnswers.java``,
    answers the same configs the same way; both answer to the Java class name.
    """

    java_class_names = ("kconnect.test.ExactlyOnceAnswers",)

    @classmethod
    def version(cls) -> str:
        """1.0.0, as its Java twin's."""
        return "1.0.0"

    @staticmethod
    def _answer(config: Mapping[str, str], key: str, question: str) -> str | None:
        answer = config.get(key, "null")
        if answer == "raise":
            raise RuntimeError(f"cannot tell {question}")
        return None if answer == "null" else answer

    def exactly_once_support(self, config: Mapping[str, str]) -> ExactlyOnceSupport | None:
        """The value of `ANSWER_EXACTLY_ONCE` (None when unset)."""
        answer = self._answer(config, ANSWER_EXACTLY_ONCE, "exactly-once support")
        return None if answer is None else ExactlyOnceSupport(answer)

    def can_define_transaction_boundaries(
        self, config: Mapping[str, str]
    ) -> ConnectorTransactionBoundaries | None:
        """The value of `ANSWER_TRANSACTION_BOUNDARIES` (None when unset)."""
        answer = self._answer(config, ANSWER_TRANSACTION_BOUNDARIES, "transaction boundaries")
        return None if answer is None else ConnectorTransactionBoundaries(answer)


_HOLD_KEYS = (
    ConfigDef()
    .define(
        HOLD_FILE,
        type="STRING",
        importance="HIGH",
        default="",
        documentation="While it exists, hold.in blocks.",
    )
    .define(HOLD_IN, type="STRING", importance="HIGH", default="", documentation="The call held.")
)


class HeldSource(IdleSource):
    """One `HeldSourceTask`: writes to ``topic`` (idle without it); holds ``hold.in`` while
    ``hold.file`` exists."""

    task = HeldSourceTask
    config_def = ConfigDef(_HOLD_KEYS).define(
        "topic", type="STRING", importance="HIGH", default="", documentation="Where to write; none: idle."
    )


class HeldSink(IdleSink):
    """One `HeldSinkTask`: holds ``hold.in`` while ``hold.file`` exists."""

    task = HeldSinkTask
    config_def = _HOLD_KEYS


# --- in a worker process -----------------------------------------------------------------------------------

#: The aliases `register_connectors` gives, for integration tests' ``connector.class``.
ALIASES: dict[str, type[SourceConnector] | type[SinkConnector]] = {
    "IdleSource": IdleSource,
    "BusySource": BusySource,
    "GreedySource": GreedySource,
    "BlockingPoll": BlockingPollSource,
    "FlakySource": FlakySource,
    "ExactlyOnceAnswers": ExactlyOnceAnswers,
    "HeldSource": HeldSource,
    "HeldSink": HeldSink,
}


@hookimpl
def register_connectors(registry: PluginRegistry) -> None:
    """Register the connectors real workers run in tests, under `ALIASES`."""
    for alias, connector in ALIASES.items():
        registry.add(connector, aliases=[alias])
