"""Distributed mode on a real Spark standalone cluster: two kconnect workers, their tasks in the cluster.

Each kconnect worker of the group is its own Spark application on the cluster
(``spark.master=spark://...``, ``spark.cores.max=1``: one executor, one task slot each). The group
gives each worker one of the pipeline's two tasks; the test shows every line arriving, each task
running in a Python worker under a Spark executor JVM of its own worker's application (not under
either kconnect process), and the two applications RUNNING side by side on the master. When the
cluster worker under one application dies, that worker's task shows FAILED with Spark's reason on
every kconnect worker while the other application's task runs on; a restart asked through the
other kconnect worker waits for a slot and, once a replacement cluster worker joins, resumes from
the committed offsets with no line lost.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from plugins.spark.tests.integration.test_spark_cluster import executor_of
from tests.integration.harness import lines
from tests.integration.test_distributed import (
    all_tasks_in,
    create,
    group_props,
    read_lines,
    running_workers,
    task_states,
)
from tests.integration.test_task_failures import task_runs
from tests.worker_process import WorkerProcess

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def workers(
    spark_cluster: Any, tmp_path_factory: pytest.TempPathFactory, kafka_bootstrap: str
) -> Iterator[list[WorkerProcess]]:
    """Two distributed workers of a fresh group, each a Spark application on the cluster, shared by the
    module's tests: a test that another follows deletes its connectors (`pipeline_names`), so the next
    finds both task slots free and the group's work as a fresh group has it."""
    props = group_props(
        kafka_bootstrap,
        "kconnect-spark",
        **{
            "spark.master": spark_cluster.master_url,
            "spark.cores.max": "1",
            "spark.executor.memory": "512m",
            "spark.driver.host": "127.0.0.1",
            "spark.driver.bindAddress": "127.0.0.1",
            "executor.control.host": "127.0.0.1",
        },
    )
    with running_workers(tmp_path_factory.mktemp("distributed-spark"), props, 2) as started:
        yield started


@pytest.fixture
def pipeline_names(workers: list[WorkerProcess]) -> Iterator[tuple[str, str]]:
    """A source and a sink name of this test's own; both connectors are deleted when it ends."""
    suffix = uuid.uuid4().hex[:8]
    names = (f"src-{suffix}", f"sink-{suffix}")
    yield names
    for name in names:
        workers[0].request("DELETE", f"/connectors/{name}")
    for worker in workers:
        worker.wait_for("the test's connectors gone", lambda w=worker: w.get("/connectors").json() == [], 60)


def test_each_workers_task_runs_in_its_own_application_on_the_cluster(
    spark_cluster: Any,
    workers: list[WorkerProcess],
    pipeline_names: tuple[str, str],
    tmp_path: Path,
    unique_topic: str,
) -> None:
    a, b = workers
    src, sink = pipeline_names
    source_file, sink_file = tmp_path / "in.txt", tmp_path / "out.txt"
    source_file.write_text(lines(0, 5000), encoding="utf-8")
    create(a, src, {"connector.class": "FileStreamSource", "file": str(source_file), "topic": unique_topic})
    create(b, sink, {"connector.class": "FileStreamSink", "file": str(sink_file), "topics": unique_topic})
    for worker in workers:
        worker.wait_for("the source RUNNING", lambda w=worker: all_tasks_in("RUNNING", src, 1)(w), 180)
        worker.wait_for("the sink RUNNING", lambda w=worker: all_tasks_in("RUNNING", sink, 1)(w), 180)
    a.wait_for("all 5000 lines in the sink", lambda: len(read_lines(sink_file)) >= 5000, 180)
    assert read_lines(sink_file) == read_lines(source_file), "lines lost, duplicated or out of order"

    by_id = {f"127.0.0.1:{w.port}": w for w in workers}
    src_worker = by_id[task_states(a, src)[0][1]]
    sink_worker = by_id[task_states(a, sink)[0][1]]
    assert src_worker is not sink_worker, "the group put both tasks on one worker"
    [src_run], [sink_run] = task_runs(src_worker, src), task_runs(sink_worker, sink)
    src_executor = executor_of(int(src_run["pid"]), src_worker)
    sink_executor = executor_of(int(sink_run["pid"]), sink_worker)
    for worker in workers:
        assert worker.process is not None
        assert str(worker.process.pid) not in (src_executor["parent"], sink_executor["parent"])
    assert src_executor["app-id"] != sink_executor["app-id"], "one application per kconnect worker"

    apps = {app["id"]: app for app in spark_cluster.state()["activeapps"]}
    for executor in (src_executor, sink_executor):
        app = apps[executor["app-id"]]
        assert (app["name"], app["state"], app["cores"]) == ("kconnect-worker", "RUNNING", 1), app


@pytest.mark.timeout(600)  # two Spark applications and a replacement cluster worker on a busy machine
def test_a_lost_cluster_worker_fails_its_task_and_a_restart_through_the_other_worker_loses_nothing(
    spark_cluster: Any, workers: list[WorkerProcess], tmp_path: Path, unique_topic: str
) -> None:
    a, b = workers
    source_file, sink_file = tmp_path / "in.txt", tmp_path / "out.txt"
    source_file.write_text(lines(0, 2000), encoding="utf-8")
    create(a, "src", {"connector.class": "FileStreamSource", "file": str(source_file), "topic": unique_topic})
    create(
        b,
        "distributed-cluster-sink",
        {"connector.class": "FileStreamSink", "file": str(sink_file), "topics": unique_topic},
    )
    for worker in workers:
        worker.wait_for("the source RUNNING", lambda w=worker: all_tasks_in("RUNNING", "src", 1)(w), 180)
        worker.wait_for(
            "the sink RUNNING",
            lambda w=worker: all_tasks_in("RUNNING", "distributed-cluster-sink", 1)(w),
            180,
        )
    a.wait_for("lines in the sink", lambda: len(read_lines(sink_file)) > 0, 180)
    by_id = {f"127.0.0.1:{w.port}": w for w in workers}
    src_worker = by_id[task_states(a, "src")[0][1]]
    [other] = [w for w in workers if w is not src_worker]
    [run] = task_runs(src_worker, "src")
    executor = executor_of(int(run["pid"]), src_worker)
    [victim] = [d for d in spark_cluster.workers if str(d.process.pid) == executor["parent"]]

    victim.kill()  # the cluster worker, the source's executor and its Python worker, at once

    for worker in workers:  # every kconnect worker reads the same status from the status topic
        worker.wait_for("the source FAILED", lambda w=worker: task_states(w, "src")[0][0] == "FAILED", 120)
    trace = other.status("src")["tasks"][0]["trace"]
    assert trace.startswith("The Spark executor running task src-0 was lost; Spark: ExecutorLostFailure ("), (
        trace
    )
    assert "Reason: worker lost" in trace.splitlines()[0], trace
    assert task_states(other, "distributed-cluster-sink")[0][0] == "RUNNING", (
        "the other application's task must keep running"
    )
    assert task_runs(src_worker, "src") == [run], "Spark ran the task again behind the worker's back"

    with source_file.open("a", encoding="utf-8") as f:
        f.write(lines(2000, 4000))
    # Through the worker that does not run the task: it forwards to the leader, the owner restarts.
    response = other.request("POST", "/connectors/src/restart?includeTasks=true&onlyFailed=true")
    assert response.status_code == 202, response.text
    spark_cluster.start_worker()  # a replacement joins; the master gives the application its core
    spark_cluster.wait_for_workers(2)
    for worker in workers:
        worker.wait_for("the source RUNNING", lambda w=worker: all_tasks_in("RUNNING", "src", 1)(w), 180)
    expected = set(read_lines(source_file))
    a.wait_for("all 4000 lines in the sink", lambda: expected <= set(read_lines(sink_file)), 180)
    assert set(read_lines(sink_file)) == expected
    [_, rerun] = task_runs(src_worker, "src")
    assert executor_of(int(rerun["pid"]), src_worker)["parent"] == str(spark_cluster.workers[-1].process.pid)
