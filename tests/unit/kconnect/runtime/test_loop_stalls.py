"""The task loops report stalls through their control: a put or pre_commit that does not return, a
batch put keeps refusing; and a loop that merely waits for records reports none (fake consumer)."""

from __future__ import annotations

import asyncio
import threading

from aiokafka.structs import TopicPartition as KTP
from kconnect.runtime.sink_loop import SinkLoop

from tests.connectors import RecordingSinkTask
from tests.unit.kconnect.runtime.loop_fakes import FakeConsumer, MemoryControl, wait_until
from tests.unit.kconnect.runtime.test_sink_loop import Running

T0 = KTP("t", 0)
#: A stall timeout short enough for a unit test, long enough for a loaded machine's ordinary calls.
STALL = {"task.stall.timeout.ms": "300"}


def stalls(control: MemoryControl) -> list[str]:
    return [r for r in control.reports if r.startswith("stalled") or r == "moves again"]


async def test_a_put_that_does_not_return_is_reported_and_its_return_clears_it() -> None:
    consumer = FakeConsumer()
    gate = threading.Event()

    def configure(task: RecordingSinkTask) -> None:
        task.on_put = lambda: task.values and gate.wait(10)  # an empty put returns at once

    running = await Running(consumer, STALL, configure=configure).start({T0})
    consumer.append("t", 0, "a0", "a1")
    await wait_until(lambda: stalls(running.control) != [])
    assert stalls(running.control)[0].startswith("stalled: put() of 2 records has not returned for ")
    gate.set()
    await wait_until(lambda: stalls(running.control)[-1] == "moves again")
    await running.stop()
    assert len(stalls(running.control)) == 2


async def test_a_batch_put_keeps_refusing_is_a_stall_counted_from_its_first_offer() -> None:
    consumer = FakeConsumer()
    consumer.append("t", 0, "a0", "a1", "a2")

    def configure(task: RecordingSinkTask) -> None:
        task.retriable_failures = 10
        task.context.timeout(50)

    running = await Running(consumer, STALL, configure=configure).start({T0})
    await wait_until(lambda: stalls(running.control) != [])
    assert stalls(running.control)[0].startswith(
        "stalled: put() has not accepted 3 records (it raised RetriableError) for "
    )
    await wait_until(lambda: running.task.values == ["a0", "a1", "a2"])
    await wait_until(lambda: stalls(running.control)[-1] == "moves again")
    await running.stop()


async def test_a_pre_commit_that_does_not_return_is_a_stall() -> None:
    consumer = FakeConsumer()
    consumer.append("t", 0, "a0")
    running = await Running(consumer, STALL, worker={"offset.flush.interval.ms": "50"}).start({T0})
    await wait_until(lambda: running.task.values == ["a0"])
    gate = threading.Event()
    running.task.pre_commit_gate = gate
    await wait_until(lambda: stalls(running.control) != [])
    assert stalls(running.control)[0].startswith("stalled: pre_commit() has not returned for ")
    running.task.pre_commit_gate = None
    gate.set()
    await wait_until(lambda: stalls(running.control)[-1] == "moves again")
    await running.stop()


async def test_a_sink_waiting_for_records_is_never_stalled() -> None:
    running = await Running(FakeConsumer(), STALL).start({T0})
    await asyncio.sleep(1.2)
    await running.stop()
    assert stalls(running.control) == []
    assert isinstance(running.loop, SinkLoop)
