"""Self-healing (``auto.restart.*``, a kconnect extension) on real workers, real Kafka and real Spark.

A `tests.connectors.FlakySource` task fails on its first runs, each after its lines' offsets were
committed, so a restart that resumes from the committed offsets sends every line once. The backoff
unit is 500 ms (1 s in distributed mode), so Strimzi's schedule waits 0, 1, 3 s (0, 2, 6 s).
The standalone tests share one worker; the distributed one starts a group of two.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer

from tests.integration.harness import path_of, wait_seconds, wait_until
from tests.integration.test_distributed import group_props, wait_healthy
from tests.plugin_package import install_connectors, plugin_env
from tests.worker_process import WorkerProcess, stop_all

pytestmark = pytest.mark.integration

KAFKA_STATUS_KEYS = {"state", "worker_id", "trace", "version"}


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory, kafka_bootstrap: str) -> Iterator[WorkerProcess]:
    """One standalone worker with the test connectors installed and ``/metrics`` served."""
    workdir = tmp_path_factory.mktemp("auto-restart")
    props = {
        "bootstrap.servers": kafka_bootstrap,
        "offset.storage.file.filename": str(workdir / "connect.offsets"),
        "offset.flush.interval.ms": "300",
        "spark.master": "local[2]",
        "rest.extension.classes": "PrometheusMetrics",
    }
    env = plugin_env(install_connectors(workdir / "plugins"))
    started = WorkerProcess(workdir, props, env=env).start()
    yield started
    started.stop()


def flaky(topic: str, runs_file: Path, failing_runs: int, **extra: str) -> dict[str, str]:
    """A FlakySource config: 20 lines to `topic`, its first `failing_runs` runs failing."""
    return {
        "connector.class": "FlakySource",
        "topic": topic,
        "lines": "20",
        "runs.file": str(runs_file),
        "failing.runs": str(failing_runs),
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        **extra,
    }


def create(worker: WorkerProcess, name: str, config: dict[str, str]) -> None:
    response = worker.request("PUT", f"{path_of(name)}/config", config)
    assert response.status_code == 201, response.text


def runs(runs_file: Path) -> list[float]:
    """The start time of each run of the task."""
    return [float(line) for line in runs_file.read_text().split()] if runs_file.exists() else []


def restarts(worker: WorkerProcess, name: str) -> dict[str, Any]:
    response = worker.get(f"{path_of(name)}/restarts")
    assert response.status_code == 200, response.text
    return dict(response.json())


def task_state(worker: WorkerProcess, name: str) -> str:
    return str(worker.status(name)["tasks"][0]["state"])


def topic_values(bootstrap: str, topic: str, expected: int) -> list[str]:
    """Every value in `topic`: read until `expected` arrived, then until 2 s pass with nothing more."""

    async def read() -> list[str]:
        consumer = AIOKafkaConsumer(topic, bootstrap_servers=bootstrap, auto_offset_reset="earliest")
        await consumer.start()
        try:
            values: list[str] = []
            quiet = 0
            for _ in range(240):
                batch = await consumer.getmany(timeout_ms=500)
                got = [m.value.decode() for part in batch.values() for m in part]
                values += got
                quiet = 0 if got or len(values) < expected else quiet + 1
                if quiet >= 4:
                    break
            return values
        finally:
            await consumer.stop()

    return asyncio.run(read())


def log_of(worker: WorkerProcess) -> str:
    return worker.log_path.read_text(errors="replace")


def assert_kafkas_status_fields(worker: WorkerProcess, name: str) -> None:
    body = worker.status(name)
    assert set(body) == {"name", "connector", "tasks", "type"}
    assert set(body["connector"]) <= KAFKA_STATUS_KEYS
    assert all(set(t) <= KAFKA_STATUS_KEYS | {"id"} for t in body["tasks"])


def test_a_task_failing_its_first_runs_is_restarted_on_schedule_and_sends_every_line_once(
    worker: WorkerProcess, tmp_path: Path, unique_topic: str, kafka_bootstrap: str
) -> None:
    name, runs_file = "flaky-healed", tmp_path / "runs"
    create(worker, name, flaky(unique_topic, runs_file, 3, **{
        "auto.restart.enable": "true", "auto.restart.backoff.ms": "500",
    }))  # fmt: skip

    wait_until(
        "the fourth run to be RUNNING",
        lambda: len(runs(runs_file)) == 4 and task_state(worker, name) == "RUNNING",
        worker,
        timeout=120,
    )
    body = restarts(worker, name)
    task = body["tasks"][0]
    assert (body["enabled"], body["max_attempts"], body["backoff_ms"]) == (True, -1, 500)
    assert (task["count"], task["next_attempt_ms"], task["gave_up"]) == (3, None, False)
    assert "Flaky run 3 fails on purpose" in task["last_failure"]
    assert body["connector"]["count"] == 0
    assert_kafkas_status_fields(worker, name)
    metrics = worker.get("/metrics").text
    assert f'kconnect_auto_restarts{{connector="{name}",task="0"}} 3.0' in metrics
    assert f'kconnect_auto_restart_gave_up{{connector="{name}",task="0"}} 0.0' in metrics

    # Strimzi's schedule with a 500 ms unit: the third and fourth runs waited 1 s and 3 s.
    log = log_of(worker)
    for n, delay in ((1, 0), (2, 1000), (3, 3000)):
        assert f"Automatic restart {n} (of unlimited) of task {name}-0 scheduled in {delay} ms" in log
        assert f"Automatic restart {n} of task {name}-0: restarting it now" in log
    started = runs(runs_file)
    assert started[2] - started[1] >= 1.0
    assert started[3] - started[2] >= 3.0

    values = topic_values(kafka_bootstrap, unique_topic, 20)
    assert sorted(values, key=int) == [str(i) for i in range(20)]  # each line once: none lost, none twice

    # Six seconds RUNNING (the next restart's backoff) and the count starts again.
    wait_until("the count to reset", lambda: restarts(worker, name)["tasks"][0]["count"] == 0, worker, 60)
    assert "Flaky run 3" in restarts(worker, name)["tasks"][0]["last_failure"]
    assert f"Task {name}-0 stayed RUNNING for 6000 ms: its automatic restart count starts again" in log_of(
        worker
    )


def test_a_connector_failing_its_first_starts_is_restarted_on_schedule(
    worker: WorkerProcess, tmp_path: Path, unique_topic: str, kafka_bootstrap: str
) -> None:
    name, starts_file = "flaky-connector", tmp_path / "starts"
    create(worker, name, flaky(unique_topic, tmp_path / "runs", 0, **{
        "starts.file": str(starts_file), "failing.starts": "2",
        "auto.restart.enable": "true", "auto.restart.backoff.ms": "2000",
    }))  # fmt: skip

    # Waits of 0 and 4 s; the count resets after 12 s RUNNING, long after this check.
    wait_until("the connector to run", lambda: worker.status(name)["connector"]["state"] == "RUNNING", worker)
    assert len(runs(starts_file)) == 3
    connector = restarts(worker, name)["connector"]
    assert (connector["count"], connector["next_attempt_ms"], connector["gave_up"]) == (2, None, False)
    assert "Flaky start 2 fails on purpose" in connector["last_failure"]
    log = log_of(worker)
    for n, delay in ((1, 0), (2, 4000)):
        assert f"Automatic restart {n} (of unlimited) of connector {name} scheduled in {delay} ms" in log
        assert f"Automatic restart {n} of connector {name}: restarting it now" in log
    worker.wait_for_state(name, "RUNNING", tasks=1, timeout=120)
    assert sorted(topic_values(kafka_bootstrap, unique_topic, 20), key=int) == [str(i) for i in range(20)]


def test_after_max_attempts_the_task_stays_failed_and_the_endpoint_says_it_gave_up(
    worker: WorkerProcess, tmp_path: Path, unique_topic: str
) -> None:
    name, runs_file = "flaky-gives-up", tmp_path / "runs"
    create(worker, name, flaky(unique_topic, runs_file, 10, **{
        "auto.restart.enable": "true", "auto.restart.backoff.ms": "500", "auto.restart.max.attempts": "2",
    }))  # fmt: skip

    wait_until("the worker to give up", lambda: restarts(worker, name)["tasks"][0]["gave_up"], worker, 120)
    task = restarts(worker, name)["tasks"][0]
    assert (task["count"], task["next_attempt_ms"]) == (2, None)
    assert "Flaky run 3 fails on purpose" in task["last_failure"]
    status = worker.status(name)["tasks"][0]
    assert status["state"] == "FAILED"
    assert "Flaky run 3 fails on purpose" in status["trace"]
    assert (
        f"Giving up automatic restarts of task {name}-0: it failed again after 2 automatic restarts "
        "(auto.restart.max.attempts=2)"
    ) in log_of(worker)
    assert f'kconnect_auto_restart_gave_up{{connector="{name}",task="0"}} 1.0' in worker.get("/metrics").text

    # Longer than any restart would have waited: nothing more happens.
    wait_seconds(4)
    assert len(runs(runs_file)) == 3
    assert task_state(worker, name) == "FAILED"


def test_off_by_default_a_failed_task_stays_failed(
    worker: WorkerProcess, tmp_path: Path, unique_topic: str
) -> None:
    name, runs_file = "flaky-left-failed", tmp_path / "runs"
    create(worker, name, flaky(unique_topic, runs_file, 1))

    wait_until("the task to fail", lambda: task_state(worker, name) == "FAILED", worker, 120)
    wait_seconds(4)
    assert task_state(worker, name) == "FAILED"
    assert len(runs(runs_file)) == 1
    body = restarts(worker, name)
    assert body["enabled"] is False
    assert body["tasks"][0] == {
        "id": 0, "count": 0, "last_failure": None, "last_failure_ms": None, "next_attempt_ms": None,
        "gave_up": False,
    }  # fmt: skip
    assert f"of task {name}-0" not in log_of(worker)

    # A manual restart still works as in Kafka: it resumes, and the next run succeeds.
    assert worker.request("POST", f"{path_of(name)}/tasks/0/restart").status_code == 204
    wait_until("the task to run", lambda: task_state(worker, name) == "RUNNING", worker, 120)


# --- distributed mode ----------------------------------------------------------------------------------


def test_distributed_the_next_owner_continues_the_count_after_the_owner_stops(
    tmp_path: Path, kafka_bootstrap: str, unique_topic: str
) -> None:
    # The stopped owner's task moves after 1 s, not group_props' 5 s: when it moves is not what is tested.
    props = group_props(
        kafka_bootstrap,
        "auto-restart",
        **{"spark.master": "local[2]", "scheduled.rebalance.max.delay.ms": "1000"},
    )
    env = plugin_env(install_connectors(tmp_path / "plugins"))
    workers = [WorkerProcess(tmp_path, props, mode="distributed", env=env) for _ in range(2)]
    for w in workers:
        w.start()
    try:
        wait_healthy(workers)
        a = workers[0]
        name, runs_file = "flaky-moved", tmp_path / "runs"
        create(a, name, flaky(unique_topic, runs_file, 4, **{
            "auto.restart.enable": "true", "auto.restart.backoff.ms": "1000",
        }))  # fmt: skip

        third = f"Automatic restart 3 (of unlimited) of task {name}-0 scheduled in 6000 ms"
        wait_until(
            "the third restart to be scheduled", lambda: any(third in log_of(w) for w in workers), a, 180
        )
        owner = next(w for w in workers if third in log_of(w))
        other = next(w for w in workers if w is not owner)
        task = restarts(other, name)["tasks"][0]  # any worker shows it: it is in the status topic
        assert task["count"] == 2
        assert task["next_attempt_ms"] is not None
        owner.stop()

        wait_until(
            "the other worker to run the task",
            lambda: len(runs(runs_file)) == 5 and task_state(other, name) == "RUNNING",
            other,
            180,
        )
        log = log_of(other)
        assert third in log  # run 4 (started at the takeover) failed: the count went on from 2
        assert f"Automatic restart 3 of task {name}-0: restarting it now" in log
        assert f"Automatic restart 1 (of unlimited) of task {name}-0" not in log
        task = restarts(other, name)["tasks"][0]
        assert (task["count"], task["gave_up"]) == (3, False)
        assert "Flaky run 4 fails on purpose" in task["last_failure"]
        assert worker_id_of(other) == other.status(name)["tasks"][0]["worker_id"]
    finally:
        stop_all(workers)


def worker_id_of(worker: WorkerProcess) -> str:
    return re.sub(r"^https?://", "", worker.url)


def test_validate_checks_the_keys_only_when_a_config_sets_them(
    worker: WorkerProcess, unique_topic: str
) -> None:
    base = {"connector.class": "FlakySource", "topic": unique_topic, "name": "flaky-validated"}
    path = "/connector-plugins/FlakySource/config/validate"

    plain = worker.request("PUT", path, base).json()
    assert not any(c["value"]["name"].startswith("auto.restart.") for c in plain["configs"])

    wrong = worker.request("PUT", path, {**base, "auto.restart.enable": "maybe"}).json()
    assert wrong["error_count"] == 1
    errors = {c["value"]["name"]: c["value"]["errors"] for c in wrong["configs"]}
    assert errors["auto.restart.enable"] == [
        "Invalid value maybe for configuration auto.restart.enable: Expected value to be either true or false"
    ]
    response = worker.request(
        "PUT", f"{path_of('flaky-validated')}/config", {**base, "auto.restart.enable": "maybe"}
    )
    assert response.status_code == 400, response.text
