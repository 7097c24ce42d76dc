"""Connector tasks on a real Spark standalone cluster: a master and two workers on this machine.

The cluster (`scripts/spark_cluster.py`, pyspark's own jars) has two workers of one core each, so a
kconnect worker pointed at it with ``spark.master=spark://...`` gets one executor on each and two
task slots. The tests show what a user would check: every line arrives; each task runs in a
Python worker under a Spark executor JVM (``CoarseGrainedExecutorBackend``), not under the
kconnect worker, and the two tasks on different cluster workers; Spark's master lists the
application RUNNING with executors on both; when a cluster worker dies its task shows FAILED
with Spark's error, a restart waits UNASSIGNED for a slot, and runs again when a worker replaces it;
Spark's own re-run of a lost task on a free executor refuses to run; and executors whose Python
lacks the connector's plugin fail the task naming that Python.

The cluster is the session's (``spark_cluster`` in tests/harness.py); other modules reuse
``cluster_worker`` and ``executor_of`` from here.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.integration.harness import lines, wait_until
from tests.integration.test_task_failures import (
    read_lines,
    sink,
    source,
    task_runs,
    task_status,
    wait_task_state,
)
from tests.worker_process import WorkerProcess, venv_without

pytestmark = pytest.mark.integration

EXECUTOR_BACKEND = "org.apache.spark.executor.CoarseGrainedExecutorBackend"


def cluster_worker(start_worker: Any, cluster: Any, props: dict[str, str] | None = None) -> WorkerProcess:
    """A kconnect standalone worker whose tasks run on `cluster`, everything on loopback."""
    worker: WorkerProcess = start_worker(
        {
            "spark.master": cluster.master_url,
            "spark.executor.memory": "512m",
            "spark.driver.host": "127.0.0.1",
            "spark.driver.bindAddress": "127.0.0.1",
            "executor.control.host": "127.0.0.1",
            "offset.flush.interval.ms": "500",
            **(props or {}),
        }
    )
    return worker


def ancestors(pid: int) -> list[tuple[int, str]]:
    """`pid` and its ancestors, nearest first, each with its command line."""
    chain = []
    while pid > 1:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        chain.append((pid, cmdline))
        stat = Path(f"/proc/{pid}/stat").read_text()
        pid = int(stat.rsplit(")", 1)[1].split()[1])  # the field after the state: the parent's pid
    return chain


def executor_of(task_pid: int, worker: WorkerProcess) -> dict[str, str]:
    """The Spark executor JVM whose Python worker runs a task: its pid, parent and arguments.

    Fails unless the task's process descends from a ``CoarseGrainedExecutorBackend`` and not from
    the kconnect worker (where a local Spark's tasks would run, under the driver).
    """
    chain = ancestors(task_pid)
    assert "pyspark" in chain[0][1], chain[0]
    assert worker.process is not None
    assert worker.process.pid not in [pid for pid, _ in chain], f"task {task_pid} runs under the driver"
    executors = [(i, pid, cmd) for i, (pid, cmd) in enumerate(chain) if EXECUTOR_BACKEND in cmd]
    assert executors, f"no Spark executor JVM above task process {task_pid}: {chain}"
    index, pid, cmd = executors[0]
    args = dict(re.findall(r"--([a-z-]+) (\S+)", cmd))
    return {"pid": str(pid), "parent": str(chain[index + 1][0]), **args}


def pipeline(worker: WorkerProcess, tmp_path: Path, topic: str, count: int) -> tuple[Path, Path]:
    """A FileStreamSource (``src``) and a FileStreamSink (``sink``) through `topic`, both RUNNING."""
    source_file, sink_file = tmp_path / "in.txt", tmp_path / "out.txt"
    source_file.write_text(lines(0, count), encoding="utf-8")
    source(worker, "src", source_file, topic)
    sink(worker, "spark-cluster-sink", sink_file, topic)
    wait_task_state(worker, "src", "RUNNING", timeout=180)
    wait_task_state(worker, "spark-cluster-sink", "RUNNING", timeout=180)
    return source_file, sink_file


def test_a_pipeline_runs_in_the_clusters_executors_on_both_workers(
    spark_cluster: Any, start_worker: Any, tmp_path: Path, unique_topic: str
) -> None:
    worker = cluster_worker(start_worker, spark_cluster)
    # A task starting while only one executor has registered shares its host (one slot known):
    # the two executors register a moment after the worker's Spark application starts.
    wait_until(
        "both executors' slots", lambda: "Spark has 2 task slots" in worker.log_path.read_text(), worker, 120
    )
    source_file, sink_file = pipeline(worker, tmp_path, unique_topic, 5000)

    expected = read_lines(source_file)
    wait_until("all 5000 lines in the sink", lambda: len(read_lines(sink_file)) >= 5000, worker, 180)
    assert read_lines(sink_file) == expected, "lines lost, duplicated or out of order"

    [src_run], [sink_run] = task_runs(worker, "src"), task_runs(worker, "spark-cluster-sink")
    src_executor = executor_of(int(src_run["pid"]), worker)
    sink_executor = executor_of(int(sink_run["pid"]), worker)
    assert src_executor["app-id"] == sink_executor["app-id"]
    # one core per cluster worker: the two tasks hold the slots of two executors on two workers
    assert src_executor["executor-id"] != sink_executor["executor-id"]
    assert src_executor["worker-url"] != sink_executor["worker-url"]
    cluster_pids = {str(daemon.process.pid) for daemon in spark_cluster.running_workers()}
    assert {src_executor["parent"], sink_executor["parent"]} == cluster_pids

    state = spark_cluster.state()
    [app] = [a for a in state["activeapps"] if a["id"] == src_executor["app-id"]]
    assert app["name"] == "kconnect-worker" and app["state"] == "RUNNING", app
    assert all(w["coresused"] == 1 for w in spark_cluster.alive_workers()), state["workers"]
    for daemon in spark_cluster.running_workers():
        executors = spark_cluster.worker_state(daemon)["executors"]
        assert [e["appid"] for e in executors] == [app["id"]], executors

    log = worker.log_path.read_text()
    assert "Spark has 2 task slots; each Spark task hosts up to" in log
    assert f"Python tasks run with {worker.python} (spark.pyspark.python)" in log


def test_a_dead_cluster_worker_fails_its_task_and_a_restart_waits_for_a_slot(
    spark_cluster: Any, start_worker: Any, tmp_path: Path, unique_topic: str
) -> None:
    # One connector task per Spark task: the restarted task must wait for a slot, not join the sink's.
    worker = cluster_worker(start_worker, spark_cluster, {"executor.tasks.per.spark.task": "1"})
    source_file, sink_file = pipeline(worker, tmp_path, unique_topic, 1000)
    wait_until("lines in the sink", lambda: len(read_lines(sink_file)) > 0, worker)
    [run] = task_runs(worker, "src")
    executor = executor_of(int(run["pid"]), worker)
    [victim] = [d for d in spark_cluster.workers if str(d.process.pid) == executor["parent"]]

    victim.kill()  # the cluster worker, its executor and the task's Python worker, at once

    status = wait_task_state(worker, "src", "FAILED")
    first_line = status["trace"].splitlines()[0]
    assert first_line.startswith(
        "The Spark executor running task src-0 was lost; Spark: ExecutorLostFailure ("
    ), status["trace"]
    assert "Reason: worker lost" in first_line, first_line
    assert task_runs(worker, "src") == [run], "Spark ran the task again behind the worker's back"
    assert task_status(worker, "spark-cluster-sink")["state"] == "RUNNING", (
        "the other worker's task must keep running"
    )

    with source_file.open("a", encoding="utf-8") as f:
        f.write(lines(1000, 2000))
    assert worker.request("POST", "/connectors/src/tasks/0/restart").status_code == 204
    wait_until(
        "src-0 waiting for a slot",
        lambda: (
            task_status(worker, "src")
            .get("trace", "")
            .startswith(
                "Waiting for a Spark task slot: Spark has 1 task slots and 2 Spark tasks hosting "
                "connector tasks need one"
            )
        ),
        worker,
        60,
    )
    assert task_status(worker, "src")["state"] == "UNASSIGNED"
    assert len(task_runs(worker, "src")) == 1, "the task ran again without a slot"

    spark_cluster.start_worker()  # a replacement joins; the master gives the application its core
    spark_cluster.wait_for_workers(2)
    status = wait_task_state(worker, "src", "RUNNING", timeout=180)
    assert "trace" not in status
    expected = read_lines(source_file)
    wait_until("all 2000 lines in the sink", lambda: set(expected) <= set(read_lines(sink_file)), worker, 180)
    assert set(read_lines(sink_file)) == set(expected)
    [_, rerun] = task_runs(worker, "src")
    assert executor_of(int(rerun["pid"]), worker)["parent"] == str(spark_cluster.workers[-1].process.pid)


def test_executors_without_the_connectors_plugin_fail_the_task_naming_the_python(
    spark_cluster: Any, start_worker: Any, tmp_path: Path, unique_topic: str
) -> None:
    executors_python = venv_without("kconnect-file", tmp_path / "venv")
    worker = cluster_worker(start_worker, spark_cluster, {"spark.pyspark.python": executors_python})
    (tmp_path / "in.txt").write_text(lines(0, 10), encoding="utf-8")
    source(worker, "src", tmp_path / "in.txt", unique_topic)

    status = wait_task_state(worker, "src", "FAILED", timeout=180)
    assert worker.status("src")["connector"]["state"] == "RUNNING", "the worker itself has the plugin"
    trace = status["trace"]
    assert trace.startswith(
        "Task src-0 could not load its connector's plugin in Spark's Python worker "
        f"(Python {executors_python} on host "
    ), trace
    assert "Failed to find any class that implements" in trace, trace
    [run] = task_runs(worker, "src")
    assert executor_of(int(run["pid"]), worker)  # it failed in the cluster, not in the driver
    assert f"Python tasks run with {executors_python} (spark.pyspark.python)" in worker.log_path.read_text()


def test_spark_rerunning_a_lost_task_on_a_free_executor_is_refused_and_status_says_why(
    spark_cluster: Any, start_worker: Any, tmp_path: Path, unique_topic: str
) -> None:
    worker = cluster_worker(start_worker, spark_cluster)
    wait_until("Spark's two slots", lambda: worker.get("/executor").json()["slots"] == 2, worker, 180)
    source_file = tmp_path / "in.txt"
    source_file.write_text(lines(0, 1000), encoding="utf-8")
    # A first connector's task warms the other executor's Python worker, then leaves its slot free:
    # Spark's re-run then starts there in a moment. On a cold executor it can take longer than the
    # worker waits for a lost task's Spark job (CHANNEL_LOSS_GRACE_S) before cancelling it itself.
    (tmp_path / "warm.txt").write_text(lines(0, 1), encoding="utf-8")
    source(worker, "warm", tmp_path / "warm.txt", f"{unique_topic}-warm")
    wait_task_state(worker, "warm", "RUNNING", timeout=180)
    source(worker, "src", source_file, unique_topic)
    wait_task_state(worker, "src", "RUNNING", timeout=180)
    [run], [warm_run] = task_runs(worker, "src"), task_runs(worker, "warm")
    executor = executor_of(int(run["pid"]), worker)
    assert executor_of(int(warm_run["pid"]), worker)["executor-id"] != executor["executor-id"]
    assert worker.request("DELETE", "/connectors/warm").status_code == 204
    wait_until(
        "the warm task's host closed", lambda: len(worker.get("/executor").json()["hosts"]) == 1, worker
    )
    [victim] = [d for d in spark_cluster.workers if str(d.process.pid) == executor["parent"]]

    victim.kill()  # Spark re-queues the lost attempt at once on the free executor, uncounted

    status = wait_task_state(worker, "src", "FAILED")
    first_line = status["trace"].splitlines()[0]
    assert first_line.startswith(
        "The Spark executor running task src-0 was lost; Spark: ExecutorLostFailure ("
    ), status["trace"]
    # host 1 was the warm task's
    assert "TaskRerunRefused: Spark started attempt 1 of Spark task host 2's Spark task" in status["trace"]
    assert task_runs(worker, "src") == [run], "Spark's copy of the task must not have run"

    sink_file = tmp_path / "out.txt"
    sink(worker, "spark-cluster-sink", sink_file, unique_topic)
    spark_cluster.start_worker()  # back to two slots, for the sink and the restarted source
    assert worker.request("POST", "/connectors/src/tasks/0/restart").status_code == 204
    wait_task_state(worker, "src", "RUNNING", timeout=180)
    expected = read_lines(source_file)
    wait_until("all lines in the sink", lambda: set(expected) <= set(read_lines(sink_file)), worker, 180)
