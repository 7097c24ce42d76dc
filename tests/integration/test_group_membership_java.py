"""A Java Kafka Connect 4.3.1 worker and kconnect members in one ``connect`` group.

First the Java worker (``ConnectDistributed`` from the cached jars) leads: it must read our
members' metadata, and we the assignments its IncrementalCooperativeAssignor sends, so its
connector's tasks end up spread over all three workers. Then it stops, a kconnect member leads
and takes its work, and when it comes back it reads the share our leader gives it.
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer, TopicPartition
from kconnect.distributed.assignor import ConfiguredWork
from kconnect.distributed.group_member import GroupMember
from kconnect.distributed.membership import AssignmentReceived, MembershipEvent
from kconnect.distributed.protocol import EMPTY, ConnectorsAndTasks
from kconnect.worker_config import GroupConfig

from tests.harness import kafka_broker_script

pytestmark = pytest.mark.integration

SINK = "org.apache.kafka.connect.file.FileStreamSinkConnector"
TASKS = 4


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def rest(port: int, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data, method=method)
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=30) as response:
        text = response.read()
    return json.loads(text) if text else None


def task_states(port: int) -> list[dict[str, Any]]:
    """The Java worker's task statuses of ``java-sink`` (none while it is not yet known)."""
    try:
        return list(rest(port, "GET", "/connectors/java-sink/status")["tasks"])
    except urllib.error.HTTPError as error:
        if error.code == 404:
            return []
        raise


class JavaWorker:
    """One Java ``ConnectDistributed`` worker in group `group_id`; its INFO log goes to a file."""

    def __init__(self, folder: Path, bootstrap: str, group_id: str) -> None:
        self.port = free_port()
        self.log = folder / "java-connect.log"
        self.config_topic = f"{group_id}-configs"
        props = folder / "java-worker.properties"
        props.write_text(
            "\n".join(
                [
                    f"bootstrap.servers={bootstrap}",
                    f"group.id={group_id}",
                    "key.converter=org.apache.kafka.connect.json.JsonConverter",
                    "value.converter=org.apache.kafka.connect.json.JsonConverter",
                    f"config.storage.topic={self.config_topic}",
                    f"offset.storage.topic={group_id}-offsets",
                    f"status.storage.topic={group_id}-status",
                    *(f"{kind}.storage.replication.factor=1" for kind in ("config", "offset", "status")),
                    "heartbeat.interval.ms=500",
                    "session.timeout.ms=6000",
                    "scheduled.rebalance.max.delay.ms=3000",
                    f"listeners=http://127.0.0.1:{self.port}",
                ]
            )
            + "\n"
        )
        self.command = kafka_broker_script.java_connect_command(props, log_level="INFO")
        self.command[self.command.index(kafka_broker_script._CONNECT_STANDALONE)] = (
            "org.apache.kafka.connect.cli.ConnectDistributed"
        )
        self.start()

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(self.command, stdout=out, stderr=subprocess.STDOUT)

    def wait_for_rest(self, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process.poll() is None, f"Java Connect exited:\n{self.log.read_text()[-3000:]}"
            try:
                rest(self.port, "GET", "/")
                return
            except OSError:
                time.sleep(0.5)
        raise AssertionError(f"Java Connect did not answer:\n{self.log.read_text()[-3000:]}")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def java_worker(tmp_path: Path, kafka_bootstrap: str) -> Iterator[JavaWorker]:
    worker = JavaWorker(tmp_path, kafka_bootstrap, f"connect-java-{uuid.uuid4().hex[:8]}")
    yield worker
    worker.stop()


async def config_end_offset(bootstrap: str, topic: str) -> int:
    """Java's ClusterConfigState offset: the config topic's end offset once everything is read."""
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap)
    await consumer.start()
    try:
        partition = TopicPartition(topic, 0)
        return int((await consumer.end_offsets([partition]))[partition])
    finally:
        await consumer.stop()


async def test_java_and_kconnect_workers_share_one_group_each_reading_the_others_assignments(
    java_worker: JavaWorker, kafka_bootstrap: str, tmp_path: Path
) -> None:
    java_worker.wait_for_rest()
    config = {
        "connector.class": SINK,
        "tasks.max": str(TASKS),
        "topics": "java-sink-in",
        "file": str(tmp_path / "out"),
    }
    rest(java_worker.port, "PUT", "/connectors/java-sink/config", config)
    deadline = time.monotonic() + 60
    while len(task_states(java_worker.port)) < TASKS:
        assert time.monotonic() < deadline, "Java did not start the connector's tasks"
        await asyncio.sleep(0.5)
    offset = await config_end_offset(kafka_bootstrap, java_worker.config_topic)

    received: dict[str, list[AssignmentReceived]] = {"k1": [], "k2": []}
    running: dict[str, ConnectorsAndTasks] = {"k1": EMPTY, "k2": EMPTY}
    members = []
    for name in received:

        async def on_event(event: MembershipEvent, name: str = name) -> None:
            if isinstance(event, AssignmentReceived):
                received[name].append(event)
                running[name] = event.assigned

        member = GroupMember(
            bootstrap_servers=kafka_bootstrap,
            config=GroupConfig(
                group_id=java_worker.config_topic.removesuffix("-configs"),
                heartbeat_interval_ms=500,
                session_timeout_ms=6000,
                scheduled_rebalance_max_delay_ms=3000,
            ),
            url=f"http://{name}:8083",
            configured=lambda: ConfiguredWork(offset, {"java-sink": TASKS}),
            on_event=on_event,
        )
        await member.start()
        members.append(member)
    try:
        deadline = time.monotonic() + 60
        while not (running["k1"].tasks and running["k2"].tasks):
            assert time.monotonic() < deadline, f"no tasks reached kconnect members: {received}"
            await asyncio.sleep(0.2)
        last = [received[name][-1] for name in received]
        assert all(not a.failed and not a.is_leader for a in last), last
        assert {a.leader_url for a in last} == {f"http://127.0.0.1:{java_worker.port}/"}
        assert not set(running["k1"].tasks) & set(running["k2"].tasks)
        assert {t.connector for name in running for t in running[name].tasks} == {"java-sink"}
        assert "SchemaException" not in java_worker.log.read_text(errors="replace")

        # The Java worker stops: a kconnect member leads; the members take all of the Java connector's work.
        java_worker.stop()
        deadline = time.monotonic() + 60
        while sorted(t.task for name in running for t in running[name].tasks) != list(range(TASKS)):
            assert time.monotonic() < deadline, (
                f"kconnect members did not take the Java worker's tasks: {running}"
            )
            await asyncio.sleep(0.2)
        assert any(received[name][-1].is_leader for name in received)

        # It comes back: the kconnect leader gives it a share, which Java reads from our bytes.
        java_worker.log.write_text("")
        java_worker.start()
        deadline = time.monotonic() + 120
        given = re.compile(
            r"got assignment: Assignment\{error=0, leader='[^']*', leaderUrl='http://k[12]:8083'.*taskIds=\[java-sink-\d"
        )
        while not given.search(java_worker.log.read_text(errors="replace")):
            assert java_worker.process.poll() is None, java_worker.log.read_text()[-3000:]
            assert time.monotonic() < deadline, (
                f"Java got no task from the kconnect leader:\n{java_worker.log.read_text()[-3000:]}"
            )
            await asyncio.sleep(0.5)
        assert "SchemaException" not in java_worker.log.read_text(errors="replace")
    finally:
        await asyncio.gather(*(m.leave() for m in members))
