"""Error handling of the task loops (Kafka's KIP-298): retry, tolerate, report.

A converter or a transformation that fails a record raises; the loop catches it as a `StageError`
(which stage, which class) and hands it to `ErrorHandler.recover`, which does what the connector's
``errors.*`` keys say, with Kafka's rules (its RetryWithToleranceOperator):

* **Retry** a `RetriableError` for up to ``errors.retry.timeout`` ms (-1: without end), waiting
  300 ms, then twice as long each time, at most ``errors.retry.delay.max.ms`` (past that, a random
  wait below it). Any other error is not retried.
* **Report** the failure to every reporter: the log (``errors.log.enable``, with the record's
  coordinates when ``errors.log.include.messages``) and, for sinks, the dead letter queue.
* **Tolerate** it (``errors.tolerance=all``: the record is skipped and the task goes on) or fail
  the task (``none``) with "Tolerance exceeded in error handler", the error as its cause.

A sink task's own failures reach the same handler through the ErrantRecordReporter
(`ErrorHandler.execute_failed`, Kafka's stage ``TASK_PUT``). Reports that write to Kafka return
futures; the sink loop awaits them (`ErrorHandler.flush`) before it commits offsets, so an offset
is never committed past a record whose dead-letter copy Kafka has not acknowledged.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import enum
import logging
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from kconnect.config.connector_keys import (
    ERRORS_LOG_ENABLE_CONFIG,
    ERRORS_LOG_INCLUDE_MESSAGES_CONFIG,
    ERRORS_RETRY_MAX_DELAY_CONFIG,
    ERRORS_RETRY_TIMEOUT_CONFIG,
    ERRORS_TOLERANCE_CONFIG,
)
from kconnect.errors import ConnectError, RetriableError
from kconnect.records import SourceRecord

log = logging.getLogger(__name__)

T = TypeVar("T")

#: The first wait between two attempts (Kafka's RETRIES_DELAY_MIN_MS); it doubles each time.
RETRY_DELAY_MIN_MS = 300
TOLERANCE_EXCEEDED = "Tolerance exceeded in error handler"


class Stage(enum.Enum):
    """Where in a task's pipeline an error happened (Kafka's Stage; its names go into DLQ headers)."""

    KEY_CONVERTER = "KEY_CONVERTER"
    VALUE_CONVERTER = "VALUE_CONVERTER"
    HEADER_CONVERTER = "HEADER_CONVERTER"
    TRANSFORMATION = "TRANSFORMATION"
    TASK_PUT = "TASK_PUT"
    TASK_POLL = "TASK_POLL"
    KAFKA_PRODUCE = "KAFKA_PRODUCE"
    KAFKA_CONSUME = "KAFKA_CONSUME"


def class_name(plugin: object) -> str:
    """The name an error report gives a plugin class or instance: its Java class name if it has one
    (so reports read as Kafka's do), else its Python ``module.QualifiedName``."""
    cls = plugin if isinstance(plugin, type) else type(plugin)
    java_names = getattr(cls, "java_class_names", ())
    if java_names:
        return str(java_names[0])
    return f"{cls.__module__}.{cls.__qualname__}"


def error_class_name(error: BaseException) -> str:
    """The exception's class as reports name it: Kafka's name for kconnect's errors that have one.

    Only a class's own ``java_class_name`` counts: a plugin's subclass of DataError is its own class.
    """
    cls = type(error)
    java_name = cls.__dict__.get("java_class_name")
    return str(java_name) if java_name else f"{cls.__module__}.{cls.__qualname__}"


class StageError(Exception):
    """A record failed in one stage; the original error is ``__cause__`` (and `error`)."""

    def __init__(self, stage: Stage, executing_class: str, error: BaseException) -> None:
        super().__init__(f"{stage.value} ({executing_class}) failed: {error!r}")
        self.stage = stage
        self.executing_class = executing_class
        self.error = error
        self.__cause__ = error  # also when it is handed on rather than raised `from` the error


@dataclass(frozen=True)
class ErrorPolicy:
    """A connector's ``errors.*`` keys, parsed (validation already refused bad values)."""

    tolerate_all: bool = False
    retry_timeout_ms: int = 0
    retry_max_delay_ms: int = 60_000
    log_enable: bool = False
    log_include_messages: bool = False

    @classmethod
    def from_config(cls, config: Mapping[str, str]) -> ErrorPolicy:
        """The policy of a connector config; absent keys take Kafka's defaults."""

        def flag(key: str) -> bool:
            return config.get(key, "false").strip().lower() == "true"

        return cls(
            tolerate_all=config.get(ERRORS_TOLERANCE_CONFIG, "none").strip().lower() == "all",
            retry_timeout_ms=int(config.get(ERRORS_RETRY_TIMEOUT_CONFIG, "0").strip()),
            retry_max_delay_ms=int(config.get(ERRORS_RETRY_MAX_DELAY_CONFIG, "60000").strip()),
            log_enable=flag(ERRORS_LOG_ENABLE_CONFIG),
            log_include_messages=flag(ERRORS_LOG_INCLUDE_MESSAGES_CONFIG),
        )

    @property
    def retries(self) -> bool:
        """Whether a retriable error is tried again at all (an attempt may then wait)."""
        return self.retry_timeout_ms != 0


def retry_delay_ms(attempt: int, max_delay_ms: int, remaining_ms: float, rng: random.Random) -> float:
    """How long to wait after failed attempt number `attempt` (1, 2, ...): Kafka's backoff.

    300 ms doubled per attempt; past `max_delay_ms` a random wait below it; never past the deadline.
    """
    delay: float = RETRY_DELAY_MIN_MS << min(attempt - 1, 40)
    if delay > max_delay_ms:
        delay = rng.randrange(max_delay_ms) if max_delay_ms > 0 else 0
    return max(0.0, min(delay, remaining_ms))


@dataclass
class Failure:
    """One failed operation on one record, as reporters see it (Kafka's ProcessingContext)."""

    stage: Stage
    executing_class: str
    error: BaseException
    attempts: int = 1
    #: The message a sink task consumed (aiokafka ConsumerRecord: raw key, value, headers), if any.
    consumed: Any = None
    #: The record a source task returned from poll, if any.
    source_record: SourceRecord | None = None

    def describe(self, include_record: bool) -> str:
        """Kafka's words for it: ``Executing stage 'X' with class 'Y'[, where ... is ...].``"""
        text = f"Executing stage '{self.stage.value}' with class '{self.executing_class}'"
        if include_record and self.source_record is not None:
            text += f", where source record is = {self.source_record}"
        elif include_record and self.consumed is not None:
            message = self.consumed
            text += (
                f", where consumed record is {{topic='{message.topic}', partition={message.partition}, "
                f"offset={message.offset}"
            )
            kind = {0: "CreateTime", 1: "LogAppendTime"}.get(getattr(message, "timestamp_type", -1))
            if kind is not None and message.timestamp is not None and message.timestamp >= 0:
                text += f", timestamp={message.timestamp}, timestampType={kind}"
            text += "}"
        return text + "."


class ErrorReporter(Protocol):
    """Something told of every failure: the log, the dead letter queue."""

    def report(self, failure: Failure) -> concurrent.futures.Future[None] | None:
        """Report `failure`; a future when the report completes later (a write to Kafka)."""
        ...


@dataclass
class LogReporter:
    """``errors.log.enable``: each failure at ERROR, with its error (Kafka's LogReporter)."""

    task_id: str
    include_messages: bool

    def report(self, failure: Failure) -> None:
        """Log the failure."""
        log.error(
            "Error encountered in task %s. %s",
            self.task_id,
            failure.describe(self.include_messages),
            exc_info=(type(failure.error), failure.error, failure.error.__traceback__),
        )


@dataclass
class ErrorCounts:
    """What the handler has seen, for logs and metrics (Kafka's task-error-metrics)."""

    failures: int = 0
    retries: int = 0
    skipped: int = 0
    errors_logged: int = 0
    #: When the last failure was reported, in ms since the epoch (0: never).
    last_error_ms: float = 0.0


@dataclass
class ErrorHandler:
    """Applies one task's `ErrorPolicy` to failed records; one per task run."""

    task_id: str
    policy: ErrorPolicy
    reporters: Sequence[ErrorReporter] = ()
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic
    rng: random.Random = field(default_factory=random.Random)
    counts: ErrorCounts = field(default_factory=ErrorCounts)
    _pending: list[concurrent.futures.Future[None]] = field(default_factory=list)

    @classmethod
    def for_connector(cls, task_id: str, config: Mapping[str, str], *extra: ErrorReporter) -> ErrorHandler:
        """The handler of a task of a connector with `config`: the log reporter if enabled, then `extra`."""
        policy = ErrorPolicy.from_config(config)
        reporters: list[ErrorReporter] = []
        if policy.log_enable:
            reporters.append(LogReporter(task_id, policy.log_include_messages))
        reporters.extend(extra)
        return cls(task_id, policy, reporters)

    def recover(
        self,
        failed: StageError,
        retry: Callable[[], T],
        *,
        consumed: Any = None,
        source_record: SourceRecord | None = None,
    ) -> T | None:
        """Handle a record's failure: retry, then report and skip it (None) or fail the task.

        `retry` runs the whole failed operation again; it may raise `StageError` again. Raises
        `ConnectError` (Tolerance exceeded in error handler) when the policy does not tolerate it.
        """
        attempts = 1
        if isinstance(failed.error, RetriableError) and self.policy.retries:
            start = self.clock()
            while True:
                elapsed_ms = (self.clock() - start) * 1000
                forever = self.policy.retry_timeout_ms < 0
                if not forever and elapsed_ms >= self.policy.retry_timeout_ms:
                    break
                remaining = float("inf") if forever else self.policy.retry_timeout_ms - elapsed_ms
                self.sleep(
                    retry_delay_ms(attempts, self.policy.retry_max_delay_ms, remaining, self.rng) / 1000
                )
                self.counts.retries += 1
                attempts += 1
                try:
                    return retry()
                except StageError as again:
                    failed = again
                    if not isinstance(again.error, RetriableError):
                        break
        failure = Failure(
            failed.stage, failed.executing_class, failed.error, attempts, consumed, source_record
        )
        self._report(failure)
        if not self.policy.tolerate_all:
            raise ConnectError(TOLERANCE_EXCEEDED) from failed.error
        self.counts.skipped += 1
        return None

    def execute_failed(
        self,
        stage: Stage,
        executing_class: str,
        error: BaseException,
        consumed: Any = None,
        source_record: SourceRecord | None = None,
    ) -> concurrent.futures.Future[None]:
        """A failure found outside a retried operation (a record the sink task reported, a record
        Kafka refused): report it, then tolerate it (a future done when every report is) or raise
        "Tolerance exceeded in error handler"."""
        futures = self._report(Failure(stage, executing_class, error, 1, consumed, source_record))
        if not self.policy.tolerate_all:
            raise ConnectError(TOLERANCE_EXCEEDED) from error
        return _all_of(futures)

    def _report(self, failure: Failure) -> list[concurrent.futures.Future[None]]:
        self.counts.failures += 1
        self.counts.last_error_ms = time.time() * 1000
        futures = []
        for reporter in self.reporters:
            if isinstance(reporter, LogReporter):
                self.counts.errors_logged += 1
            future = reporter.report(failure)
            if future is not None:
                futures.append(future)
        self._pending.extend(futures)
        return futures

    async def flush(self) -> None:
        """Wait for every report still in flight; raise the first that failed (a DLQ write Kafka refused)."""
        while self._pending:
            pending, self._pending = self._pending, []
            for future in pending:
                await asyncio.wrap_future(future)


def _all_of(futures: list[concurrent.futures.Future[None]]) -> concurrent.futures.Future[None]:
    """A future done when all of `futures` are, failed with the first failure."""
    combined: concurrent.futures.Future[None] = concurrent.futures.Future()
    if not futures:
        combined.set_result(None)
        return combined
    remaining = [len(futures)]

    def done(future: concurrent.futures.Future[None]) -> None:
        remaining[0] -= 1
        if combined.done():
            return
        error = future.exception()
        if error is not None:
            combined.set_exception(error)
        elif remaining[0] == 0:
            combined.set_result(None)

    for future in futures:
        future.add_done_callback(done)
    return combined
