"""KIP-298's rules in `kconnect.runtime.error_handling`: retry, report, tolerate (pure logic, fake clock)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import random
from dataclasses import dataclass, field
from typing import Any

import pytest
from kconnect.errors import ConnectError, DataError, RetriableError
from kconnect.runtime.dead_letter_queue import DeadLetterQueueConfig, context_headers
from kconnect.runtime.error_handling import (
    ErrorHandler,
    ErrorPolicy,
    Failure,
    LogReporter,
    Stage,
    StageError,
    class_name,
    error_class_name,
    retry_delay_ms,
)

JSON = "org.apache.kafka.connect.json.JsonConverter"


@dataclass
class Message:
    """The fields of an aiokafka ConsumerRecord a report reads."""

    topic: str = "orders"
    partition: int = 5
    offset: int = 100
    timestamp: int = 1700000000000
    timestamp_type: int = 0
    key: bytes | None = b"k"
    value: bytes | None = b"{bad"
    headers: tuple[tuple[str, bytes], ...] = ()


@dataclass
class FakeTime:
    """A clock that only moves when the handler sleeps."""

    now: float = 0.0
    sleeps: list[float] = field(default_factory=list)

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    def clock(self) -> float:
        return self.now


@dataclass
class Recording:
    """An ErrorReporter that keeps what it is told; optionally answers with a future."""

    failures: list[Failure] = field(default_factory=list)
    future: concurrent.futures.Future[None] | None = None

    def report(self, failure: Failure) -> concurrent.futures.Future[None] | None:
        self.failures.append(failure)
        return self.future


def _handler(policy: ErrorPolicy, *reporters: Any) -> tuple[ErrorHandler, FakeTime]:
    time = FakeTime()
    handler = ErrorHandler(
        "sink-0", policy, reporters, sleep=time.sleep, clock=time.clock, rng=random.Random(1)
    )
    return handler, time


def _failing(*errors: BaseException, result: str = "ok") -> Any:
    """A retry that raises StageErrors of `errors` in turn, then returns `result`."""
    queue = list(errors)

    def retry() -> str:
        if queue:
            raise StageError(Stage.VALUE_CONVERTER, JSON, queue.pop(0))
        return result

    return retry


def test_the_policy_reads_kafkas_keys_and_defaults() -> None:
    assert ErrorPolicy.from_config({}) == ErrorPolicy(False, 0, 60_000, False, False)
    policy = ErrorPolicy.from_config(
        {
            "errors.tolerance": "all",
            "errors.retry.timeout": "-1",
            "errors.retry.delay.max.ms": "500",
            "errors.log.enable": "true",
            "errors.log.include.messages": "TRUE",
        }
    )
    assert policy == ErrorPolicy(True, -1, 500, True, True)
    assert policy.retries and not ErrorPolicy().retries


def test_the_backoff_doubles_from_300_ms_then_stays_below_the_maximum_and_the_deadline() -> None:
    rng = random.Random(7)
    assert [retry_delay_ms(n, 60_000, 1e9, rng) for n in (1, 2, 3, 4)] == [300, 600, 1200, 2400]
    capped = [retry_delay_ms(5, 1000, 1e9, rng) for _ in range(50)]
    assert all(0 <= d < 1000 for d in capped) and len(set(capped)) > 1, "past the maximum: random below it"
    assert retry_delay_ms(3, 60_000, 250.0, rng) == 250.0, "never past the deadline"


def test_a_tolerated_error_is_reported_once_and_the_record_skipped() -> None:
    reporter = Recording()
    handler, time = _handler(ErrorPolicy(tolerate_all=True), reporter)
    failed = StageError(Stage.VALUE_CONVERTER, JSON, DataError("bad json"))
    message = Message()
    assert handler.recover(failed, _failing(), consumed=message) is None
    assert time.sleeps == [], "errors.retry.timeout=0: no retry"
    [failure] = reporter.failures
    assert (failure.stage, failure.executing_class, failure.consumed) == (
        Stage.VALUE_CONVERTER,
        JSON,
        message,
    )
    assert (handler.counts.failures, handler.counts.skipped) == (1, 1)


def test_without_tolerance_the_error_is_reported_then_fails_the_task_with_kafkas_message() -> None:
    reporter = Recording()
    handler, _ = _handler(ErrorPolicy(tolerate_all=False), reporter)
    cause = DataError("bad json")
    with pytest.raises(ConnectError, match=r"^Tolerance exceeded in error handler$") as raised:
        handler.recover(StageError(Stage.KEY_CONVERTER, JSON, cause), _failing())
    assert raised.value.__cause__ is cause
    assert len(reporter.failures) == 1, "Kafka reports the failure before it fails the task"


def test_a_retriable_error_is_retried_with_backoff_until_it_succeeds() -> None:
    handler, time = _handler(ErrorPolicy(retry_timeout_ms=10_000))
    first = StageError(Stage.TRANSFORMATION, "X", RetriableError("busy"))
    result = handler.recover(first, _failing(RetriableError("busy"), RetriableError("busy")))
    assert result == "ok"
    assert time.sleeps == [0.3, 0.6, 1.2]
    assert handler.counts.retries == 3 and handler.counts.failures == 0


def test_retries_end_at_the_timeout_and_the_last_error_is_what_counts() -> None:
    reporter = Recording()
    handler, time = _handler(ErrorPolicy(tolerate_all=True, retry_timeout_ms=1000), reporter)
    first = StageError(Stage.VALUE_CONVERTER, JSON, RetriableError("busy"))
    assert handler.recover(first, _failing(*[RetriableError("still busy")] * 10)) is None
    assert time.sleeps == pytest.approx([0.3, 0.6, 0.1]), "the last wait ends at the deadline"
    [failure] = reporter.failures
    assert str(failure.error) == "still busy" and failure.attempts == 4


def test_a_non_retriable_error_is_not_retried() -> None:
    reporter = Recording()
    handler, time = _handler(ErrorPolicy(tolerate_all=True, retry_timeout_ms=-1), reporter)
    assert handler.recover(StageError(Stage.VALUE_CONVERTER, JSON, DataError("bad")), _failing()) is None
    assert time.sleeps == []
    retried_into_a_data_error = _failing(RetriableError("busy"), DataError("bad"))
    first = StageError(Stage.VALUE_CONVERTER, JSON, RetriableError("busy"))
    assert handler.recover(first, retried_into_a_data_error) is None
    assert len(time.sleeps) == 2 and str(reporter.failures[-1].error) == "bad"


def test_the_log_reporter_writes_kafkas_line_with_and_without_the_record(
    caplog: pytest.LogCaptureFixture,
) -> None:
    error = DataError("Converting byte[] to Kafka Connect data failed due to serialization error")
    failure = Failure(Stage.VALUE_CONVERTER, JSON, error, consumed=Message())
    with caplog.at_level(logging.ERROR, "kconnect.runtime.error_handling"):
        LogReporter("sink-0", include_messages=False).report(failure)
        LogReporter("sink-0", include_messages=True).report(failure)
    assert [r.getMessage() for r in caplog.records] == [
        f"Error encountered in task sink-0. Executing stage 'VALUE_CONVERTER' with class '{JSON}'.",
        f"Error encountered in task sink-0. Executing stage 'VALUE_CONVERTER' with class '{JSON}', where "
        "consumed record is {topic='orders', partition=5, offset=100, timestamp=1700000000000, "
        "timestampType=CreateTime}.",
    ]
    assert all(r.exc_info and r.exc_info[1] is error for r in caplog.records), "the error goes with the line"


def test_the_errant_record_path_reports_and_tolerates_or_raises() -> None:
    reporter = Recording(future=concurrent.futures.Future())
    handler, _ = _handler(ErrorPolicy(tolerate_all=True), reporter)
    future = handler.execute_failed(
        Stage.TASK_PUT, "org.apache.kafka.connect.sink.SinkTask", OSError("disk"), None
    )
    assert not future.done(), "done when the report is"
    assert reporter.future is not None
    reporter.future.set_result(None)
    assert future.done() and future.result() is None
    strict, _ = _handler(ErrorPolicy(tolerate_all=False), Recording())
    with pytest.raises(ConnectError, match="Tolerance exceeded"):
        strict.execute_failed(Stage.TASK_PUT, "X", OSError("disk"), None)


def test_flush_waits_for_reports_and_raises_a_failed_write() -> None:
    reporter = Recording(future=concurrent.futures.Future())
    handler, _ = _handler(ErrorPolicy(tolerate_all=True), reporter)
    handler.recover(StageError(Stage.VALUE_CONVERTER, JSON, DataError("bad")), _failing())

    async def flush_after_failure() -> None:
        assert reporter.future is not None
        asyncio.get_running_loop().call_later(
            0.05, reporter.future.set_exception, ConnectError("DLQ refused")
        )
        await handler.flush()

    with pytest.raises(ConnectError, match="DLQ refused"):
        asyncio.run(flush_after_failure())


def test_context_headers_carry_kafkas_names_and_values() -> None:
    try:
        raise DataError("Unexpected character ('b')")
    except DataError as error:
        failure = Failure(Stage.VALUE_CONVERTER, JSON, error, consumed=Message())
    headers = dict(context_headers(failure, "orders-sink", 2))
    assert list(headers) == [
        f"__connect.errors.{name}"
        for name in (
            "topic",
            "partition",
            "offset",
            "connector.name",
            "task.id",
            "stage",
            "class.name",
            "exception.class.name",
            "exception.message",
            "exception.stacktrace",
        )
    ]
    assert headers["__connect.errors.topic"] == b"orders"
    assert headers["__connect.errors.partition"] == b"5"
    assert headers["__connect.errors.offset"] == b"100"
    assert headers["__connect.errors.connector.name"] == b"orders-sink"
    assert headers["__connect.errors.task.id"] == b"2"
    assert headers["__connect.errors.stage"] == b"VALUE_CONVERTER"
    assert headers["__connect.errors.class.name"] == JSON.encode()
    assert (
        headers["__connect.errors.exception.class.name"] == b"org.apache.kafka.connect.errors.DataException"
    )
    assert headers["__connect.errors.exception.message"] == b"Unexpected character ('b')"
    assert b"Traceback" in headers["__connect.errors.exception.stacktrace"]


def test_class_names_are_javas_where_the_class_has_one() -> None:
    class Plain:
        pass

    class Javaish:
        java_class_names = ("org.example.Thing",)

    class OwnError(DataError):
        pass

    assert class_name(Javaish()) == "org.example.Thing"
    assert class_name(Plain).endswith(
        "test_error_handling.test_class_names_are_javas_where_the_class_has_one.<locals>.Plain"
    )
    assert error_class_name(RetriableError()) == "org.apache.kafka.connect.errors.RetriableException"
    assert error_class_name(OwnError()).endswith("<locals>.OwnError"), "a subclass is its own class"
    assert error_class_name(ValueError()) == "builtins.ValueError"


def test_the_dlq_config_is_off_without_a_topic_name() -> None:
    assert DeadLetterQueueConfig.from_config({"errors.deadletterqueue.topic.name": " "}) is None
    assert DeadLetterQueueConfig.from_config(
        {
            "errors.deadletterqueue.topic.name": "dlq",
            "errors.deadletterqueue.topic.replication.factor": "1",
            "errors.deadletterqueue.context.headers.enable": "true",
        }
    ) == DeadLetterQueueConfig("dlq", 1, True)
