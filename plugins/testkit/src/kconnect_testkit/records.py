"""Write records to a topic and read them back, from a test's (synchronous) code.

Each call runs aiokafka on an event loop of its own in a helper thread, so a test inside pytest-asyncio's
loop, or in none, calls them alike.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import time
from collections.abc import Coroutine, Sequence
from typing import Any, TypeVar

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, ConsumerRecord

T = TypeVar("T")


def produce(bootstrap: str, topic: str, values: Sequence[bytes | None], key: bytes | None = None) -> None:
    """Send each of `values` to `topic` (with `key`), in order, waiting for every acknowledgement."""

    async def send() -> None:
        producer = AIOKafkaProducer(bootstrap_servers=bootstrap)
        await producer.start()
        try:
            for value in values:
                await producer.send_and_wait(topic, value, key=key)
        finally:
            await producer.stop()

    _run(send(), timeout=120.0)


def consume(bootstrap: str, topic: str, count: int, timeout: float = 60.0) -> list[ConsumerRecord[Any, Any]]:
    """The first `count` records of `topic` from the earliest offset; TimeoutError naming how many came
    when fewer than `count` arrive within `timeout` seconds. A connector's output is checked with this."""

    async def read() -> list[ConsumerRecord[Any, Any]]:
        consumer = AIOKafkaConsumer(topic, bootstrap_servers=bootstrap, auto_offset_reset="earliest")
        await consumer.start()
        records: list[ConsumerRecord[Any, Any]] = []
        deadline = time.monotonic() + timeout
        try:
            while len(records) < count:
                if time.monotonic() > deadline:
                    raise TimeoutError(
                        f"{len(records)} of {count} records arrived on {topic} within {timeout:.0f} s"
                    )
                batch = await consumer.getmany(timeout_ms=500)
                records += [record for part in batch.values() for record in part]
        finally:
            await consumer.stop()
        return records[:count]

    return _run(read(), timeout=timeout + 30.0)


def _run(work: Coroutine[Any, Any, T], timeout: float) -> T:
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, work).result(timeout)
