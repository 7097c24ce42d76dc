"""Shared Spark tasks are chosen by measured load, not by task count, on a real worker and real Spark.

A standalone worker on ``local[2]`` opens two hosting Spark tasks (Python worker processes), then
places each new task on the one whose process used the least CPU lately (`host_run.place`). A busy
task (`tests.connectors.BusySource`, a poll that keeps a core busy) opens host 1, an idle one host
2; two more idle tasks join host 2, beside the idle one, and a second busy task then goes to host 2
too, though it runs three tasks and host 1 one. Placed by count, the two busy tasks would share one
Python process, and its GIL, while the other idled.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.integration.harness import wait_until
from tests.plugin_package import install_connectors, plugin_env
from tests.worker_process import WorkerProcess

pytestmark = pytest.mark.integration

#: Longer than the hosts' load report interval (`kconnect_spark.remote.LOAD_REPORT_INTERVAL_S`, 1 s),
#: twice: the hosts' figures then include the tasks placed before.
REPORTED_S = 2.5
#: A host running a busy task reports more than this share of a core, an idle one less (a few
#: hundredths), even while a full test run shares this machine's two cores (one gave 0.27 and 0.29).
BUSY = 0.15


def create(worker: WorkerProcess, name: str, connector_class: str) -> None:
    """Create the connector and wait until its task runs, and the hosts have reported their load since."""
    response = worker.request(
        "POST", "/connectors", {"name": name, "config": {"connector.class": connector_class}}
    )
    assert response.status_code == 201, response.text
    worker.wait_for_state(name, "RUNNING", tasks=1, timeout=120)
    time.sleep(REPORTED_S)


def host_of(placement: dict[str, Any], connector: str) -> dict[str, Any]:
    """The `GET /executor` host entry that runs the connector's task 0."""
    return next(h for h in placement["hosts"] if {"connector": connector, "task": 0} in h["tasks"])


def busy_task_joined_the_idle_host(worker: WorkerProcess) -> tuple[dict[str, Any], dict[str, Any], Any]:
    """Assert the placement by load gives: two hosts, ``busy-1`` alone on its own, ``busy-2`` beside the
    three idle tasks; return the two hosts' entries and the whole `GET /executor` answer."""
    placement = worker.get("/executor").json()
    hot, cool = host_of(placement, "busy-1"), host_of(placement, "idle-1")
    assert len(placement["hosts"]) == 2, placement
    assert [t["connector"] for t in hot["tasks"]] == ["busy-1"], placement
    assert sorted(t["connector"] for t in cool["tasks"]) == ["busy-2", "idle-1", "idle-2", "idle-3"], (
        placement
    )
    return hot, cool, placement


def test_a_busy_task_joins_the_idle_python_process_though_it_runs_more_tasks(
    start_worker: Any, tmp_path: Path
) -> None:
    plugin = install_connectors(tmp_path / "plugins")
    worker = start_worker({"spark.master": "local[2]"}, env=plugin_env(plugin))
    create(worker, "busy-1", "BusySource")
    create(worker, "idle-1", "IdleSource")

    def hosts_measured() -> bool:
        placement = worker.get("/executor").json()
        busy, idle = host_of(placement, "busy-1"), host_of(placement, "idle-1")
        return busy["id"] != idle["id"] and (busy["cpu"] or 0) > BUSY and idle["cpu"] is not None

    wait_until("both hosts to report their load", hosts_measured, worker, 30)

    for name in ("idle-2", "idle-3"):
        create(worker, name, "IdleSource")
    create(worker, "busy-2", "BusySource")

    busy_task_joined_the_idle_host(worker)

    def both_busy() -> bool:
        hot, cool, _ = busy_task_joined_the_idle_host(worker)
        return bool(hot["cpu"] > BUSY and cool["cpu"] > BUSY)

    wait_until("each busy task's process to report a busy core of its own", both_busy, worker, 30)
