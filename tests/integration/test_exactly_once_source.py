"""Exactly-once source delivery (KIP-618) on the real broker, with distributed workers and Spark.

A distributed worker with ``exactly.once.source.support=enabled`` copies a file of numbered lines
with FileStreamSource (one task, ``transaction.boundary=poll``); the worker running the task
is SIGKILLed five times mid-copy, and each time the other worker of the group takes the task over
(a new worker joins in place of the dead one). A ``read_committed``
consumer of the topic then sees every line exactly once: each poll's records and their source
offsets were one transaction, so a kill either loses both (the next generation's producer, same
``transactional.id``, aborts the open transaction and resumes from the last committed offset) or
keeps both.

The issue's figure is a 6M-line copy; CI copies `LINES` (60,000 by default: every kill still lands
mid-copy, several hundred transactions are committed and several are cut short). The full run,
and the same run without exactly-once support (the duplicate count ``docs/reliability.md``
compares), are::

    KCONNECT_EOS_LINES=6000000 .tox/tests/bin/pytest tests/integration/test_exactly_once_source.py -s
    KCONNECT_EOS_LINES=6000000 KCONNECT_EOS_SUPPORT=disabled \\
        .tox/tests/bin/pytest tests/integration/test_exactly_once_source.py -s

With ``disabled`` the test checks that nothing is lost and prints the duplicates it counted.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiokafka import AIOKafkaConsumer
from aiokafka.structs import TopicPartition

from tests.integration.harness import lines
from tests.integration.test_distributed import create_topic, group_props, wait_healthy
from tests.worker_process import WorkerProcess, descendants

pytestmark = pytest.mark.integration

LINES = int(os.environ.get("KCONNECT_EOS_LINES", "60000"))
SUPPORT = os.environ.get("KCONNECT_EOS_SUPPORT", "enabled")
KILLS = 5
STRING = "org.apache.kafka.connect.storage.StringConverter"


async def _end_offsets(bootstrap: str, topic: str) -> int:
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap)
    await consumer.start()
    try:
        partition = TopicPartition(topic, 0)
        return int((await consumer.end_offsets([partition]))[partition])
    finally:
        await consumer.stop()


def written(bootstrap: str, topic: str) -> int:
    """The topic's end offset (records and transaction markers written so far, committed or not)."""
    return asyncio.run(_end_offsets(bootstrap, topic))


async def _read_committed(bootstrap: str, topic: str, expected: int, timeout_s: float) -> Counter[str]:
    """Every value of `topic` a ``read_committed`` consumer sees, counted; reads until `expected`
    values arrived and nothing more comes for a few seconds, or `timeout_s` passed."""
    consumer = AIOKafkaConsumer(
        topic, bootstrap_servers=bootstrap, auto_offset_reset="earliest", isolation_level="read_committed"
    )
    await consumer.start()
    seen: Counter[str] = Counter()
    total = 0
    deadline = time.monotonic() + timeout_s
    quiet_since = time.monotonic()
    try:
        while time.monotonic() < deadline:
            batch = await consumer.getmany(timeout_ms=500, max_records=50_000)
            got = [m.value.decode() for part in batch.values() for m in part]
            if got:
                seen.update(got)
                total += len(got)
                quiet_since = time.monotonic()
            elif total >= expected and time.monotonic() - quiet_since > 3:
                break
        return seen
    finally:
        await consumer.stop()


def read_committed(bootstrap: str, topic: str, expected: int, timeout_s: float = 300) -> Counter[str]:
    """See `_read_committed`."""
    return asyncio.run(_read_committed(bootstrap, topic, expected, timeout_s))


@pytest.fixture
def orphans() -> Iterator[list[int]]:
    """Processes a SIGKILLed worker left behind (its Spark JVM and Python workers): killed at the end."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def running_on(worker: WorkerProcess, workers: list[WorkerProcess]) -> WorkerProcess | None:
    """The worker of `workers` that `worker` reports running task ``copy-0``, if it runs."""
    response = worker.get("/connectors/copy/status")
    tasks = response.json().get("tasks", []) if response.status_code == 200 else []
    if not tasks or tasks[0]["state"] != "RUNNING":
        return None
    return next((w for w in workers if tasks[0]["worker_id"] == f"127.0.0.1:{w.port}"), None)


@pytest.mark.timeout(900)
def test_five_sigkills_of_the_worker_mid_copy_deliver_every_line_exactly_once(
    tmp_path: Path, kafka_bootstrap: str, orphans: list[int]
) -> None:
    """Two workers; each kill hits the one running the task, the other takes it over, and a new
    worker joins in place of the dead one."""
    props = group_props(
        kafka_bootstrap,
        "kconnect-eos",
        **{
            "exactly.once.source.support": SUPPORT,
            "key.converter": STRING,
            "value.converter": STRING,
            "offset.flush.interval.ms": "1000",
            "spark.master": "local[2]",
            "scheduled.rebalance.max.delay.ms": "1000",
        },
    )
    topic = f"{props['group.id']}-lines"
    create_topic(kafka_bootstrap, topic, 1)
    source = tmp_path / "lines.txt"
    source.write_text(lines(0, LINES), encoding="utf-8")
    config = {
        "connector.class": "FileStreamSource",
        "file": str(source),
        "topic": topic,
        "tasks.max": "1",
        "batch.size": "500",
    }
    workers = [WorkerProcess(tmp_path, props, mode="distributed").start() for _ in range(2)]
    try:
        wait_healthy(workers)
        response = workers[0].request("PUT", "/connectors/copy/config", config)
        assert response.status_code == 201, response.text
        for kill in range(1, KILLS + 1):
            mark = LINES * kill // (KILLS + 1)
            asker = workers[-1]
            asker.wait_for(
                f"{mark} records written by a running task before kill {kill}",
                lambda mark=mark, asker=asker: (
                    written(kafka_bootstrap, topic) >= mark and running_on(asker, workers) is not None
                ),
                240,
            )
            victim = running_on(asker, workers)
            assert victim is not None and victim.process is not None
            orphans.extend(descendants(victim.process.pid))
            victim.process.send_signal(signal.SIGKILL)
            victim.process.wait()
            workers.remove(victim)
            workers.append(WorkerProcess(tmp_path, props, mode="distributed").start())
        seen = read_committed(kafka_bootstrap, topic, LINES)
    finally:
        for worker in workers:
            worker.interrupt()
        for worker in workers:
            worker.stop()

    expected = {f"line {i}" for i in range(LINES)}
    missing = expected - set(seen)
    duplicates = sum(count - 1 for count in seen.values())
    print(
        f"\nexactly.once.source.support={SUPPORT}: {LINES} lines, {KILLS} SIGKILLs: "
        f"{sum(seen.values())} records read_committed, {duplicates} duplicates, {len(missing)} missing"
    )
    assert not missing, f"{len(missing)} lines lost, e.g. {sorted(missing)[:5]}"
    assert set(seen) == expected
    if SUPPORT == "enabled":
        assert duplicates == 0, f"{duplicates} duplicates: {[v for v, c in seen.items() if c > 1][:5]}"
