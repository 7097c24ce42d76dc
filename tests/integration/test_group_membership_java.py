"""A Java Kafka Connect 4.3.1 worker and kconnect members in one ``connect`` group.

First the Java worker (``ConnectDistributed`` from the cached jars) leads: it must read our
members' metadata, and we the assignments its IncrementalCooperativeAssignor sends, so its
connector's tasks end up spread over all three workers. Then it stops, a kconnect member leads
and takes its work, and when it comes back it reads the share our leader gives it.
"""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kconnect.distributed.assignor import ConfiguredWork
from kconnect.distributed.group_member import GroupMember
from kconnect.distributed.membership import AssignmentReceived, MembershipEvent
from kconnect.distributed.protocol import EMPTY, ConnectorsAndTasks
from kconnect.worker_config import GroupConfig

from tests.integration.harness import end_offset
from tests.java_connect import JavaConnectWorker

pytestmark = pytest.mark.integration

SINK = "org.apache.kafka.connect.file.FileStreamSinkConnector"
TASKS = 4


def task_states(worker: JavaConnectWorker) -> list[dict[str, Any]]:
    """The Java worker's task statuses of ``java-sink`` (none while it is not yet known)."""
    response = worker.request("GET", "/connectors/java-sink/status")
    if response.status_code == 404:
        return []
    response.raise_for_status()
    return list(response.json()["tasks"])


def java_props(bootstrap: str, group_id: str) -> dict[str, str]:
    """A Java worker of group `group_id` (internal topics ``<group>-configs`` ...), quick to rebalance."""
    return {
        "bootstrap.servers": bootstrap,
        "group.id": group_id,
        "key.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "config.storage.topic": f"{group_id}-configs",
        "offset.storage.topic": f"{group_id}-offsets",
        "status.storage.topic": f"{group_id}-status",
        **{f"{kind}.storage.replication.factor": "1" for kind in ("config", "offset", "status")},
        "heartbeat.interval.ms": "500",
        "session.timeout.ms": "6000",
        "scheduled.rebalance.max.delay.ms": "3000",
    }


@pytest.fixture
def group_id() -> str:
    return f"connect-java-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def java_worker(tmp_path: Path, kafka_bootstrap: str, group_id: str) -> Iterator[JavaConnectWorker]:
    worker = JavaConnectWorker(tmp_path, java_props(kafka_bootstrap, group_id)).start()
    yield worker
    worker.stop()


async def test_java_and_kconnect_workers_share_one_group_each_reading_the_others_assignments(
    java_worker: JavaConnectWorker, kafka_bootstrap: str, tmp_path: Path, group_id: str
) -> None:
    java_worker.wait_ready()
    config = {
        "connector.class": SINK,
        "tasks.max": str(TASKS),
        "topics": "java-sink-in",
        "file": str(tmp_path / "out"),
    }
    assert java_worker.request("PUT", "/connectors/java-sink/config", config).status_code == 201
    deadline = time.monotonic() + 60
    while len(task_states(java_worker)) < TASKS:
        assert time.monotonic() < deadline, "Java did not start the connector's tasks"
        await asyncio.sleep(0.5)
    # Java's ClusterConfigState offset: the config topic's end offset once everything is read.
    offset = await end_offset(kafka_bootstrap, f"{group_id}-configs")

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
                group_id=group_id,
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
            assert java_worker.process is not None and java_worker.process.poll() is None, (
                java_worker.log.read_text()[-3000:]
            )
            assert time.monotonic() < deadline, (
                f"Java got no task from the kconnect leader:\n{java_worker.log.read_text()[-3000:]}"
            )
            await asyncio.sleep(0.5)
        assert "SchemaException" not in java_worker.log.read_text(errors="replace")
    finally:
        await asyncio.gather(*(m.leave() for m in members))
