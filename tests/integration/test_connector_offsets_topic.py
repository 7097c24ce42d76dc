"""A source connector's own offsets topic (KIP-618's ``offsets.storage.topic``), and KIP-875's alter
and reset under exactly-once support, on the real broker with distributed workers and Spark.

* Without exactly-once support: a FileStreamSource that ran with the worker's offsets topic is given
  a topic of its own and resumes where it was (reads fall back to the worker's topic); its new
  offsets land in its topic and are copied to the worker's; a reset tombstones both, so it copies
  the whole file again.
* With ``exactly.once.source.support=enabled``: the task writes its offsets to the connector's topic
  in its transactions (a ``read_committed`` reader sees them; the topic holds transaction markers);
  altering the stopped connector's offsets fences a producer of task 0's ``transactional.id`` that
  left a transaction open (its commit fails, its offset is never visible), runs Kafka's fencing
  round (``tasks-fencing-<name>`` back to 0), and the task resumes exactly from the altered offset;
  a reset, in a transaction too, makes it copy the whole file again.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.errors import KafkaError
from aiokafka.structs import TopicPartition

from tests.integration.harness import lines
from tests.integration.test_distributed import create_topic, group_props, wait_healthy
from tests.integration.test_exactly_once_source import config_records, read_committed
from tests.worker_process import WorkerProcess

pytestmark = pytest.mark.integration

STRING = "org.apache.kafka.connect.storage.StringConverter"


async def _latest(bootstrap: str, topic: str, read_committed: bool) -> dict[bytes, bytes | None]:
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap,
        isolation_level="read_committed" if read_committed else "read_uncommitted",
    )
    await consumer.start()
    try:
        partitions = [TopicPartition(topic, p) for p in (consumer.partitions_for_topic(topic) or set())]
        if not partitions:
            await consumer._client.force_metadata_update()
            partitions = [TopicPartition(topic, p) for p in (consumer.partitions_for_topic(topic) or set())]
        consumer.assign(partitions)
        await consumer.seek_to_beginning(*partitions)
        ends = await consumer.end_offsets(partitions)
        latest: dict[bytes, bytes | None] = {}
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            positions = {p: await consumer.position(p) for p in partitions}
            if all(positions[p] >= ends[p] for p in partitions):
                break
            for records in (await consumer.getmany(timeout_ms=500)).values():
                latest.update((r.key, r.value) for r in records)
        return latest
    finally:
        await consumer.stop()


def offsets_in(bootstrap: str, topic: str, committed: bool = True) -> dict[str, Any]:
    """The newest offset value of each key of an offsets topic, decoded (None: a tombstone)."""
    found = asyncio.run(_latest(bootstrap, topic, committed))
    return {key.decode(): None if value is None else json.loads(value) for key, value in found.items()}


def end_offsets(bootstrap: str, topic: str) -> int:
    """The sum of the end offsets of every partition of `topic` (records and transaction markers)."""

    async def ends() -> int:
        consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap)
        await consumer.start()
        try:
            await consumer._client.force_metadata_update()
            partitions = [TopicPartition(topic, p) for p in consumer.partitions_for_topic(topic) or set()]
            return sum((await consumer.end_offsets(partitions)).values())
        finally:
            await consumer.stop()

    return asyncio.run(ends())


def position_after(count: int) -> int:
    """FileStreamSource's offset after ``line 0`` ... ``line <count-1>``: the bytes read."""
    return len(lines(0, count).encode())


def copied(bootstrap: str, topic: str, distinct: int) -> Counter[str]:
    """Every line in `topic` (committed records only), counted, once `distinct` different lines
    arrived and nothing more came for a few seconds."""
    return read_committed(bootstrap, topic, distinct, timeout_s=120)


def wait_records(worker: WorkerProcess, bootstrap: str, topic: str, count: int) -> None:
    """Wait until `topic` holds `count` committed records."""
    worker.wait_for(f"{count} records in {topic}", lambda: committed_count(bootstrap, topic) >= count, 120)


def committed_count(bootstrap: str, topic: str) -> int:
    """How many committed records `topic` holds now (read to its last stable offset)."""

    async def count() -> int:
        consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, isolation_level="read_committed")
        await consumer.start()
        try:
            partition = TopicPartition(topic, 0)
            consumer.assign([partition])
            await consumer.seek_to_beginning(partition)
            end = (await consumer.end_offsets([partition]))[partition]
            seen = 0
            while await consumer.position(partition) < end:
                seen += sum(
                    len(r) for r in (await consumer.getmany(timeout_ms=500, max_records=50_000)).values()
                )
            return seen
        finally:
            await consumer.stop()

    return asyncio.run(count())


def put(worker: WorkerProcess, method: str, path: str, body: Any = None, expect: int = 200) -> Any:
    """A REST call that must answer `expect`; its JSON body (None when empty)."""
    response = worker.request(method, path, body)
    assert response.status_code == expect, f"{method} {path}: {response.status_code} {response.text}"
    return response.json() if response.content else None


def stop(worker: WorkerProcess, name: str) -> None:
    """Stop the connector and wait until its status says STOPPED with no task."""
    put(worker, "PUT", f"/connectors/{name}/stop", expect=204)
    worker.wait_for(
        f"{name} STOPPED",
        lambda: (
            (s := worker.get(f"/connectors/{name}/status").json())["connector"]["state"] == "STOPPED"
            and not s["tasks"]
        ),
        60,
    )


@dataclass
class Copy:
    """A distributed worker of a fresh group copying a file of numbered lines with connector ``copy``."""

    worker: WorkerProcess
    props: dict[str, str]
    topic: str
    own: str
    """The offsets topic a test may give the connector."""
    source: Path
    config: dict[str, str]

    @property
    def worker_topic(self) -> str:
        """The worker's offsets topic."""
        return self.props["offset.storage.topic"]

    @property
    def key(self) -> str:
        """The offsets-topic key of the file's partition."""
        return json.dumps(["copy", {"filename": str(self.source)}], separators=(",", ":"))


@contextlib.contextmanager
def copying(tmp_path: Path, bootstrap: str, support: str, count: int, **config: str) -> Iterator[Copy]:
    """One distributed worker (`support` its exactly-once source support) copying `count` lines with
    FileStreamSource (and `config`); stopped on exit. ``{own}`` in a config value names the offsets
    topic the test may give the connector."""
    props = group_props(
        bootstrap,
        "kconnect-own-offsets",
        **{
            "exactly.once.source.support": support,
            "key.converter": STRING,
            "value.converter": STRING,
            "spark.master": "local[2]",
        },
    )
    worker = WorkerProcess(tmp_path, props, mode="distributed").start()
    try:
        wait_healthy([worker])
        group = props["group.id"]
        topic, own = f"{group}-lines", f"{group}-copy-offsets"
        create_topic(bootstrap, topic, 1)
        source = tmp_path / "lines.txt"
        source.write_text(lines(0, count), encoding="utf-8")
        full = {"connector.class": "FileStreamSource", "file": str(source), "topic": topic, "tasks.max": "1"}
        full.update({key: value.format(own=own) for key, value in config.items()})
        put(worker, "PUT", "/connectors/copy/config", full, expect=201)
        yield Copy(worker, props, topic, own, source, full)
    finally:
        worker.stop()


@pytest.mark.timeout(420)
def test_a_connector_given_its_own_offsets_topic_resumes_from_the_workers_and_a_reset_clears_both(
    tmp_path: Path, kafka_bootstrap: str
) -> None:
    with copying(tmp_path, kafka_bootstrap, "disabled", 1000) as copy:
        worker, source, config = copy.worker, copy.source, copy.config
        topic, own, global_topic, key = copy.topic, copy.own, copy.worker_topic, copy.key
        wait_records(worker, kafka_bootstrap, topic, 1000)
        worker.wait_for(
            "the offset in the worker's topic",
            lambda: offsets_in(kafka_bootstrap, global_topic).get(key) == {"position": position_after(1000)},
            60,
        )

        stop(worker, "copy")
        put(worker, "PUT", "/connectors/copy/config", {**config, "offsets.storage.topic": own})
        with source.open("a", encoding="utf-8") as more:
            more.write(lines(1000, 2000))
        put(worker, "PUT", "/connectors/copy/resume", expect=202)
        wait_records(worker, kafka_bootstrap, topic, 2000)
        # Read from the worker's topic, where the connector's own had nothing: no line again.
        seen = copied(kafka_bootstrap, topic, 2000)
        assert seen == Counter(f"line {i}" for i in range(2000))
        end = {"position": position_after(2000)}
        worker.wait_for(
            "the offset in the connector's topic", lambda: offsets_in(kafka_bootstrap, own) == {key: end}
        )
        worker.wait_for(
            "the offset copied to the worker's topic",
            lambda: offsets_in(kafka_bootstrap, global_topic).get(key) == end,
        )
        assert put(worker, "GET", "/connectors/copy/offsets") == {
            "offsets": [{"partition": {"filename": str(source)}, "offset": end}]
        }

        stop(worker, "copy")
        answer = put(worker, "DELETE", "/connectors/copy/offsets")
        assert "have been reset successfully" in answer["message"]
        assert offsets_in(kafka_bootstrap, own) == {key: None}
        assert offsets_in(kafka_bootstrap, global_topic)[key] is None
        assert put(worker, "GET", "/connectors/copy/offsets") == {"offsets": []}
        put(worker, "PUT", "/connectors/copy/resume", expect=202)
        wait_records(worker, kafka_bootstrap, topic, 4000)
        assert copied(kafka_bootstrap, topic, 2000) == Counter({f"line {i}": 2 for i in range(2000)})


async def _alter_with_a_zombie_open(
    worker: WorkerProcess, bootstrap: str, transactional_id: str, topic: str, key: bytes, body: Any
) -> tuple[Any, str]:
    """A producer of `transactional_id` opens a transaction and writes an offset of 0 under `key`;
    then the alter (`body`); then the producer tries to commit. The alter's answer, and the error
    the commit got ("" if it committed)."""
    zombie = AIOKafkaProducer(bootstrap_servers=bootstrap, transactional_id=transactional_id)
    await zombie.start()
    try:
        await zombie.begin_transaction()
        await (await zombie.send(topic, b'{"position":0}', key=key))
        answer = await asyncio.to_thread(put, worker, "PATCH", "/connectors/copy/offsets", body)
        try:
            await zombie.commit_transaction()
        except KafkaError as exc:
            return answer, type(exc).__name__
        return answer, ""
    finally:
        await zombie.stop()


@pytest.mark.timeout(420)
def test_under_exactly_once_offsets_go_to_the_connectors_topic_in_transactions_and_alter_fences_a_zombie(
    tmp_path: Path, kafka_bootstrap: str
) -> None:
    with copying(
        tmp_path, kafka_bootstrap, "enabled", 3000, **{"batch.size": "500", "offsets.storage.topic": "{own}"}
    ) as copy:
        worker, source, props = copy.worker, copy.source, copy.props
        topic, own, global_topic, key = copy.topic, copy.own, copy.worker_topic, copy.key
        wait_records(worker, kafka_bootstrap, topic, 3000)
        end = {"position": position_after(3000)}
        worker.wait_for(
            "the offset in the connector's topic", lambda: offsets_in(kafka_bootstrap, own) == {key: end}
        )
        # Written in the task's transactions: each commit left a marker beside its offset record.
        offset_records = end_offsets(kafka_bootstrap, own)
        assert offset_records >= 2 * 6, offset_records  # six polls of 500 lines: a record and a marker each
        assert offsets_in(kafka_bootstrap, global_topic).get(key) == end  # copied in the same transactions

        stop(worker, "copy")
        altered = {"position": position_after(1000)}
        body = {"offsets": [{"partition": {"filename": str(source)}, "offset": altered}]}
        zombie_id = f"{props['group.id']}-copy-0"
        answer, refused = asyncio.run(
            _alter_with_a_zombie_open(worker, kafka_bootstrap, zombie_id, own, key.encode(), body)
        )
        assert "have been altered successfully" in answer["message"]
        assert refused, "the zombie could still commit its transaction after the alter"
        assert offsets_in(kafka_bootstrap, own) == {key: altered}
        assert offsets_in(kafka_bootstrap, global_topic).get(key) == altered
        fencing = config_records(kafka_bootstrap, props["config.storage.topic"]).get("tasks-fencing-copy")
        assert fencing is not None and json.loads(fencing) == {"task-count": 0}
        put(worker, "PUT", "/connectors/copy/resume", expect=202)
        wait_records(worker, kafka_bootstrap, topic, 5000)
        seen = copied(kafka_bootstrap, topic, 3000)
        assert seen == Counter({f"line {i}": 1 if i < 1000 else 2 for i in range(3000)})

        stop(worker, "copy")
        answer = put(worker, "DELETE", "/connectors/copy/offsets")
        assert "have been reset successfully" in answer["message"]
        assert offsets_in(kafka_bootstrap, own) == {key: None}
        put(worker, "PUT", "/connectors/copy/resume", expect=202)
        wait_records(worker, kafka_bootstrap, topic, 8000)
        seen = copied(kafka_bootstrap, topic, 3000)
        assert seen == Counter({f"line {i}": 2 if i < 1000 else 3 for i in range(3000)})
