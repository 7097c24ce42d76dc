"""The task loops report stalls through their control: a poll, commit, put or pre_commit that does not
return, a batch put keeps refusing; and a loop that merely waits for records reports none (fake
producer and consumer; the held tasks of `tests.connectors`, held by a file)."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from pathlib import Path

from aiokafka.structs import TopicPartition as KTP
from kconnect.model import TargetState
from kconnect.runtime.sink_loop import SinkLoop
from kconnect.runtime.source_loop import SourceLoop

from tests.connectors import HOLD_FILE, HOLD_IN, HeldSource, HeldSourceTask, RecordingSinkTask
from tests.unit.kconnect.runtime.loop_fakes import (
    FakeConsumer,
    FakeProducer,
    MemoryControl,
    plugin_host,
    task_spec,
    wait_until,
)
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


async def run_held_source(
    config: dict[str, str], check: object, producer: FakeProducer | None = None
) -> MemoryControl:
    """Run a `HeldSource` task with `config` until `check(control)` (a coroutine function) returns."""
    control = MemoryControl()
    spec = task_spec("source", HeldSource, HeldSourceTask, {**STALL, **config})
    spec = dataclasses.replace(spec, task_config=spec.connector_config)  # as the connector gives it
    loop = SourceLoop(spec, control, plugin_host(HeldSource), producer or FakeProducer())
    running = asyncio.create_task(loop.run())
    try:
        await check(control)  # type: ignore[operator]
    finally:
        control.set(TargetState.STOPPED)
        await asyncio.wait_for(running, 5)
    return control


async def test_a_poll_that_does_not_return_is_reported_and_its_return_clears_it(tmp_path: Path) -> None:
    held = tmp_path / "hold"

    async def stall_then_free(control: MemoryControl) -> None:
        await wait_until(lambda: "running" in control.reports)
        await asyncio.sleep(0.5)
        assert stalls(control) == [], "a source that returns records is not stalled"
        held.touch()
        await wait_until(lambda: stalls(control) != [])
        assert stalls(control)[0].startswith("stalled: poll() has not returned for ")
        held.unlink()
        await wait_until(lambda: stalls(control)[-1] == "moves again")

    await run_held_source({"topic": "t", HOLD_FILE: str(held), HOLD_IN: "poll"}, stall_then_free)


async def test_a_source_commit_that_does_not_return_is_a_stall(tmp_path: Path) -> None:
    held = tmp_path / "hold"
    held.touch()

    async def stall_then_free(control: MemoryControl) -> None:
        await wait_until(lambda: stalls(control) != [])
        assert stalls(control)[0].startswith("stalled: commit() has not returned for ")
        held.unlink()
        await wait_until(lambda: stalls(control)[-1] == "moves again")

    await run_held_source({"topic": "t", HOLD_FILE: str(held), HOLD_IN: "commit"}, stall_then_free)


async def test_an_idle_source_is_never_stalled() -> None:
    async def idle(control: MemoryControl) -> None:
        await wait_until(lambda: "running" in control.reports)
        await asyncio.sleep(1.2)

    assert stalls(await run_held_source({}, idle)) == []


async def test_a_send_the_broker_does_not_answer_is_a_stall() -> None:
    """The producer answers nothing: after two unanswered batches the loop waits to hand over more."""
    producer = FakeProducer(partitions=1, auto_ack=False)

    async def broker_away_then_back(control: MemoryControl) -> None:
        await wait_until(lambda: stalls(control) != [])
        assert stalls(control)[0].startswith(
            "stalled: Kafka has not taken 1 record (the producer waits for the broker) for "
        )
        for sent in producer.sent:
            producer.answer(sent)
        await wait_until(lambda: stalls(control)[-1] == "moves again")
        producer.auto_ack = True
        for sent in producer.sent:
            producer.answer(sent)

    await run_held_source({"topic": "t"}, broker_away_then_back, producer)
