"""Stalls that show (``task.stall.timeout.ms``, kconnect's extension) on a real worker, broker and Spark.

A held task of `tests.connectors` (installed into the worker as a third-party plugin) blocks one
call while a file exists: a source's ``poll()`` or ``commit()``, a sink's ``put()`` or
``pre_commit()``. Each stall must show within the connector's timeout (2 s; the worker's default is
ten minutes, so the connector key is what applies) in the three places an operator looks: the task's
status (still RUNNING, Kafka's fields, the reason in ``trace``), ``GET /metrics`` and a WARN line in
the worker's log; and each must clear (trace gone, gauge 0, an INFO line) once the call returns. An
idle source (polls that return nothing) is never reported. The standalone tests share one worker;
the distributed test runs one worker of its own group, whose statuses travel through the status
topic.
"""

from __future__ import annotations

import asyncio
import calendar
import json
import re
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer
from prometheus_client.parser import text_string_to_metric_families

from tests.connectors import HOLD_FILE, HOLD_IN
from tests.integration.harness import produce_records, wait_until
from tests.integration.test_distributed import group_props, wait_healthy
from tests.integration.test_task_failures import task_status
from tests.plugin_package import install_connectors, plugin_env
from tests.worker_process import WorkerProcess

pytestmark = pytest.mark.integration

#: The connectors' stall timeout.
TIMEOUT_S = 2.0
STALL = {"task.stall.timeout.ms": str(int(TIMEOUT_S * 1000))}
#: How late after the timeout a stall may show on a loaded machine (checks every 0.5 s, one status write).
LATE_S = 6.0
STRINGS = {
    "key.converter": "org.apache.kafka.connect.storage.StringConverter",
    "value.converter": "org.apache.kafka.connect.storage.StringConverter",
}
TRACE = re.compile(r"kconnect: stalled since (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ): (.*) for ([0-9.]+) s$")


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory, kafka_bootstrap: str) -> Iterator[WorkerProcess]:
    """One standalone worker with the held connectors and the metrics extension; a ten-minute default."""
    workdir = tmp_path_factory.mktemp("stalls")
    props = {
        "bootstrap.servers": kafka_bootstrap,
        "offset.storage.file.filename": str(workdir / "connect.offsets"),
        "offset.flush.interval.ms": "500",
        "rest.extension.classes": "PrometheusMetrics",
        "task.stall.timeout.ms": "600000",
    }
    env = plugin_env(install_connectors(workdir / "plugins"))
    started = WorkerProcess(workdir, props, env=env).start()
    yield started
    started.stop()


def stalled_gauges(worker: WorkerProcess, name: str) -> tuple[float | None, float | None, float | None]:
    """kconnect_task_stalled and kconnect_task_stalled_seconds of task 0, and the worker's count."""
    response = worker.get("/metrics")
    assert response.status_code == 200, response.text
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(response.text)
        for s in family.samples
    }
    task = (("connector", name), ("task", "0"))
    return (
        samples.get(("kconnect_task_stalled", task)),
        samples.get(("kconnect_task_stalled_seconds", task)),
        samples.get(("kconnect_worker_stalled_task_count", ())),
    )


def log_lines(worker: WorkerProcess, needle: str) -> list[str]:
    return [line for line in worker.log_path.read_text(errors="replace").splitlines() if needle in line]


def assert_stall_shows_then_clears(
    worker: WorkerProcess, name: str, reason: str, hold: Path, metrics: bool = True
) -> None:
    """From RUNNING (the hold file present): the stall shows within the timeout in status, metrics and
    log; deleting the hold file clears it in each."""
    worker.wait_for_state(name, "RUNNING", tasks=1)
    running_at = time.monotonic()
    wait_until(f"{name}-0's stall in its status", lambda: "trace" in task_status(worker, name), worker, 60)
    shown_after = time.monotonic() - running_at
    status = task_status(worker, name)
    assert status["state"] == "RUNNING", status
    assert set(status) == {"id", "state", "worker_id", "trace"}, "Kafka's fields, nothing else"
    found = TRACE.match(status["trace"])
    assert found is not None, status["trace"]
    assert found.group(2) == reason
    assert float(found.group(3)) >= TIMEOUT_S, "never reported before the timeout"
    assert shown_after < TIMEOUT_S + LATE_S, f"shown {shown_after:.1f} s after RUNNING"
    since = calendar.timegm(time.strptime(found.group(1), "%Y-%m-%dT%H:%M:%SZ"))
    assert time.time() - 120 < since <= time.time(), f"stalled since {found.group(1)}: a time of this run"
    warned = log_lines(worker, f"Task {name}-0 is stalled: {reason} for ")
    assert warned and " WARNING " in warned[0], warned
    if metrics:
        stalled, seconds, count = stalled_gauges(worker, name)
        assert (
            stalled == 1 and seconds is not None and seconds >= TIMEOUT_S and count is not None and count >= 1
        )

    hold.unlink()
    wait_until(f"{name}-0's stall to clear", lambda: "trace" not in task_status(worker, name), worker, 30)
    assert task_status(worker, name)["state"] == "RUNNING"
    moving = log_lines(worker, f"Task {name}-0 moves again after ")
    assert moving and " INFO " in moving[0], moving
    if metrics:
        wait_until(f"{name}-0's gauge back to 0", lambda: stalled_gauges(worker, name)[0] == 0, worker, 10)
        assert stalled_gauges(worker, name)[1] == 0


def runs(worker: WorkerProcess, name: str) -> set[str]:
    """The generations of task 0 of `name` that the worker logged as started."""
    pattern = rf"Task {re.escape(name)}-0 \(generation (\d+)\) runs"
    return set(re.findall(pattern, worker.log_path.read_text(errors="replace")))


def create(worker: WorkerProcess, name: str, config: dict[str, str]) -> None:
    response = worker.request("POST", "/connectors", {"name": name, "config": config})
    assert response.status_code == 201, response.text


@pytest.mark.parametrize(
    ("connector", "held", "reason"),
    [
        ("HeldSource", "poll", "poll() has not returned"),
        ("HeldSource", "commit", "commit() has not returned"),
        ("HeldSink", "put", "put() of 1 record has not returned"),
        ("HeldSink", "pre_commit", "pre_commit() has not returned"),
    ],
)
def test_a_stalled_call_shows_in_status_metrics_and_log_and_clears_when_it_returns(
    worker: WorkerProcess,
    tmp_path: Path,
    unique_topic: str,
    kafka_bootstrap: str,
    connector: str,
    held: str,
    reason: str,
) -> None:
    name = f"{held}-{uuid.uuid4().hex[:6]}"
    hold = tmp_path / "hold"
    hold.touch()
    config = {"connector.class": connector, HOLD_FILE: str(hold), HOLD_IN: held, **STALL, **STRINGS}
    config |= {"topic": unique_topic} if connector == "HeldSource" else {"topics": unique_topic}
    create(worker, name, config)
    if held == "put":
        asyncio.run(produce_records(kafka_bootstrap, unique_topic, [(b"one", [])]))
    try:
        assert_stall_shows_then_clears(worker, name, reason, hold)
        assert log_lines(worker, f"of task {name}-0 scheduled") == [], "no restart unless asked"
    finally:
        hold.unlink(missing_ok=True)
        worker.request("DELETE", f"/connectors/{name}")


def test_a_stalled_task_is_restarted_automatically_when_its_connector_asks(
    worker: WorkerProcess, tmp_path: Path, unique_topic: str
) -> None:
    """``task.stall.restart=true`` with the automatic restarts on: each stall schedules a restart on
    their schedule (0 ms, then 4 s with a 2 s unit), and a restarted run that stalls again has not
    settled, so the count goes on; once the file is gone the task runs on."""
    name = f"restart-{uuid.uuid4().hex[:6]}"
    hold = tmp_path / "hold"
    hold.touch()
    config = {"connector.class": "HeldSource", "topic": unique_topic, HOLD_FILE: str(hold), HOLD_IN: "poll"}
    restarts = {
        "auto.restart.enable": "true",
        "auto.restart.backoff.ms": "2000",
        "task.stall.restart": "true",
    }
    create(worker, name, {**config, **STALL, **restarts})
    try:
        second = f"Automatic restart 2 of task {name}-0: restarting it now"
        wait_until("the second automatic restart", lambda: log_lines(worker, second) != [], worker, 90)
        scheduled = log_lines(worker, f"of task {name}-0 scheduled in ")
        assert "poll() has not returned for" in scheduled[0], scheduled
        assert f"Automatic restart 2 (of unlimited) of task {name}-0 scheduled in 4000 ms" in scheduled[1]
        assert (
            f"Automatic restart 1 (of unlimited) of task {name}-0 scheduled in 0 ms: kconnect: stalled"
            in (scheduled[0])
        )
        wait_until("a third run of the task", lambda: len(runs(worker, name)) >= 3, worker, 60)
        hold.unlink()
        wait_until(f"{name}-0 moving", lambda: "trace" not in task_status(worker, name), worker, 60)
        assert task_status(worker, name)["state"] == "RUNNING"
    finally:
        hold.unlink(missing_ok=True)
        worker.request("DELETE", f"/connectors/{name}")


def test_an_idle_source_is_never_reported(worker: WorkerProcess) -> None:
    name = f"idle-{uuid.uuid4().hex[:6]}"
    create(worker, name, {"connector.class": "HeldSource", "task.stall.timeout.ms": "1000"})
    try:
        worker.wait_for_state(name, "RUNNING", tasks=1)
        time.sleep(3.5)  # more than three timeouts of polls that return nothing
        assert "trace" not in task_status(worker, name)
        assert stalled_gauges(worker, name)[:2] == (0, 0)
        assert log_lines(worker, f"Task {name}-0 is stalled") == []
    finally:
        worker.request("DELETE", f"/connectors/{name}")


def test_a_stall_shows_through_the_status_topic_in_distributed_mode(
    tmp_path: Path, kafka_bootstrap: str, unique_topic: str
) -> None:
    props = group_props(kafka_bootstrap, "stalls")
    env = plugin_env(install_connectors(tmp_path / "plugins"))
    distributed = WorkerProcess(tmp_path, props, env=env, mode="distributed")
    try:
        distributed.start()
        wait_healthy([distributed])
        hold = tmp_path / "hold"
        hold.touch()
        config = {
            "connector.class": "HeldSource",
            "topic": unique_topic,
            HOLD_FILE: str(hold),
            HOLD_IN: "poll",
        }
        create(distributed, "held", {**config, **STALL})
        assert_stall_shows_then_clears(distributed, "held", "poll() has not returned", hold, metrics=False)
        traces = asyncio.run(task_traces(kafka_bootstrap, props["status.storage.topic"], "held-0"))
        assert [t is not None and t.startswith("kconnect: stalled since ") for t in traces][-2:] == [
            True,
            False,
        ]
    finally:
        distributed.stop()


async def task_traces(bootstrap: str, topic: str, task: str) -> list[str | None]:
    """The trace of each status record of `task` in the status topic, oldest first (read until the
    topic has given nothing new for two seconds)."""
    consumer = AIOKafkaConsumer(topic, bootstrap_servers=bootstrap, auto_offset_reset="earliest")
    await consumer.start()
    records: list[Any] = []
    try:
        quiet = 0
        while quiet < 2 or not records:
            batch = await asyncio.wait_for(consumer.getmany(timeout_ms=1000), 60)
            fetched = [r for part in batch.values() for r in part]
            records += fetched
            quiet = 0 if fetched else quiet + 1
    finally:
        await consumer.stop()
    mine = [r for r in sorted(records, key=lambda r: r.timestamp) if r.key == f"status-task-{task}".encode()]
    return [json.loads(r.value).get("trace") for r in mine if r.value]
