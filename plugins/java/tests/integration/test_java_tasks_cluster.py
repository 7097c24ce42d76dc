"""Java tasks on a real Spark standalone cluster (`scripts/spark_cluster.py`): Kafka's FileStreamSource
and FileStreamSink (``connect-file`` 4.3.1 on ``plugin.path``) copy a file through a topic, and
each task runs in a Spark executor JVM (``CoarseGrainedExecutorBackend``) under a cluster worker,
not in the kconnect worker's driver: the process that opened the task's control connection is
that JVM itself (a Java task has no Python worker).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from kconnect_testkit.plugin_jars import fetch_connect_file

from plugins.spark.tests.integration.test_spark_cluster import EXECUTOR_BACKEND, ancestors, cluster_worker
from tests.integration.harness import wait_until
from tests.worker_process import WorkerProcess

pytestmark = pytest.mark.integration

FILE = "org.apache.kafka.connect.file."
STRING = "org.apache.kafka.connect.storage.StringConverter"


def _java_runs(worker: WorkerProcess, name: str) -> list[int]:
    """The pids of the JVMs that ran task 0 of `name`, from the worker's log."""
    pattern = re.compile(
        rf"Task {re.escape(name)}-0 \(generation \d+\) runs in Spark's executor JVM process (\d+) "
    )
    return [int(match[1]) for match in pattern.finditer(worker.log_path.read_text(errors="replace"))]


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines() if path.is_file() else []


def test_java_tasks_run_in_the_clusters_executor_jvms(
    spark_cluster: Any, start_worker: Any, tmp_path: Path, unique_topic: str
) -> None:
    props = {
        "plugin.path": str(fetch_connect_file("4.3.1")),
        "key.converter": STRING,
        "value.converter": STRING,
    }
    worker = cluster_worker(start_worker, spark_cluster, props)
    source_file, sink_file = tmp_path / "in.txt", tmp_path / "out.txt"
    source_file.write_text("".join(f"cluster line {i}\n" for i in range(2000)), encoding="utf-8")
    java = {"connector.plugin.version": "4.3.1"}
    configs = {
        "src": {
            "connector.class": FILE + "FileStreamSourceConnector",
            "file": str(source_file),
            "topic": unique_topic,
        },
        "sink": {
            "connector.class": FILE + "FileStreamSinkConnector",
            "file": str(sink_file),
            "topics": unique_topic,
        },
    }
    for name, config in configs.items():
        response = worker.request("PUT", f"/connectors/{name}/config", {**config, **java})
        assert response.status_code == 201, response.text
    for name in configs:
        worker.wait_for_state(name, "RUNNING", tasks=1, timeout=180, fail_fast=True)
    wait_until("all 2000 lines in the sink", lambda: _lines(sink_file) == _lines(source_file), worker, 180)

    assert worker.process is not None
    for name in configs:
        [pid] = _java_runs(worker, name)
        chain = ancestors(pid)
        assert EXECUTOR_BACKEND in chain[0][1], f"task {name} runs in {chain[0]}"
        assert worker.process.pid not in [p for p, _ in chain], f"task {name} runs under the driver"
