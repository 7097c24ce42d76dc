"""Exactly-once source bookkeeping (`kconnect.runtime.exactly_once`) with a producer that logs calls.

What the transactions send, in which transaction, and when they end, for each boundary; the
settings a task spec gives; the transaction context's requests. The real broker's side (fencing,
read_committed) is `tests/integration/test_exactly_once_source.py`.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from kconnect.config.worker_settings import WorkerSettings
from kconnect.executor import TaskSpec
from kconnect.kafka.offset_records import offset_key
from kconnect.model import ConnectorTaskId
from kconnect.records import SourceRecord
from kconnect.runtime.exactly_once import (
    ExactlyOnceSource,
    SourceTransactions,
    TransactionBoundary,
    WorkerTransactionContext,
    task_transactional_id,
)

WORKER = {"group.id": "cluster", "exactly.once.source.support": "enabled", "offset.storage.topic": "offs"}


class LoggingProducer:
    """Logs each transactional call; `fail_commit` makes the next commit raise."""

    def __init__(self) -> None:
        self.log: list[tuple[Any, ...]] = []
        self.fail_commit: Exception | None = None

    async def begin_transaction(self) -> None:
        self.log.append(("begin",))

    async def commit_transaction(self) -> None:
        if self.fail_commit is not None:
            raise self.fail_commit
        self.log.append(("commit",))

    async def abort_transaction(self) -> None:
        self.log.append(("abort",))

    async def send(self, topic: str, value: bytes | None = None, key: bytes | None = None) -> Any:
        self.log.append(("offset", topic, key, value))


def record(n: int) -> SourceRecord:
    return SourceRecord(topic="t", value=f"v{n}", source_partition={"file": "f"}, source_offset={"pos": n})


def settings(
    boundary: TransactionBoundary = TransactionBoundary.POLL, interval_s: float = 60
) -> ExactlyOnceSource:
    return ExactlyOnceSource("cluster-c-0", "offs", boundary, interval_s)


def transactions(
    producer: LoggingProducer,
    boundary: TransactionBoundary = TransactionBoundary.POLL,
    interval_s: float = 60,
) -> SourceTransactions:
    context = WorkerTransactionContext() if boundary is TransactionBoundary.CONNECTOR else None
    return SourceTransactions(producer, "c", settings(boundary, interval_s), context, "Source task c-0")


def offset(n: int) -> tuple[Any, ...]:
    return ("offset", "offs", offset_key("c", {"file": "f"}), f'{{"pos":{n}}}'.encode())


async def dispatch(txns: SourceTransactions, producer: LoggingProducer, records: list[SourceRecord]) -> bool:
    async def send(batch: list[SourceRecord]) -> None:
        producer.log.extend(("record", r.value) for r in batch)

    return await txns.dispatch(records, send)


def test_poll_boundary_one_transaction_per_batch_with_its_newest_offsets() -> None:
    producer = LoggingProducer()
    txns = transactions(producer)

    async def run() -> list[bool]:
        return [
            await dispatch(txns, producer, [record(1), record(2)]),
            await dispatch(txns, producer, []),
            await dispatch(txns, producer, [record(3)]),
        ]

    assert asyncio.run(run()) == [True, False, True]
    assert producer.log == [
        ("begin",), ("record", "v1"), ("record", "v2"), offset(2), ("commit",),
        ("begin",), ("record", "v3"), offset(3), ("commit",),
    ]  # fmt: skip


def test_interval_boundary_commits_once_the_interval_passed_and_on_the_final_commit() -> None:
    producer = LoggingProducer()
    txns = transactions(producer, TransactionBoundary.INTERVAL, interval_s=3600)

    async def run() -> list[bool]:
        sent = [await dispatch(txns, producer, [record(1)]), await dispatch(txns, producer, [record(2)])]
        return [*sent, await txns.commit(), await txns.commit()]

    assert asyncio.run(run()) == [False, False, True, False]
    assert producer.log == [("begin",), ("record", "v1"), ("record", "v2"), offset(2), ("commit",)]


def test_connector_boundary_ends_transactions_where_the_task_asked() -> None:
    producer = LoggingProducer()
    txns = transactions(producer, TransactionBoundary.CONNECTOR)
    assert txns.context is not None
    first, second, third = record(1), record(2), record(3)
    txns.context.commit_transaction(first)
    txns.context.abort_transaction(second)

    async def run() -> bool:
        return await dispatch(txns, producer, [first, second, third])

    assert asyncio.run(run()) is True
    assert producer.log == [
        ("begin",), ("record", "v1"), offset(1), ("commit",),
        # the aborted record's offset is committed on its own, so the task does not read it again
        ("begin",), ("record", "v2"), ("abort",), ("begin",), offset(2), ("commit",),
        ("begin",), ("record", "v3"),
    ]  # fmt: skip
    txns.context.commit_transaction()
    producer.log.clear()
    assert asyncio.run(dispatch(txns, producer, [])) is True
    assert producer.log == [offset(3), ("commit",)]


def test_a_commit_and_an_abort_of_the_same_batch_are_refused() -> None:
    context = WorkerTransactionContext()
    context.commit_transaction()
    context.abort_transaction()
    with pytest.raises(RuntimeError, match="both a commit and an abort"):
        context.request_for_batch()


def test_a_failed_commit_aborts_and_fails_naming_the_transactional_id() -> None:
    producer = LoggingProducer()
    producer.fail_commit = RuntimeError("ProducerFenced")
    txns = transactions(producer)
    with pytest.raises(
        RuntimeError, match=r"Source task c-0: failed to commit .*cluster-c-0.*ProducerFenced"
    ):
        asyncio.run(dispatch(txns, producer, [record(1)]))
    assert producer.log[-1] == ("abort",)
    assert ("commit",) not in producer.log


def spec(worker: dict[str, str], connector: dict[str, str] | None = None, kind: str = "source") -> TaskSpec:
    settings = WorkerSettings.from_props(worker)
    return TaskSpec(ConnectorTaskId("c", 2), kind, "x.Task", connector or {}, {}, settings)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("worker", "kind", "expected"),
    [
        (WORKER, "source", ExactlyOnceSource("cluster-c-2", "offs", TransactionBoundary.POLL, 60.0)),
        ({**WORKER, "exactly.once.source.support": "preparing"}, "source", None),
        ({**WORKER, "exactly.once.source.support": "disabled"}, "source", None),
        ({k: v for k, v in WORKER.items() if k != "group.id"}, "source", None),  # standalone
        (WORKER, "sink", None),
    ],
)
def test_only_source_tasks_of_distributed_workers_with_support_enabled_are_transactional(
    worker: dict[str, str], kind: str, expected: ExactlyOnceSource | None
) -> None:
    assert ExactlyOnceSource.for_task(spec(worker, kind=kind)) == expected


def test_interval_defaults_to_the_offset_flush_interval_and_the_id_is_kafkas() -> None:
    connector = {"transaction.boundary": "Interval"}
    found = ExactlyOnceSource.for_task(spec({**WORKER, "offset.flush.interval.ms": "2500"}, connector))
    assert found == ExactlyOnceSource("cluster-c-2", "offs", TransactionBoundary.INTERVAL, 2.5)
    connector["transaction.boundary.interval.ms"] = "100"
    assert ExactlyOnceSource.for_task(spec(WORKER, connector)) == ExactlyOnceSource(
        "cluster-c-2", "offs", TransactionBoundary.INTERVAL, 0.1
    )
    assert task_transactional_id("connect-cluster", "my-source", 7) == "connect-cluster-my-source-7"
