"""Dump the internal topics Java Kafka Connect (distributed) writes, as the literals of the storage tests.

Regenerates ``tests/unit/kconnect/storage/java_records.py``'s data: starts a broker
(`kafka_broker.KafkaBroker`) and one ``ConnectDistributed`` worker from the cached Kafka jars, runs
the lifecycle the tests expect through REST (a FileStreamSource ``gold-src`` created, paused,
restarted with includeTasks, resumed, stopped; a FileStreamSink ``gold-gone`` with two tasks,
created then deleted), and prints every record of the config, status and offsets topics as
``(partition, key, value)``. File paths (so offsets' partitions), timestamps, generations, ports
and the session key differ run to run; the shapes and bytes of everything else do not.

    python scripts/java_internal_topics.py > /tmp/java_records.txt
"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import kafka_broker

TOPICS = {"config": "gold-configs", "offset": "gold-offsets", "status": "gold-status"}
SOURCE = "org.apache.kafka.connect.file.FileStreamSourceConnector"
SINK = "org.apache.kafka.connect.file.FileStreamSinkConnector"


def rest(port: int, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data, method=method)
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=30) as response:
        text = response.read()
    return json.loads(text) if text else None


def wait_for_rest(port: int, worker: subprocess.Popen[bytes], timeout: float = 300.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if worker.poll() is not None:
            raise SystemExit(f"Java Connect exited with {worker.returncode}")
        try:
            rest(port, "GET", "/")
            return
        except OSError:
            time.sleep(1)
    raise SystemExit("Java Connect did not answer within 300 s")


def lifecycle(port: int, folder: Path) -> None:
    source_file = folder / "in.txt"
    source_file.write_text("".join(f"line {i}\n" for i in range(1, 6)))
    create = {"connector.class": SOURCE, "tasks.max": "1", "file": str(source_file), "topic": "gold-data"}
    rest(port, "POST", "/connectors", {"name": "gold-src", "config": create})
    sink = {"connector.class": SINK, "tasks.max": "2", "file": str(folder / "out.txt"), "topics": "gold-data"}
    rest(port, "POST", "/connectors", {"name": "gold-gone", "config": sink})
    time.sleep(10)  # tasks start, the source commits its offset (offset.flush.interval.ms=1000)
    for method, path in (
        ("PUT", "/connectors/gold-src/pause"),
        ("POST", "/connectors/gold-src/restart?includeTasks=true&onlyFailed=false"),
        ("PUT", "/connectors/gold-src/resume"),
        ("PUT", "/connectors/gold-src/stop"),
        ("DELETE", "/connectors/gold-gone"),
    ):
        rest(port, method, path)
        time.sleep(3)


async def dump(bootstrap: str, topic: str) -> list[tuple[int, bytes, bytes | None]]:
    from aiokafka import AIOKafkaConsumer, TopicPartition

    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    await consumer.start()
    try:
        await consumer._client._wait_on_metadata(topic)
        partitions = [TopicPartition(topic, p) for p in sorted(consumer.partitions_for_topic(topic) or ())]
        consumer.assign(partitions)
        await consumer.seek_to_beginning(*partitions)
        ends = await consumer.end_offsets(partitions)
        records: list[tuple[int, bytes, bytes | None]] = []
        while [tp for tp in partitions if await consumer.position(tp) < ends[tp]]:
            for batch in (await consumer.getmany(timeout_ms=1000)).values():
                records += [(r.partition, r.key, r.value) for r in batch]
        return records
    finally:
        await consumer.stop()


def main() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    with kafka_broker.KafkaBroker() as broker, tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        props = folder / "worker.properties"
        props.write_text(
            "\n".join(
                [
                    f"bootstrap.servers={broker.bootstrap_servers}",
                    "group.id=gold-cluster",
                    "key.converter=org.apache.kafka.connect.json.JsonConverter",
                    "value.converter=org.apache.kafka.connect.json.JsonConverter",
                    *(f"{kind}.storage.topic={name}" for kind, name in TOPICS.items()),
                    *(f"{kind}.storage.replication.factor=1" for kind in TOPICS),
                    "offset.flush.interval.ms=1000",
                    f"listeners=http://127.0.0.1:{port}",
                ]
            )
            + "\n"
        )
        command = kafka_broker.java_connect_command(props)
        main_class = command.index(kafka_broker.CONNECT_STANDALONE)
        command[main_class] = "org.apache.kafka.connect.cli.ConnectDistributed"
        worker = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_for_rest(port, worker)
            lifecycle(port, folder)
        finally:
            worker.terminate()
            worker.wait(60)
        for name in TOPICS.values():
            print(f"# {name}")
            for record in asyncio.run(dump(broker.bootstrap_servers, name)):
                print(f"    {record!r},")


if __name__ == "__main__":
    main()
