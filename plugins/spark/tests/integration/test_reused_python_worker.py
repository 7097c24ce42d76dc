"""A task that fails while starting in a Python worker Spark reused still ends FAILED with its trace.

Spark keeps a finished task's Python worker process and runs the next Python task in it
(``spark.python.worker.reuse``, on by default), so whatever a Spark task hosting connector tasks
leaves behind in its process meets the next host. Issue 16 saw a sink stay UNASSIGNED with an
empty trace after exactly this sequence: a worker whose ``value.converter`` is not installed; a
source fails (its host closes), then a sink starts in a new host that Spark runs in the same
Python process, fails at once with the same converter error, and its status must say so.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.integration.harness import wait_until
from tests.integration.test_task_failures import sink, source, wait_task_state

pytestmark = pytest.mark.integration

MISSING = "com.example.NotInstalledConverter"
ERROR = (
    f"value.converter: Failed to find any class that implements Converter and which name matches {MISSING}"
)


def host_pids(log: str) -> dict[str, str]:
    """Python worker pid of each hosting Spark task: {host number: pid}."""
    return dict(re.findall(r"Spark task host (\d+) runs in Spark's Python worker process (\d+)", log))


def test_a_task_failing_at_start_in_a_reused_python_worker_ends_failed_with_its_trace(
    start_worker: Any, tmp_path: Path, unique_topic: str
) -> None:
    # local[1]: one task slot, so the sink's host gets the slot, and the Python worker, the source's had.
    worker = start_worker({"value.converter": MISSING, "spark.master": "local[1]"})
    (tmp_path / "in.txt").write_text("a line\n", encoding="utf-8")
    source(worker, "source", tmp_path / "in.txt", unique_topic)
    assert ERROR in wait_task_state(worker, "source", "FAILED")["trace"]
    wait_until(
        "the source's Spark task to end", lambda: worker.get("/executor").json()["hosts"] == [], worker
    )

    sink(worker, "reused-worker-sink", tmp_path / "out.txt", unique_topic)
    status = wait_task_state(worker, "reused-worker-sink", "FAILED", timeout=30)
    assert ERROR in status["trace"], status

    pids = host_pids(worker.log_path.read_text(errors="replace"))
    assert len(pids) == 2 and pids["1"] == pids["2"], f"Spark ran both hosts in one Python worker: {pids}"
