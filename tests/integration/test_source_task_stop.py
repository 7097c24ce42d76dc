"""A source task blocked in `poll` is woken by `stop`: stop, restart and delete each end it at once.

Connectors ported from Java rely on SourceTask's contract that `stop` may be called from another
thread while `poll` blocks, to wake it. A real worker runs `tests.connectors.BlockingPollSource`
(installed as a third-party plugin) next to a FileStreamSource and a FileStreamSink, either sharing
their Spark task (``local[1]``: one hosting Spark task for all) or in a Spark task of its own
(``executor.dedicated.spark.task=true``). Stopping the connector, restarting its task and deleting
it must each end the blocked poll within `WAKE_S` (the task's own timestamps against the request's),
call `stop` once per run and never `poll` after it, while the neighbours keep running untouched.
``task.shutdown.graceful.timeout.ms`` is 60 s, so a poll nobody wakes would still block.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from plugins.spark.tests.integration.test_shared_spark_tasks import task_pids
from tests.connectors import EVENTS_FILE
from tests.integration.harness import wait_until
from tests.integration.test_task_failures import read_lines, sink, source, task_status, wait_task_state
from tests.plugin_package import install_connectors, plugin_env
from tests.worker_process import WorkerProcess

pytestmark = pytest.mark.integration

#: How soon after the REST request the blocked poll must have returned.
WAKE_S = 1.0
WOKEN_LOG = "Source task b-0: stop requested while poll() runs; calling stop() to wake it"


def runs(events: Path) -> dict[str, list[tuple[str, float]]]:
    """The events file by task run, in order: {run: [(event, unix time), ...]}."""
    by_run: dict[str, list[tuple[str, float]]] = {}
    for line in read_lines(events):
        run, event, at = line.split()
        by_run.setdefault(run, []).append((event, float(at)))
    return by_run


def blocked_runs(events: Path) -> list[str]:
    """The runs whose poll is blocked now."""
    return [run for run, calls in runs(events).items() if calls[-1][0] == "poll"]


def wait_blocked(worker: WorkerProcess, events: Path, known: int) -> str:
    """Wait for run number `known + 1` to block in poll; return it."""
    wait_until(
        f"run {known + 1} of b-0 blocked in poll",
        lambda: len(runs(events)) == known + 1 and len(blocked_runs(events)) == 1,
        worker,
    )
    return blocked_runs(events)[0]


def assert_woken(worker: WorkerProcess, events: Path, run: str, requested: float) -> None:
    """The run's poll returned within `WAKE_S` of the request, after one stop and before any other poll."""
    wait_until(
        f"the poll of run {run} to return",
        lambda: [e for e, _ in runs(events)[run]][-1] == "poll-returned",
        worker,
        timeout=30,
    )
    calls = runs(events)[run]
    assert [e for e, _ in calls] == ["start", "poll", "stop", "poll-returned"], calls
    returned = calls[-1][1]
    assert returned - requested < WAKE_S, (
        f"the blocked poll returned {returned - requested:.2f} s after the request"
    )


def neighbours_untouched(worker: WorkerProcess, before: dict[str, list[str]], tmp_path: Path, n: int) -> None:
    """The FileStreamSource and Sink still run their first run, and a new line goes through both."""
    after = task_pids(worker)
    for task in ("n-0", "out-0"):
        assert after[task] == before[task], f"{task} was restarted by b's lifecycle"
        assert task_status(worker, task.rsplit("-", 1)[0])["state"] == "RUNNING"
    with (tmp_path / "n.txt").open("a", encoding="utf-8") as f:
        f.write(f"line {n}\n")
    wait_until(f"line {n} in the sink", lambda: f"line {n}" in read_lines(tmp_path / "out.txt"), worker)


@pytest.mark.parametrize("placement", ["shared", "dedicated"])
def test_stop_restart_and_delete_wake_a_poll_blocked_until_stop(
    placement: str, start_worker: Any, tmp_path: Path, unique_topic: str
) -> None:
    # local[1]: every task shares the one hosting Spark task; local[3]: n and out get one each, b its own.
    master = "local[1]" if placement == "shared" else "local[3]"
    worker = start_worker(
        {"spark.master": master, "task.shutdown.graceful.timeout.ms": "60000"},
        env=plugin_env(install_connectors(tmp_path / "plugins")),
    )
    (tmp_path / "n.txt").write_text("line 0\n", encoding="utf-8")
    source(worker, "n", tmp_path / "n.txt", unique_topic)
    sink(worker, "out", tmp_path / "out.txt", unique_topic)
    events = tmp_path / "events.txt"
    config = {"connector.class": "BlockingPoll", EVENTS_FILE: str(events)}
    if placement == "dedicated":
        config["executor.dedicated.spark.task"] = "true"
    assert worker.request("POST", "/connectors", {"name": "b", "config": config}).status_code == 201
    for name in ("n", "out", "b"):
        wait_task_state(worker, name, "RUNNING")
    wait_until("line 0 in the sink", lambda: "line 0" in read_lines(tmp_path / "out.txt"), worker)
    first = wait_blocked(worker, events, 0)
    pids = task_pids(worker)
    shared_pids = {pids["n-0"][0], pids["out-0"][0]}
    if placement == "shared":
        assert pids["b-0"][0] in shared_pids, f"b-0 shares the Python process of its neighbours: {pids}"
    else:
        assert pids["b-0"][0] not in shared_pids, f"b-0 runs in a Python process of its own: {pids}"

    requested = time.time()
    assert worker.request("PUT", "/connectors/b/stop").status_code == 204
    assert_woken(worker, events, first, requested)
    wait_until("b STOPPED", lambda: worker.status("b")["connector"]["state"] == "STOPPED", worker)
    neighbours_untouched(worker, pids, tmp_path, 1)

    assert worker.request("PUT", "/connectors/b/resume").status_code == 202
    second = wait_blocked(worker, events, 1)
    wait_task_state(worker, "b", "RUNNING")
    requested = time.time()
    assert worker.request("POST", "/connectors/b/tasks/0/restart").status_code == 204
    assert_woken(worker, events, second, requested)
    third = wait_blocked(worker, events, 2)
    wait_task_state(worker, "b", "RUNNING")
    neighbours_untouched(worker, pids, tmp_path, 2)

    requested = time.time()
    assert worker.request("DELETE", "/connectors/b").status_code == 204
    assert_woken(worker, events, third, requested)
    wait_until("b gone", lambda: worker.get("/connectors/b/status").status_code == 404, worker)
    neighbours_untouched(worker, pids, tmp_path, 3)

    log = worker.log_path.read_text(errors="replace")
    assert log.count(WOKEN_LOG) == 3, "each stop woke the blocked poll through stop(), as the log says"
    assert "Task b-0 did not stop within" not in log, "no run needed the graceful timeout"
    if placement == "shared":
        assert set(task_pids(worker)["b-0"]) == {pids["n-0"][0]}, "every run of b shared n's Spark task"
