"""The kit's pytest fixtures, registered through the ``pytest11`` entry point (see the package docs).

Every name starts with ``kconnect_``: a project that has fixtures of its own called ``kafka_broker`` or
``kafka_bootstrap`` (kconnect's own suite does) keeps them, and the kit's broker starts only for a test
that asks for it.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest

from kconnect_testkit.broker import KafkaBroker
from kconnect_testkit.worker import KconnectWorker

#: What the ``kconnect_worker`` fixture is: call it for a started worker (props and env optional).
WorkerFactory = Callable[..., KconnectWorker]


@pytest.fixture(scope="session")
def kconnect_kafka() -> Iterator[KafkaBroker]:
    """One real single-node Kafka broker (KRaft, from Apache Kafka's jars) for the whole session."""
    with KafkaBroker() as broker:
        yield broker


@pytest.fixture(scope="session")
def kconnect_bootstrap(kconnect_kafka: KafkaBroker) -> str:
    """The session broker's ``bootstrap.servers``."""
    return kconnect_kafka.bootstrap_servers


@pytest.fixture
def kconnect_topic(request: pytest.FixtureRequest) -> str:
    """A topic name no other test uses: the test's name and a random suffix."""
    stem = re.sub(r"[^a-zA-Z0-9._-]+", "-", request.node.name)[:80].strip("-")
    return f"{stem}-{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="session")
def kconnect_shared_worker(
    kconnect_bootstrap: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[KconnectWorker]:
    """One ``kconnect standalone`` worker for the whole session, with the default worker config: the
    tests that share it give each connector a name and topic of its own (``kconnect_topic``). Starting a
    worker and its executor takes seconds; sharing one keeps a suite quick."""
    worker = KconnectWorker(tmp_path_factory.mktemp("kconnect-worker"), kconnect_bootstrap).start()
    yield worker
    worker.stop()


@pytest.fixture
def kconnect_worker(kconnect_bootstrap: str, tmp_path: Path) -> Iterator[WorkerFactory]:
    """A factory of ``kconnect standalone`` workers on the session broker with the installed plugins:
    ``kconnect_worker(worker_props=None, env=None)`` starts one; every one stops when the test ends."""
    started: list[KconnectWorker] = []

    def start(
        worker_props: Mapping[str, str] | None = None, env: Mapping[str, str] | None = None
    ) -> KconnectWorker:
        worker = KconnectWorker(tmp_path, kconnect_bootstrap, worker_props, env)
        started.append(worker)
        return worker.start()

    yield start
    for worker in started:
        worker.stop()
