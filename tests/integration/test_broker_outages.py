"""A broker outage mid-stream, as an operator meets it: frozen (SIGSTOP), stopped and started again.

Each test runs FileStreamSource → Kafka → FileStreamSink on a real standalone worker and a broker of
its own (freezing the session's broker would stall every other test). Timeouts are shortened so the
outages stay short: ``request.timeout.ms`` 3 s, ``delivery.timeout.ms`` 30 s (Kafka Connect's
default is to retry without end). An outage longer than a request and shorter than the delivery
timeout must cost nothing: every line arrives and every task stays RUNNING. One longer than the
delivery timeout fails the source task with a trace that says so, and a KIP-745 restart resumes
with nothing lost.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kconnect_testkit.broker import KafkaBroker

from tests.integration.harness import wait_until
from tests.integration.test_distributed import create, group_props, wait_healthy
from tests.worker_process import WorkerProcess, count_lines, stop_all

pytestmark = pytest.mark.integration

LINES = 200_000
#: The source file grows by this many lines every 0.1 s, so the source is busy through the outage.
CHUNK = 1000
REQUEST_TIMEOUT_MS = 3000
DELIVERY_TIMEOUT_MS = 30_000
#: Client timeouts shortened for the test; the meaning is Kafka's.
SHORT_TIMEOUTS = {
    "producer.request.timeout.ms": str(REQUEST_TIMEOUT_MS),
    "producer.delivery.timeout.ms": str(DELIVERY_TIMEOUT_MS),
    "producer.retry.backoff.ms": "200",
    "consumer.request.timeout.ms": str(REQUEST_TIMEOUT_MS),
    "consumer.session.timeout.ms": "6000",
    "consumer.heartbeat.interval.ms": "1000",
}


@pytest.fixture(scope="module")
def broker() -> Iterator[Any]:
    """A broker of this module's own, with a data folder that survives a restart.

    It waits Kafka's default 3 s for members to join an empty group (the session broker does not,
    for speed): after a freeze every member's session has expired, and that wait is what lets the
    members that come back form one generation together, as on a production broker."""
    with KafkaBroker(initial_rebalance_delay_ms=3000) as own:
        yield own


class Pipeline:
    """A worker moving `LINES` lines, appended as it runs, from a file to a file through a fresh topic."""

    def __init__(self, workdir: Path, broker: Any) -> None:
        self.workdir, self.broker = workdir, broker
        self.source, self.sink = workdir / "in.txt", workdir / "out.txt"
        self.worker: WorkerProcess | None = None
        self.cluster: list[WorkerProcess] = []
        self._stop_writing = threading.Event()
        self._writer = threading.Thread(target=_append_lines, args=(self.source, self._stop_writing))

    def start(self, **worker_props: str) -> WorkerProcess:
        """Start a standalone worker with the short timeouts (`worker_props` override them) and both
        connectors."""
        self.source.touch()
        self.worker = worker = WorkerProcess(
            self.workdir,
            {
                "bootstrap.servers": self.broker.bootstrap_servers,
                "offset.storage.file.filename": str(self.workdir / "connect.offsets"),
                "offset.flush.interval.ms": "1000",
                **SHORT_TIMEOUTS,
                **worker_props,
            },
        ).start()
        self._create_connectors(worker)
        return worker

    def start_distributed(self, count: int, **worker_props: str) -> list[WorkerProcess]:
        """Start `count` distributed workers of a fresh group with the short timeouts (`worker_props`
        override them), and both connectors."""
        self.source.touch()
        props = {**group_props(self.broker.bootstrap_servers, "outage"), **SHORT_TIMEOUTS, **worker_props}
        workers = [WorkerProcess(self.workdir, props, mode="distributed") for _ in range(count)]
        self.cluster.extend(workers)
        for worker in workers:
            worker.start()
        wait_healthy(workers)
        self.worker = workers[0]
        self._create_connectors(workers[0])
        return workers

    def _create_connectors(self, worker: WorkerProcess) -> None:
        topic = f"outage-{time.monotonic_ns()}"
        create(
            worker,
            "source",
            {"connector.class": "FileStreamSource", "file": str(self.source), "topic": topic},
        )
        create(worker, "sink", {"connector.class": "FileStreamSink", "file": str(self.sink), "topics": topic})
        self._writer.start()

    def close(self) -> None:
        """Stop writing, thaw the broker if a test left it frozen, stop the worker."""
        self._stop_writing.set()
        if self._writer.is_alive():
            self._writer.join()
        self.broker.thaw()
        stop_all(self.cluster or ([self.worker] if self.worker else []))


@pytest.fixture
def pipeline(tmp_path: Path, broker: Any) -> Iterator[Pipeline]:
    """A `Pipeline` on this module's broker, closed after the test."""
    running = Pipeline(tmp_path, broker)
    try:
        yield running
    finally:
        running.close()


def _line(i: int) -> str:
    return f"line {i:07d} {'x' * 80}\n"


def _append_lines(source: Path, stop: threading.Event) -> None:
    """Append `LINES` lines, `CHUNK` every 0.1 s, as an application writing a log would."""
    with source.open("a") as out:
        for start in range(0, LINES, CHUNK):
            if stop.wait(0.1):
                return
            out.write("".join(_line(i) for i in range(start, start + CHUNK)))
            out.flush()


def _states(worker: WorkerProcess) -> dict[str, str]:
    states = {}
    for name in ("source", "sink"):
        body = worker.status(name)
        states[name] = body["connector"]["state"]
        states[f"{name}-0"] = body["tasks"][0]["state"]
    return states


def _assignments(worker: WorkerProcess) -> list[tuple[int, int]]:
    """(generation, delay in ms) of every assignment `worker` made as the group's leader, from its log."""
    found = re.findall(
        r"generation (\d+): connect-\S+ \(\S+\) starts .* delay (\d+) ms", worker.log_path.read_text()
    )
    return [(int(generation), int(delay)) for generation, delay in found]


def _wait_mid_stream(worker: WorkerProcess, sink: Path) -> None:
    wait_until("the first lines in the sink", lambda: count_lines(sink) >= 5000, worker, 120)
    assert count_lines(sink) < LINES // 2, "the stream was nearly done before the outage"


def _assert_every_line_arrived(worker: WorkerProcess, sink: Path, timeout: float) -> None:
    def complete() -> bool:
        return len(set(sink.read_text().splitlines())) >= LINES

    wait_until(f"all {LINES} distinct lines in the sink", complete, worker, timeout)
    expected = {_line(i).rstrip("\n") for i in range(LINES)}
    assert set(sink.read_text().splitlines()) == expected


def test_a_broker_frozen_longer_than_a_request_costs_nothing(pipeline: Pipeline, broker: Any) -> None:
    """Frozen for 4 request timeouts, under the delivery timeout: every line, tasks RUNNING throughout."""
    worker = pipeline.start()
    _wait_mid_stream(worker, pipeline.sink)
    broker.freeze()
    frozen_states = []
    for _ in range(4):
        time.sleep(REQUEST_TIMEOUT_MS / 1000)
        frozen_states.append(_states(worker))  # the REST API answers while the broker is frozen
    broker.thaw()
    assert all(set(s.values()) == {"RUNNING"} for s in frozen_states), frozen_states
    _assert_every_line_arrived(worker, pipeline.sink, 180)
    assert set(_states(worker).values()) == {"RUNNING"}
    assert "Kafka has not answered for" in worker.log_path.read_text(), "the wait is logged"


def test_a_broker_stopped_and_started_again_costs_nothing(pipeline: Pipeline, broker: Any) -> None:
    """The broker process is stopped and started on the same data: every line, tasks RUNNING."""
    worker = pipeline.start()
    _wait_mid_stream(worker, pipeline.sink)
    broker.restart()
    _assert_every_line_arrived(worker, pipeline.sink, 180)
    assert set(_states(worker).values()) == {"RUNNING"}


def test_a_broker_frozen_past_the_delivery_timeout_fails_the_source_and_a_restart_loses_nothing(
    pipeline: Pipeline, broker: Any
) -> None:
    """Past ``delivery.timeout.ms`` the source task FAILS with a trace saying so; a restart resumes."""
    worker = pipeline.start(**{"producer.delivery.timeout.ms": "8000"})
    _wait_mid_stream(worker, pipeline.sink)
    broker.freeze()
    try:
        wait_until(
            "the source task to fail",
            lambda: worker.status("source")["tasks"][0]["state"] == "FAILED",
            worker,
            60,
        )
        task = worker.status("source")["tasks"][0]
        assert worker.status("sink")["tasks"][0]["state"] == "RUNNING"
    finally:
        broker.thaw()
    assert "Kafka did not acknowledge" in task["trace"], task["trace"]
    assert "within delivery.timeout.ms=8000 ms: the broker was unreachable" in task["trace"]
    response = worker.request("POST", "/connectors/source/restart?includeTasks=true&onlyFailed=true")
    assert response.status_code == 202, response.text
    worker.wait_for_state("source", "RUNNING", tasks=1)
    _assert_every_line_arrived(worker, pipeline.sink, 180)
    assert set(_states(worker).values()) == {"RUNNING"}


def test_a_frozen_broker_costs_a_distributed_cluster_no_record_and_one_rebalance_per_worker(
    pipeline: Pipeline, broker: Any
) -> None:
    """Two distributed workers (offsets, configs and statuses in Kafka topics) ride out the freeze.

    The freeze outlasts the session, so the broker expels both members and they rejoin with new
    member ids. Each is known by its URL and gets its own work back in the rebalance it rejoins:
    the cluster does not sit out ``scheduled.rebalance.max.delay.ms`` (two minutes here) as Kafka's
    assignor would; see docs/reliability.md.
    """
    workers = pipeline.start_distributed(2, **{"scheduled.rebalance.max.delay.ms": "120000"})
    _wait_mid_stream(workers[0], pipeline.sink)
    wait_until("both tasks RUNNING", lambda: set(_states(workers[0]).values()) == {"RUNNING"}, workers[0])
    broker.freeze()
    for _ in range(4):
        time.sleep(REQUEST_TIMEOUT_MS / 1000)
        for worker in workers:
            assert worker.get("/connectors").status_code == 200  # every worker's REST API answers
    broker.thaw()
    # Held for the delay, the work would not finish the stream in time.
    _assert_every_line_arrived(workers[0], pipeline.sink, 60)
    for worker in workers:
        wait_until("tasks RUNNING", lambda w=worker: set(_states(w).values()) == {"RUNNING"}, worker, 60)
    last = max(_assignments(workers[0]) + _assignments(workers[1]))
    assert last[1] == 0, (
        f"with both workers back the leader still held work (generation {last[0]}, delay {last[1]} ms)"
    )
