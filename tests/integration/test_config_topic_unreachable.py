"""The config topic unreachable under a running distributed cluster: Kafka's ACLs deny it.

A broker of this module's own runs Kafka's StandardAuthorizer; two workers of one group connect as
the SCRAM user ``connect``. With a connector running, the test denies ``connect`` the Read and
Write operations on the config topic (every other topic is untouched), as an operator's ACL change
or a misconfigured principal would. Then every write a user can make through either worker (the
leader, and a follower that forwards to it) must answer 500 in Kafka's shape with Kafka's text and
the broker's reason; every read must keep answering from what the workers read before; and once the
ACLs are gone, the config topic must hold exactly the records it held before (no refused write
lands later), every worker must show the connector as it was, and writes must work again (each
worker reads the topic again: a refused fetch does not end its reader).

Both tests run on one pair of workers (`workers`, started once for the module), each test from a
cluster without connectors (`cluster` deletes what a test made). Their sessions outlast the freeze
of the second test, so the workers stay in their group and only its write meets the outage; the
first test touches only the config topic's ACLs, which group membership does not need.

The second test freezes the broker (SIGSTOP: its partitions' leader stops answering, as in a long
pause or a partition) while a connector is created through a follower: the create answers 500
after Kafka's 30 s with the reason, every read answers throughout, and after the thaw the create
never lands (a worker reads the topic to the end before it writes, so the frozen broker was sent
nothing to take late).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from aiokafka import AIOKafkaConsumer
from aiokafka.structs import TopicPartition
from kconnect_testkit.broker import KafkaBroker

from tests.integration.test_distributed import create, group_props, running_workers
from tests.worker_process import WorkerProcess

pytestmark = pytest.mark.integration

USER, PASSWORD = "connect", "connect-secret"
SCRAM_JAAS = (
    "org.apache.kafka.common.security.scram.ScramLoginModule required "
    f'username="{USER}" password="{PASSWORD}";'
)
REFUSED = "TopicAuthorizationFailedError"
DENIED = ["--operation", "Read", "--operation", "Write"]


@pytest.fixture(scope="module")
def broker() -> Iterator[Any]:
    """A broker with a SCRAM listener for ``connect`` and the StandardAuthorizer (open until an ACL
    says otherwise)."""
    with KafkaBroker(scram_users={USER: PASSWORD}, authorizer=True) as own:
        yield own


def worker_props(broker: Any) -> dict[str, str]:
    """A fresh group's worker file: the worker's clients and its tasks' all authenticate as ``connect``;
    sessions of 90 s, longer than the second test's freeze."""
    scram = {
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.jaas.config": SCRAM_JAAS,
    }
    return group_props(
        broker.sasl_bootstrap_servers,
        "kconnect-acl",
        **scram,
        **{f"producer.{key}": value for key, value in scram.items()},
        **{f"consumer.{key}": value for key, value in scram.items()},
        **{"session.timeout.ms": "90000", "heartbeat.interval.ms": "3000"},
    )


@dataclass
class Group:
    """The module's two workers and their worker file."""

    workers: list[WorkerProcess]
    props: dict[str, str]


@pytest.fixture(scope="module")
def workers(broker: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Group]:
    """Two workers of one fresh group on the module's broker, shared by its tests."""
    props = worker_props(broker)
    with running_workers(tmp_path_factory.mktemp("config-topic"), props, 2) as started:
        yield Group(started, props)


@pytest.fixture
def cluster(workers: Group) -> Iterator[Group]:
    """The module's workers; every connector the test made is deleted when it ends."""
    yield workers
    leader = workers.workers[0]
    for name in leader.get("/connectors").json():
        response = leader.request("DELETE", f"/connectors/{name}")
        assert response.status_code == 204, response.text
    for worker in workers.workers:
        worker.wait_for("no connector left", lambda w=worker: w.get("/connectors").json() == [])


def deny_config_topic(broker: Any, topic: str) -> None:
    """Deny ``connect`` Read and Write on `topic`; allow it the rest (Describe: the topic still exists).

    The ALLOW goes first: a topic with any ACL is closed to a principal no ACL allows."""
    broker.acls("--add", "--allow-principal", f"User:{USER}", "--operation", "All", *acl_topic(topic))
    broker.acls("--add", "--deny-principal", f"User:{USER}", *DENIED, *acl_topic(topic))


def allow_config_topic(broker: Any, topic: str) -> None:
    """Remove the ACLs of `deny_config_topic`, the DENY first: the topic is open again."""
    broker.acls("--remove", "--force", "--deny-principal", f"User:{USER}", *DENIED, *acl_topic(topic))
    broker.acls(
        "--remove", "--force", "--allow-principal", f"User:{USER}", "--operation", "All", *acl_topic(topic)
    )


def acl_topic(topic: str) -> list[str]:
    """kafka-acls arguments naming exactly `topic`."""
    return ["--topic", topic, "--resource-pattern-type", "literal"]


async def topic_records(bootstrap: str, topic: str) -> list[tuple[bytes | None, bytes | None]]:
    """Every record of `topic` (one partition) as (key, value), read to its end as the super user."""
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap, auto_offset_reset="earliest", enable_auto_commit=False
    )
    await consumer.start()
    try:
        partition = TopicPartition(topic, 0)
        consumer.assign([partition])
        end = (await consumer.end_offsets([partition]))[partition]
        records: list[tuple[bytes | None, bytes | None]] = []
        while await consumer.position(partition) < end:
            batch = await asyncio.wait_for(consumer.getmany(partition, timeout_ms=500), 30)
            records += [(r.key, r.value) for r in batch.get(partition, [])]
        return records
    finally:
        await consumer.stop()


def refused_writes(source_file: Path, topic: str) -> list[tuple[str, str, Any, str]]:
    """Each write a user can make, as (method, path, body, the start of Kafka's message)."""
    changed = {"connector.class": "FileStreamSource", "file": str(source_file), "topic": f"{topic}-changed"}
    new = {"connector.class": "FileStreamSource", "file": str(source_file), "topic": topic}
    return [
        (
            "POST",
            "/connectors",
            {"name": "new", "config": new},
            "Error writing connector configuration to Kafka: ",
        ),
        ("PUT", "/connectors/new/config", new, "Error writing connector configuration to Kafka: "),
        ("PUT", "/connectors/kept/config", changed, "Error writing connector configuration to Kafka: "),
        (
            "PATCH",
            "/connectors/kept/config",
            {"topic": f"{topic}-patched"},
            "Error writing connector configuration to Kafka: ",
        ),
        ("PUT", "/connectors/kept/pause", None, "Error writing target state to Kafka: "),
        ("PUT", "/connectors/kept/resume", None, "Error writing target state to Kafka: "),
        ("PUT", "/connectors/kept/stop", None, "Error writing task configurations to Kafka: "),
        (
            "POST",
            "/connectors/kept/restart",
            None,
            "Error writing RestartRequest{connectorName='kept', onlyFailed=false, includeTasks=false} "
            "to Kafka: ",
        ),
        ("DELETE", "/connectors/kept", None, "Error removing connector configuration from Kafka: "),
    ]


def test_writes_to_a_config_topic_that_refuses_them_answer_500_reads_go_on_and_nothing_lands_later(
    broker: Any, cluster: Group, tmp_path: Path
) -> None:
    config_topic = cluster.props["config.storage.topic"]
    source_file = tmp_path / "in.txt"
    source_file.write_text("a line\n", encoding="utf-8")
    config = {"connector.class": "FileStreamSource", "file": str(source_file), "topic": "acl-lines"}
    workers = cluster.workers
    create(workers[0], "kept", config)
    for worker in workers:
        worker.wait_for_state("kept", "RUNNING", tasks=1, timeout=120)
    before = asyncio.run(topic_records(broker.bootstrap_servers, config_topic))

    deny_config_topic(broker, config_topic)
    try:
        for worker in workers:
            for method, path, body, message in refused_writes(source_file, "acl-lines"):
                response = worker.request(method, path, body)
                assert response.status_code == 500, (worker.url, method, path, response.text)
                answer = response.json()
                assert answer["error_code"] == 500, answer
                assert answer["message"].startswith(message), (method, path, answer)
                assert config_topic in answer["message"] and REFUSED in answer["message"], answer
            assert_unchanged(worker, config)
    finally:
        allow_config_topic(broker, config_topic)

    assert asyncio.run(topic_records(broker.bootstrap_servers, config_topic)) == before
    for worker in workers:
        assert_unchanged(worker, config)
    response = workers[1].request("PUT", "/connectors/kept/pause")
    assert response.status_code == 202, response.text
    for worker in workers:
        worker.wait_for_state("kept", "PAUSED", tasks=1)


def assert_unchanged(worker: WorkerProcess, config: dict[str, str]) -> None:
    """The worker still answers reads, and shows only ``kept``, RUNNING, with its first config."""
    assert worker.get("/connectors").json() == ["kept"]
    assert worker.get("/connectors/kept/config").json() == {**config, "name": "kept"}
    status = worker.status("kept")
    states = [status["connector"]["state"], *(t["state"] for t in status["tasks"])]
    assert states == ["RUNNING", "RUNNING"], (status, worker.log_tail())
    assert worker.get("/connectors/kept/tasks").status_code == 200
    assert worker.get("/connectors/new").status_code == 404


def test_a_write_while_the_broker_is_frozen_answers_500_reads_go_on_and_it_never_lands_later(
    broker: Any, cluster: Group, tmp_path: Path
) -> None:
    source_file = tmp_path / "in.txt"
    source_file.write_text("a line\n", encoding="utf-8")
    config = {"connector.class": "FileStreamSource", "file": str(source_file), "topic": "frozen-lines"}
    new = {**config, "topic": "frozen-new"}
    workers = cluster.workers
    create(workers[0], "kept", config)
    for worker in workers:
        worker.wait_for_state("kept", "RUNNING", tasks=1, timeout=120)
    config_topic = cluster.props["config.storage.topic"]
    before = asyncio.run(topic_records(broker.bootstrap_servers, config_topic))

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        broker.freeze()
        try:
            started = time.monotonic()
            body = {"name": "new", "config": new}  # longer than the worker's 30 s wait for Kafka
            write = pool.submit(httpx.post, f"{workers[1].url}/connectors", json=body, timeout=120)
            while not write.done():  # every read answers, and at once, while the write waits
                for worker in workers:
                    assert_unchanged(worker, config)
                time.sleep(1)
            response, took = write.result(), time.monotonic() - started
        finally:
            broker.thaw()

    assert response.status_code == 500, response.text
    message = response.json()["message"]
    assert message.startswith("Error writing connector configuration to Kafka: "), message
    assert config_topic in message and "not read to the end within 30 s" in message, message
    assert took < 60, took
    # Nothing was sent to the frozen broker, so nothing lands after the thaw: a write made now
    # is the only record after `before`, and once every worker has read it none shows "new".
    pause(workers[0], "kept")
    for worker in workers:
        worker.wait_for_state("kept", "PAUSED", tasks=1)
        assert worker.get("/connectors").json() == ["kept"]
        assert worker.get("/connectors/new").status_code == 404
    after = asyncio.run(topic_records(broker.bootstrap_servers, config_topic))
    assert after[: len(before)] == before
    assert [key for key, _ in after[len(before) :]] == [b"target-state-kept"]


def pause(worker: WorkerProcess, name: str) -> None:
    """Pause a connector, retrying the 409 a rebalance after the thaw can cause (Kafka's advice)."""
    deadline = time.monotonic() + 60
    while (response := worker.request("PUT", f"/connectors/{name}/pause")).status_code == 409:
        assert time.monotonic() < deadline, response.text
        time.sleep(0.5)
    assert response.status_code == 202, response.text
