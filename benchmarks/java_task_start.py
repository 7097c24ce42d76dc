"""How long a Java connector's tasks take to start: create -> each task RUNNING in status.

One broker and one standalone worker (embedded local Spark, ``local[8]``: before Java tasks
shared hosts, each needed a slot of its own) with the test connector ``CountingSourceConnector``
(``plugins/java/tests/integration/multi_task``, compiled here against Kafka's jars, with its
ServiceLoader manifest) on ``plugin.path``. Each round creates a connector with ``tasks.max=4``,
polls ``GET /connectors/{name}/status`` every 10 ms and notes when each task is first RUNNING;
then a second such connector while the first runs (its tasks join the first one's Java hosts);
then deletes both. The first round pays the worker's first Spark job, the first scan of
``plugin.path`` and JIT warm-up; the table gives every round and the median of the later ones per
task. ``GET /executor`` says how many Spark tasks host the eight. Nothing here fails on a figure.

    .tox/tests/bin/python benchmarks/java_task_start.py --rounds 5
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from kconnect_testkit.broker import KafkaBroker  # noqa: E402

from plugins.java.tests.integration.counting_plugin import CONNECTOR, counting_plugin_path  # noqa: E402
from tests.worker_process import WorkerProcess  # noqa: E402

TASKS = 4


def start(worker: WorkerProcess, name: str) -> list[float]:
    """Create connector `name`; seconds from the create to each task's first RUNNING."""
    config = {"connector.class": CONNECTOR, "tasks.max": str(TASKS), "topic": name, "records.per.task": "10"}
    started = time.monotonic()
    response = httpx.put(f"{worker.url}/connectors/{name}/config", json=config, timeout=30)
    response.raise_for_status()
    running: dict[int, float] = {}
    while len(running) < TASKS:
        if time.monotonic() - started > 180:
            raise RuntimeError(f"tasks not RUNNING after 180 s: {worker.log_tail()}")
        status = httpx.get(f"{worker.url}/connectors/{name}/status", timeout=30).json()
        for task in status.get("tasks", []):
            if task["state"] == "FAILED":
                raise RuntimeError(task.get("trace", ""))
            if task["state"] == "RUNNING" and task["id"] not in running:
                running[task["id"]] = time.monotonic() - started
        time.sleep(0.01)
    return [running[t] for t in range(TASKS)]


def one_round(worker: WorkerProcess, stem: str) -> tuple[list[float], list[float], int]:
    """A first connector's start, a second's while the first runs, and the Spark tasks hosting the
    eight tasks; both deleted after."""
    names = [f"{stem}-first", f"{stem}-second"]
    first, second = start(worker, names[0]), start(worker, names[1])
    placement = httpx.get(f"{worker.url}/executor", timeout=30).json()
    hosts = sum(1 for host in placement["hosts"] if any(t["connector"] in names for t in host["tasks"]))
    for name in names:
        httpx.delete(f"{worker.url}/connectors/{name}", timeout=60).raise_for_status()
        while httpx.get(f"{worker.url}/connectors/{name}", timeout=30).status_code != 404:
            time.sleep(0.05)
    time.sleep(2)  # the deleted tasks' Spark tasks end
    return first, second, hosts


def main() -> None:
    """Run the rounds and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--workdir", type=Path, help="keep the worker's files (its log) here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kconnect-java-start-") as tmp, KafkaBroker() as broker:
        folder = args.workdir or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        props = {
            "bootstrap.servers": broker.bootstrap_servers,
            "offset.storage.file.filename": str(folder / "offsets"),
            "key.converter": "org.apache.kafka.connect.storage.StringConverter",
            "value.converter": "org.apache.kafka.connect.storage.StringConverter",
            "plugin.path": str(counting_plugin_path(folder)),
            "spark.master": f"local[{2 * TASKS}]",
        }
        worker = WorkerProcess(folder, props).start(timeout=300)
        try:
            rows = []
            print("| round | first connector: task 0..3 | second connector: task 0..3 | Spark tasks |")
            for round_ in range(args.rounds):
                first, second, hosts = one_round(worker, f"counting-{round_}")
                rows.append(first + second)
                print(f"| {round_ + 1} | {_cells(first)} | {_cells(second)} | {hosts} |", flush=True)
            later = rows[1:] or rows
            medians = [statistics.median(r[t] for r in later) for t in range(2 * TASKS)]
            medians_row = f"{_cells(medians[:TASKS])} | {_cells(medians[TASKS:])}"
            print(f"| median of rounds 2-{len(rows)} | {medians_row} | |")
        finally:
            worker.stop()


def _cells(seconds: list[float]) -> str:
    return " ".join(f"{s:.2f}" for s in seconds)


if __name__ == "__main__":
    main()
