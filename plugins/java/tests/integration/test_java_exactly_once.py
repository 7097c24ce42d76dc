"""Exactly-once delivery (KIP-618) for a Java source connector's task on a distributed worker.

Kafka's own FileStreamSource (``connect-file`` 4.3.1 from Maven Central, on ``plugin.path``; the
Python FileStream plugin disabled so Kafka's class names reach the Java classes) copies a file of
numbered lines on two distributed workers with ``exactly.once.source.support=enabled``, its task in
a Spark task on the embedded local Spark. The worker running it is SIGKILLed mid-copy (its Spark
JVM, which runs the Java task, is left running until the end, a zombie) and the other takes over:
its task's transactional producer (``<group.id>-<connector>-0``) fences the zombie's, and a
``read_committed`` consumer sees every line exactly once, in order. The offsets topic holds the
task's offsets in Kafka's bytes (``kconnect.kafka.offset_records`` writes the same), committed with
the records. A second connector with ``transaction.boundary=interval`` and an offsets topic of its
own copies a file too: each line once, in order, its offsets in its topic and copied to the worker's.

Validate on that worker asks the Java connector the exactly-once questions: FileStreamSource answers
SUPPORTED with a ``file`` (``exactly.once.support=required`` passes) and cannot define transaction
boundaries (``transaction.boundary=connector`` is refused with Kafka's message).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from pathlib import Path

import pytest
from aiokafka import AIOKafkaConsumer
from kconnect.herder.source_validation import BOUNDARIES_UNSUPPORTED, EXACTLY_ONCE_UNSUPPORTED
from kconnect.kafka.offset_records import offset_key, offset_value
from kconnect_testkit.plugin_jars import fetch_connect_file

from plugins.java.tests.integration.plugin_folder import plugin_folder
from tests.integration.harness import end_offset, lines
from tests.integration.test_distributed import create_topic, group_props, wait_healthy
from tests.integration.test_exactly_once_source import running_on
from tests.worker_process import WorkerProcess, descendants

pytestmark = pytest.mark.integration

SOURCE = "org.apache.kafka.connect.file.FileStreamSourceConnector"
STRING = "org.apache.kafka.connect.storage.StringConverter"
LINES = 20_000
#: The Python FileStream plugin answers to Kafka's names: disabled, they name Kafka's Java classes.
ENV = {"KCONNECT_DISABLE_PLUGINS": "file"}
BOUNDARIES = "kconnect.test.BoundarySourceConnector"
#: How many records BoundarySourceConnector's task writes: 10 a poll.
RECORDS = 200


async def _read_committed(bootstrap: str, topic: str, until: int) -> list[tuple[bytes | None, bytes | None]]:
    """Every (key, value) of `topic` a ``read_committed`` consumer sees, each partition in order: once
    `until` values arrived, up to the partitions' last stable offsets; at most 2 minutes with none."""
    consumer = AIOKafkaConsumer(
        topic, bootstrap_servers=bootstrap, auto_offset_reset="earliest", isolation_level="read_committed"
    )
    await consumer.start()
    seen: list[tuple[bytes | None, bytes | None]] = []
    quiet = 0
    try:
        while quiet <= 240:
            batch = await consumer.getmany(timeout_ms=500, max_records=50_000)
            got = [(m.key, m.value) for part in sorted(batch) for m in batch[part]]
            seen.extend(got)
            quiet = 0 if got else quiet + 1
            assigned = list(consumer.assignment())
            if len(seen) >= until and assigned:
                ends = await consumer.end_offsets(assigned)
                if all([await consumer.position(part) >= ends[part] for part in assigned]):
                    break
        return seen
    finally:
        await consumer.stop()


def read_committed(bootstrap: str, topic: str, until: int = 0) -> list[tuple[bytes | None, bytes | None]]:
    """See `_read_committed`."""
    return asyncio.run(_read_committed(bootstrap, topic, until))


@pytest.fixture(scope="module")
def props(kafka_bootstrap: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A fresh group with exactly-once source support; Kafka's connect-file jar and
    ``BoundarySourceConnector`` on its plugin.path."""
    boundaries = plugin_folder(
        tmp_path_factory.mktemp("boundaries"),
        "boundaries",
        sorted((Path(__file__).parent / "transactions").glob("*.java")),
        {"org.apache.kafka.connect.source.SourceConnector": BOUNDARIES},
    )
    return group_props(
        kafka_bootstrap,
        "java-eos",
        **{
            "exactly.once.source.support": "enabled",
            "key.converter": STRING,
            "value.converter": STRING,
            "plugin.path": f"{fetch_connect_file('4.3.1')},{boundaries}",
            "spark.master": "local[2]",
            "scheduled.rebalance.max.delay.ms": "1000",
        },
    )


def _workers(folder: Path, props: dict[str, str]) -> list[WorkerProcess]:
    """Two workers of the group, started together (each start is mostly Spark's)."""
    workers = [WorkerProcess(folder, props, env=ENV, mode="distributed") for _ in range(2)]
    for worker in workers:
        worker.start(timeout=300)  # the first start builds the Java part with Maven
    wait_healthy(workers)
    return workers


def _errors(worker: WorkerProcess, config: dict[str, str]) -> dict[str, list[str]]:
    answer = worker.request("PUT", "/connector-plugins/FileStreamSourceConnector/config/validate", config)
    assert answer.status_code == 200, answer.text
    return {
        c["value"]["name"]: c["value"]["errors"] for c in answer.json()["configs"] if c["value"]["errors"]
    }


def _interval_copy_with_its_own_offsets_topic(
    worker: WorkerProcess, bootstrap: str, props: dict[str, str], folder: Path
) -> None:
    """``transaction.boundary=interval`` and an ``offsets.storage.topic`` of the connector's own: each
    line once, in order; the task's offsets in both topics, in Kafka's bytes."""
    topic, own = f"{props['group.id']}-interval", f"{props['group.id']}-own-offsets"
    create_topic(bootstrap, topic, 1)
    source = folder / "interval.txt"
    source.write_text(lines(0, 2_000), encoding="utf-8")
    config = {
        "connector.class": SOURCE,
        "file": str(source),
        "topic": topic,
        "batch.size": "100",
        "transaction.boundary": "interval",
        "transaction.boundary.interval.ms": "300",
        "offsets.storage.topic": own,
    }
    created = worker.request("PUT", "/connectors/interval/config", config)
    assert created.status_code == 201, created.text
    values = [value.decode() for _key, value in read_committed(bootstrap, topic, 2_000) if value is not None]
    assert values == [f"line {i}" for i in range(2_000)]
    key = offset_key("interval", {"filename": str(source)})
    last = offset_value({"position": source.stat().st_size})
    for offsets_topic in (own, props["offset.storage.topic"]):
        stored = [value for k, value in read_committed(bootstrap, offsets_topic) if k == key]
        assert stored and stored[-1] == last, (offsets_topic, stored[-3:])


def _connector_defined_transactions(worker: WorkerProcess, bootstrap: str, props: dict[str, str]) -> None:
    """``transaction.boundary=connector``: BoundarySourceConnector's task commits after the fifth
    record of each poll and then commits the rest, or aborts it every fifth poll from the third on
    (Kafka's TransactionContext). A read_committed consumer sees the committed records in order and
    none of the aborted ones; the task's last offset (the aborted records' too) is stored."""
    topic = f"{props['group.id']}-boundaries"
    create_topic(bootstrap, topic, 1)
    config = {
        "name": "boundaries",
        "connector.class": BOUNDARIES,
        "topic": topic,
        "records": str(RECORDS),
        "transaction.boundary": "connector",
        "exactly.once.support": "required",
    }
    validated = worker.request("PUT", "/connector-plugins/BoundarySourceConnector/config/validate", config)
    assert validated.json()["error_count"] == 0, validated.text
    created = worker.request("PUT", "/connectors/boundaries/config", config)
    assert created.status_code == 201, created.text
    committed = [f"r{n}" for n in range(RECORDS) if not ((n // 10) % 5 == 2 and n % 10 >= 5)]
    seen = read_committed(bootstrap, topic, len(committed))
    values = [value.decode() for _key, value in seen if value is not None]
    assert values == committed, (len(values), values[-3:], worker.status("boundaries"))
    key = offset_key("boundaries", {"source": "boundaries"})
    stored = [value for k, value in read_committed(bootstrap, props["offset.storage.topic"]) if k == key]
    assert stored and stored[-1] == offset_value({"next": RECORDS}), stored[-3:]


@pytest.mark.timeout(600)
def test_a_sigkilled_worker_s_java_source_task_delivers_every_line_exactly_once(
    tmp_path: Path, kafka_bootstrap: str, props: dict[str, str]
) -> None:
    topic = f"{props['group.id']}-lines"
    create_topic(kafka_bootstrap, topic, 1)
    source = tmp_path / "lines.txt"
    source.write_text(lines(0, LINES), encoding="utf-8")
    config = {
        "name": "copy",
        "connector.class": SOURCE,
        "file": str(source),
        "topic": topic,
        "tasks.max": "1",
        "batch.size": "100",
        "exactly.once.support": "required",
    }
    workers: list[WorkerProcess] = []
    orphans: list[int] = []  # the killed worker's Spark JVM, its Java task a zombie until the end
    try:
        workers.extend(_workers(tmp_path, props))
        asker = workers[0]
        # Validate asks the Java connector itself (Kafka's FileStreamSource: SUPPORTED with a file).
        assert _errors(asker, config) == {}
        assert _errors(asker, {**config, "file": ""}) == {"exactly.once.support": [EXACTLY_ONCE_UNSUPPORTED]}
        refused = _errors(asker, {**config, "transaction.boundary": "connector"})
        assert refused == {"transaction.boundary": [BOUNDARIES_UNSUPPORTED]}

        created = asker.request("PUT", "/connectors/copy/config", config)
        assert created.status_code == 201, created.text

        def written() -> int:
            return asyncio.run(end_offset(kafka_bootstrap, topic))

        asker.wait_for(
            "a third of the copy written",
            lambda: written() >= LINES // 3 and running_on(asker, workers) is not None,
            240,
        )
        victim = running_on(asker, workers)
        assert victim is not None and victim.process is not None
        at_kill = written()
        assert at_kill < LINES, "the copy ended before the kill: nothing was cut short"
        orphans.extend(descendants(victim.process.pid))
        victim.process.send_signal(signal.SIGKILL)
        victim.process.wait()
        survivor = next(w for w in workers if w is not victim)
        survivor.wait_for(
            "the task RUNNING on the survivor", lambda: running_on(survivor, workers) is survivor, 120
        )
        seen = read_committed(kafka_bootstrap, topic, LINES)
        values = [value.decode() for _key, value in seen if value is not None]
        duplicates = len(values) - len(set(values))
        print(
            f"\n{LINES} lines, SIGKILL at end offset {at_kill}: {len(values)} read_committed, "
            f"{duplicates} duplicates"
        )
        assert duplicates == 0, f"{duplicates} lines read twice"
        assert values == [f"line {i}" for i in range(LINES)]

        # The task's last committed offset, in the bytes Java Connect's worker writes.
        offsets = read_committed(kafka_bootstrap, props["offset.storage.topic"])
        key = offset_key("copy", {"filename": str(source)})
        stored = [value for k, value in offsets if k == key]
        assert stored, f"no offset of the task in {props['offset.storage.topic']}: {offsets[:3]}"
        assert stored[-1] == offset_value({"position": source.stat().st_size})

        _interval_copy_with_its_own_offsets_topic(survivor, kafka_bootstrap, props, tmp_path)
        _connector_defined_transactions(survivor, kafka_bootstrap, props)
    finally:
        for worker in workers:
            if worker.process is not None and worker.process.poll() is None:
                worker.stop()
        for pid in orphans:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
