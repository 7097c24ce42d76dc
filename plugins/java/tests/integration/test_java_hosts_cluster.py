"""A Java host whose executor JVM dies, on a real Spark standalone cluster (`scripts/spark_cluster.py`:
two one-core cluster workers): four ``CountingSourceConnector`` tasks run in two Java hosts, one per
executor JVM; SIGKILL of one executor JVM fails the two tasks it hosted with Spark's lost-executor
reason while the other host's two run on, and a restart brings them back on the executor the
cluster worker starts in its place.
"""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path
from typing import Any

import pytest

from plugins.java.tests.integration.counting_plugin import CONNECTOR, counting_plugin_path
from plugins.spark.tests.integration.test_spark_cluster import EXECUTOR_BACKEND, ancestors, cluster_worker
from tests.worker_process import WorkerProcess

pytestmark = pytest.mark.integration

STRING = "org.apache.kafka.connect.storage.StringConverter"


def _task_pids(worker: WorkerProcess, name: str) -> dict[int, int]:
    """The JVM each task of `name` last ran in, from the worker's log."""
    pattern = re.compile(
        rf"Task {re.escape(name)}-(\d+) \(generation \d+\) runs in Spark's executor JVM process (\d+) "
    )
    return {int(m[1]): int(m[2]) for m in pattern.finditer(worker.log_path.read_text(errors="replace"))}


def _states(worker: WorkerProcess, name: str) -> dict[int, dict[str, Any]]:
    return {task["id"]: task for task in worker.status(name)["tasks"]}


def test_a_dead_executor_jvm_fails_the_java_tasks_it_hosted_and_no_other(
    spark_cluster: Any, start_worker: Any, tmp_path: Path, unique_topic: str
) -> None:
    props = {
        "plugin.path": str(counting_plugin_path(tmp_path)),
        "key.converter": STRING,
        "value.converter": STRING,
    }
    worker = cluster_worker(start_worker, spark_cluster, props)
    # Until the executors register, Spark's slots are unknown and each task would open a host.
    worker.wait_for("Spark's two slots", lambda: worker.get("/executor").json()["slots"] == 2, timeout=180)
    config = {"connector.class": CONNECTOR, "tasks.max": "4", "topic": unique_topic, "records.per.task": "50"}
    assert worker.request("PUT", "/connectors/counting/config", config).status_code == 201
    worker.wait_for_state("counting", "RUNNING", tasks=4, timeout=240, fail_fast=True)
    worker.wait_for("every task's JVM in the log", lambda: len(_task_pids(worker, "counting")) == 4)
    pids = _task_pids(worker, "counting")
    assert len(set(pids.values())) == 2, f"two Java hosts, one per one-core executor: {pids}"
    victim = pids[0]
    assert EXECUTOR_BACKEND in ancestors(victim)[0][1]
    hosted = sorted(t for t, pid in pids.items() if pid == victim)
    others = sorted(t for t, pid in pids.items() if pid != victim)

    os.kill(victim, signal.SIGKILL)

    def hosted_failed() -> bool:
        states = _states(worker, "counting")
        return all(states[t]["state"] == "FAILED" for t in hosted)

    worker.wait_for("the dead JVM's tasks to fail", hosted_failed, timeout=180)
    states = _states(worker, "counting")
    for task in hosted:
        assert states[task]["trace"].startswith(
            f"The Spark executor running task counting-{task} was lost; Spark: ExecutorLostFailure ("
        ), states[task]["trace"]
    assert [states[t]["state"] for t in others] == ["RUNNING", "RUNNING"]

    restart = worker.request("POST", "/connectors/counting/restart?includeTasks=true&onlyFailed=true")
    assert restart.status_code in (202, 204), restart.text
    worker.wait_for_state("counting", "RUNNING", tasks=4, timeout=240, fail_fast=True)
    assert all(_task_pids(worker, "counting")[t] != victim for t in hosted)
