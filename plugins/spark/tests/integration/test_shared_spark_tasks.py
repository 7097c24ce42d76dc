"""Many connector tasks in one Spark task: placement, isolation of lifecycle calls, and a shared death.

A real standalone worker on ``local[2]`` (so it opens two hosting Spark tasks, one per core, before
tasks share them) runs several small FileStreamSource connectors and one FileStreamSink. The tests
check what an operator sees: every task RUNNING in two Python processes, every line delivered;
pause, resume, restart and delete of one connector touch only its own task; SIGKILL of one shared
Python process fails exactly the tasks it hosted, each with a trace naming the cause, and a
restart resumes them with nothing lost.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer

from tests.integration.harness import lines, wait_until
from tests.integration.test_task_failures import read_lines, sink, source, task_status, wait_task_state
from tests.worker_process import WorkerProcess

pytestmark = pytest.mark.integration

SOURCES = 6
LINES = 500


def hosts(worker: WorkerProcess) -> dict[str, str]:
    """Python worker pid of each hosting Spark task the worker started: {host number: pid}."""
    pattern = re.compile(r"Spark task host (\d+) runs in Spark's Python worker process (\d+)")
    return dict(pattern.findall(worker.log_path.read_text(errors="replace")))


def task_pids(worker: WorkerProcess) -> dict[str, list[str]]:
    """The Python worker pid of every run of every task, in order: {task: [pid, ...]}."""
    pattern = re.compile(r"Task (\S+) \(generation \d+\) runs in Spark's Python worker process (\d+)")
    runs: dict[str, list[str]] = {}
    for task, pid in pattern.findall(worker.log_path.read_text(errors="replace")):
        runs.setdefault(task, []).append(pid)
    return runs


def expected_lines() -> set[str]:
    return {f"s{n} {line}" for n in range(SOURCES) for line in lines(0, LINES).splitlines()}


@pytest.fixture
def shared(start_worker: Any, tmp_path: Path, unique_topic: str) -> tuple[WorkerProcess, Path, Path]:
    """A worker with `SOURCES` sources s0..s5 and a sink, all RUNNING, every line delivered."""
    worker = start_worker({"spark.master": "local[2]", "offset.flush.interval.ms": "500"})
    sink_file = tmp_path / "out.txt"
    sink(worker, "shared-tasks-sink", sink_file, unique_topic)
    for n in range(SOURCES):
        path = tmp_path / f"s{n}.txt"
        path.write_text("".join(f"s{n} {line}\n" for line in lines(0, LINES).splitlines()), encoding="utf-8")
        source(worker, f"s{n}", path, unique_topic)
    for name in ("shared-tasks-sink", *(f"s{n}" for n in range(SOURCES))):
        wait_task_state(worker, name, "RUNNING")
    wait_until("every line in the sink", lambda: set(read_lines(sink_file)) >= expected_lines(), worker, 120)
    return worker, tmp_path, sink_file


def test_tasks_share_two_spark_tasks_and_every_line_arrives(shared: tuple[WorkerProcess, Path, Path]) -> None:
    worker, _, sink_file = shared
    started = hosts(worker)
    assert len(started) == 2, f"local[2] on this machine: two hosting Spark tasks, not {started}"
    pids = task_pids(worker)
    assert len(pids) == SOURCES + 1 and {p[0] for p in pids.values()} == set(started.values())
    assert set(read_lines(sink_file)) == expected_lines()
    log = worker.log_path.read_text()
    assert "Spark has 2 task slots; each Spark task hosts up to 100 connector tasks" in log

    placement = worker.get("/executor").json()
    assert (placement["executor"], placement["slots"], placement["slots_used"]) == ("spark", 2, 2)
    assert placement["tasks_per_host"] == 100 and placement["unplaced"] == []
    assert sorted(h["id"] for h in placement["hosts"]) == sorted(int(n) for n in started)
    assert all(h["state"] == "RUNNING" and not h["dedicated"] for h in placement["hosts"])
    placed = sorted(f"{t['connector']}-{t['task']}" for h in placement["hosts"] for t in h["tasks"])
    assert placed == sorted(pids)
    by_host = {h["id"]: {f"{t['connector']}-{t['task']}" for t in h["tasks"]} for h in placement["hosts"]}
    for number, pid in started.items():
        assert by_host[int(number)] == {task for task, runs in pids.items() if runs[-1] == pid}


def test_pause_resume_restart_and_delete_of_one_connector_touch_only_its_task(
    shared: tuple[WorkerProcess, Path, Path],
) -> None:
    worker, tmp_path, sink_file = shared
    before = task_pids(worker)
    assert worker.request("PUT", "/connectors/s1/pause").status_code == 202
    wait_task_state(worker, "s1", "PAUSED")
    assert worker.request("PUT", "/connectors/s1/resume").status_code == 202
    wait_task_state(worker, "s1", "RUNNING")
    assert worker.request("POST", "/connectors/s2/tasks/0/restart").status_code == 204
    wait_until("s2-0 ran again", lambda: len(task_pids(worker).get("s2-0", [])) == 2, worker)
    assert worker.request("DELETE", "/connectors/s3").status_code == 204
    with (tmp_path / "s4.txt").open("a", encoding="utf-8") as f:
        f.write("s4 one more line\n")
    wait_until("s4's new line", lambda: "s4 one more line" in read_lines(sink_file), worker)

    after = task_pids(worker)
    assert after["s2-0"][1] in set(hosts(worker).values()), "the restart joined a running Spark task"
    for task, runs in after.items():
        if task != "s2-0":
            assert runs == before[task], f"{task} was started again by another connector's change"
    assert len(hosts(worker)) == 2, "no Spark task was opened or closed for one connector's change"
    for name in ("shared-tasks-sink", "s0", "s1", "s2", "s4", "s5"):
        assert task_status(worker, name)["state"] == "RUNNING"


def test_a_killed_shared_python_process_fails_each_of_its_tasks_and_a_restart_loses_nothing(
    shared: tuple[WorkerProcess, Path, Path],
) -> None:
    worker, tmp_path, sink_file = shared
    victim = next(iter(hosts(worker).values()))
    hosted = sorted(task for task, runs in task_pids(worker).items() if runs[-1] == victim)
    survivors = sorted(set(task_pids(worker)) - set(hosted))
    assert hosted and survivors

    os.kill(int(victim), signal.SIGKILL)

    for task in hosted:
        status = wait_task_state(worker, task.rsplit("-", 1)[0], "FAILED")
        assert status["trace"].startswith(f"The Python worker process running task {task} died"), status[
            "trace"
        ]
    for task in survivors:
        assert task_status(worker, task.rsplit("-", 1)[0])["state"] == "RUNNING"

    for n in range(SOURCES):
        with (tmp_path / f"s{n}.txt").open("a", encoding="utf-8") as f:
            f.write(f"s{n} after the kill\n")
    for task in hosted:
        connector = task.rsplit("-", 1)[0]
        response = worker.request(
            "POST", f"/connectors/{connector}/restart?includeTasks=true&onlyFailed=true"
        )
        assert response.status_code == 202, response.text
    for task in hosted:
        wait_task_state(worker, task.rsplit("-", 1)[0], "RUNNING")
    everything = expected_lines() | {f"s{n} after the kill" for n in range(SOURCES)}
    wait_until("every line in the sink", lambda: set(read_lines(sink_file)) >= everything, worker, 180)
    assert set(read_lines(sink_file)) == everything


def test_two_hundred_connectors_run_within_a_minute_and_deliver_every_record(
    start_worker: Any, tmp_path: Path, unique_topic: str, kafka_bootstrap: str
) -> None:
    """The issue's yardstick: 200 small sources on one worker, RUNNING within a minute, nothing lost."""
    worker = start_worker({"spark.master": "local[2]"})
    worker.wait_for("a healthy worker", lambda: worker.get("/health").status_code == 200, 120)
    started = time.monotonic()
    for n in range(200):
        path = tmp_path / f"c{n}.txt"
        path.write_text("".join(f"c{n} line {i}\n" for i in range(10)), encoding="utf-8")
        config = {"connector.class": "FileStreamSource", "file": str(path), "topic": unique_topic}
        response = worker.request("POST", "/connectors", {"name": f"c{n}", "config": config})
        assert response.status_code == 201, response.text

    def all_running() -> bool:
        body = worker.get("/connectors?expand=status").json()
        states = [t["state"] for c in body.values() for t in c["status"]["tasks"]]
        return len(states) == 200 and set(states) == {"RUNNING"}

    wait_until("200 tasks RUNNING", all_running, worker, 60)
    assert time.monotonic() - started < 60
    placement = worker.get("/executor").json()
    assert len(placement["hosts"]) == 2 and sum(len(h["tasks"]) for h in placement["hosts"]) == 200
    assert asyncio.run(_consume_values(kafka_bootstrap, unique_topic, 2000)) == {
        f"c{n} line {i}" for n in range(200) for i in range(10)
    }


async def _consume_values(bootstrap: str, topic: str, count: int) -> set[str]:
    """The first `count` values of `topic` (the payloads of JsonConverter envelopes), as a set."""
    consumer = AIOKafkaConsumer(topic, bootstrap_servers=bootstrap, auto_offset_reset="earliest")
    await consumer.start()
    values: list[str] = []
    try:
        deadline = time.monotonic() + 60
        while len(values) < count and time.monotonic() < deadline:
            batches = await consumer.getmany(timeout_ms=1000)
            values += [json.loads(m.value)["payload"] for messages in batches.values() for m in messages]
    finally:
        await consumer.stop()
    assert len(values) == count, f"{len(values)} of {count} records in {topic}"
    return set(values)
