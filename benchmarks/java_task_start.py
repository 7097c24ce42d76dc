"""How long a Java connector's tasks take to start: create -> each task RUNNING in status.

One broker and one standalone worker (embedded local Spark, ``local[4]``: before Java tasks
shared hosts, each needed a slot of its own) with the test connector ``CountingSourceConnector``
(``plugins/java/tests/integration/multi_task``, compiled here against Kafka's jars, with its
ServiceLoader manifest) on ``plugin.path``. Each round creates a connector with ``tasks.max=4``,
polls ``GET /connectors/{name}/status`` every 10 ms and notes when each task is first RUNNING,
then deletes it. The first round pays the worker's first Spark job, the first scan of
``plugin.path`` and JIT warm-up; the table gives every round and the median of the later ones per
task. ``GET /executor`` after each start says how many Spark tasks host the four. Nothing here
fails on a figure.

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


def one_round(worker: WorkerProcess, name: str) -> tuple[list[float], int]:
    """Seconds from create to each task's first RUNNING, and the Spark tasks hosting them."""
    config = {"connector.class": CONNECTOR, "tasks.max": str(TASKS), "topic": name, "records.per.task": "10"}
    started = time.monotonic()
    response = httpx.put(f"{worker.url}/connectors/{name}/config", json=config, timeout=30)
    response.raise_for_status()
    running: dict[int, float] = {}
    while len(running) < TASKS:
        if time.monotonic() - started > 120:
            raise RuntimeError(f"tasks not RUNNING after 120 s: {worker.log_tail()}")
        status = httpx.get(f"{worker.url}/connectors/{name}/status", timeout=30).json()
        for task in status.get("tasks", []):
            if task["state"] == "FAILED":
                raise RuntimeError(task.get("trace", ""))
            if task["state"] == "RUNNING" and task["id"] not in running:
                running[task["id"]] = time.monotonic() - started
        time.sleep(0.01)
    placement = httpx.get(f"{worker.url}/executor", timeout=30).json()
    hosts = sum(1 for host in placement["hosts"] if any(t["connector"] == name for t in host["tasks"]))
    httpx.delete(f"{worker.url}/connectors/{name}", timeout=60).raise_for_status()
    while httpx.get(f"{worker.url}/connectors/{name}", timeout=30).status_code != 404:
        time.sleep(0.05)
    time.sleep(2)  # the deleted tasks' Spark tasks end
    return [running[t] for t in range(TASKS)], hosts


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
            "spark.master": "local[4]",
        }
        worker = WorkerProcess(folder, props).start(timeout=300)
        try:
            rows = []
            for round_ in range(args.rounds):
                times, hosts = one_round(worker, f"counting-{round_}")
                rows.append(times)
                cells = " | ".join(f"{t:.2f}" for t in times)
                print(f"| {round_ + 1} | {cells} | {hosts} |", flush=True)
            later = rows[1:] or rows
            medians = " | ".join(f"{statistics.median(r[t] for r in later):.2f}" for t in range(TASKS))
            print(f"| median of rounds 2-{len(rows)} | {medians} | |")
        finally:
            worker.stop()


if __name__ == "__main__":
    main()
