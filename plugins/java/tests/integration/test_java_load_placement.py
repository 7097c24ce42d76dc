"""Java tasks are placed by the measured load of their hosts, as Python tasks are, on a real worker
and real Spark.

A Java host measures the CPU time of its own thread group: its tasks' threads and the threads they
start (``HostLoad.java``), and reports it every second as a Python host does. On ``local[2]`` a busy
Java task (``CountingSourceConnector`` with ``busy=true``: a poll that keeps a core busy) opens Java
host 1, an idle one host 2; two more idle tasks join host 2, and a second busy task then goes to
host 2 too, though it runs three tasks and host 1 one. Placed by count, the two busy tasks would
share host 1 while host 2 idled. Both hosts are threads of one JVM here (local Spark's executor is
the worker's), so the figures also show that a host counts its own threads, not the JVM's.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from plugins.java.tests.integration.counting_plugin import CONNECTOR, counting_plugin_path
from plugins.java.tests.integration.java_worker import java_worker
from plugins.spark.tests.integration.test_load_placement import (
    REPORTED_S,
    busy_task_joined_the_idle_host,
    host_of,
)
from tests.integration.harness import wait_until
from tests.worker_process import WorkerProcess

pytestmark = pytest.mark.integration

STRING = "org.apache.kafka.connect.storage.StringConverter"
#: A host running a busy task reports more than this share of a core, an idle one less (a few
#: hundredths), even while a full test run shares this machine's two cores.
BUSY = 0.15


@pytest.fixture
def worker(tmp_path: Path, kafka_bootstrap: str) -> Iterator[WorkerProcess]:
    """A standalone worker on ``local[2]``: two Java hosts open before Java tasks share one."""
    with java_worker(
        tmp_path, kafka_bootstrap, str(counting_plugin_path(tmp_path)), STRING, "local[2]"
    ) as ours:
        yield ours


def create(worker: WorkerProcess, name: str, busy: bool) -> None:
    """A one-task counting connector, busy or idle once its 10 records are out; waits until it runs
    and the hosts have reported their load since."""
    config = {
        "connector.class": CONNECTOR,
        "tasks.max": "1",
        "topic": f"load-{uuid.uuid4().hex[:8]}",
        "records.per.task": "10",
        "busy": str(busy).lower(),
    }
    response = worker.request("PUT", f"/connectors/{name}/config", config)
    assert response.status_code == 201, response.text
    worker.wait_for_state(name, "RUNNING", tasks=1, timeout=120, fail_fast=True)
    time.sleep(REPORTED_S)


def test_a_busy_java_task_joins_the_idle_java_host_though_it_runs_more_tasks(worker: WorkerProcess) -> None:
    create(worker, "busy-1", busy=True)
    create(worker, "idle-1", busy=False)

    def hosts_measured() -> bool:
        placement: dict[str, Any] = worker.get("/executor").json()
        busy, idle = host_of(placement, "busy-1"), host_of(placement, "idle-1")
        return busy["id"] != idle["id"] and (busy["cpu"] or 0) > BUSY and idle["cpu"] is not None

    wait_until("both Java hosts to report their load", hosts_measured, worker, 30)
    idle_cpu = host_of(worker.get("/executor").json(), "idle-1")["cpu"]
    assert idle_cpu < BUSY, f"the idle host counts the busy host's thread: {idle_cpu}"

    for name in ("idle-2", "idle-3"):
        create(worker, name, busy=False)
    create(worker, "busy-2", busy=True)

    hot, cool, placement = busy_task_joined_the_idle_host(worker)
    assert hot["cpu"] > BUSY and cool["cpu"] > BUSY, f"each busy task has a host of its own: {placement}"
