"""Side-by-side footprint of many small connectors: kconnect vs Java Kafka Connect, one worker each.

For each engine, one worker is started on the same real broker, then FileStreamSource connectors
(1 task each, 1,000 lines each, all into one fresh topic) are created through REST in steps up to
the largest count. At each step the script waits until every task is RUNNING and every record of
the connectors created so far is in the topic, then reads the resident memory of the worker's whole
process tree (for kconnect: the worker, Spark's JVM and every Python worker Spark started).

    python benchmarks/task_footprint.py                       # counts 1,10,50,100,200
    python benchmarks/task_footprint.py --counts 1,10 --engines kconnect

Writes benchmarks/results/task_footprint.json and .png (memory and time to RUNNING against tasks).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from kconnect_testkit.worker import wait_until

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "scripts"))
from engines import process_tree, stop_process  # noqa: E402
from file_pipeline import free_port, kconnect_command, write_worker_file  # noqa: E402
from kafka_broker import KafkaBroker, java_connect_command  # noqa: E402

LINES_PER_CONNECTOR = 1000


def tree_rss_mb(pid: int) -> float:
    """Resident memory of `pid` and all its descendants, in MiB (from /proc)."""
    total_pages = 0
    for current in process_tree(pid):
        try:
            total_pages += int((Path("/proc") / str(current) / "statm").read_text().split()[1])
        except OSError:
            continue
    return total_pages * os.sysconf("SC_PAGE_SIZE") / 2**20


async def topic_records(bootstrap: str, topic: str) -> int:
    """Records in `topic` (sum of end offsets)."""
    from aiokafka import AIOKafkaConsumer
    from aiokafka.structs import TopicPartition

    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap)
    await consumer.start()
    try:
        partitions = consumer.partitions_for_topic(topic) or set()
        if not partitions:
            await consumer._client.force_metadata_update()  # a topic created a moment ago
            partitions = consumer.partitions_for_topic(topic) or set()
        ends = await consumer.end_offsets([TopicPartition(topic, p) for p in partitions])
        return int(sum(ends.values()))
    finally:
        await consumer.stop()


def wait(what: str, check: Any, timeout: float) -> None:
    """Poll `check` until true (the testkit's wait); AssertionError naming `what` if it never is."""
    wait_until(what, check, timeout)


def run_engine(engine: str, broker: KafkaBroker, counts: list[int], work: Path) -> list[dict[str, Any]]:
    """Start one engine's worker, grow it to each count of connectors, measure at each step."""
    out = work / engine
    out.mkdir(parents=True, exist_ok=True)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    topic = f"footprint-{engine}-{int(time.time() * 1000)}"
    worker = write_worker_file(out, bootstrap=broker.bootstrap_servers, rest_port=port)
    if engine == "kconnect":
        command = kconnect_command(worker)
    else:
        command = java_connect_command(worker, heap="1g")
    log = (out / "worker.log").open("w")
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=out)
    steps: list[dict[str, Any]] = []
    try:
        wait("REST", lambda: httpx.get(url + "/connectors", timeout=5).status_code == 200, 120)
        created = 0
        for count in counts:
            started = time.monotonic()
            while created < count:
                source = out / f"in-{created}.txt"
                source.write_text("".join(f"c{created} line {i}\n" for i in range(LINES_PER_CONNECTOR)))
                config = {
                    "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector",
                    "tasks.max": "1",
                    "file": str(source),
                    "topic": topic,
                }
                response = httpx.post(
                    url + "/connectors", json={"name": f"c{created}", "config": config}, timeout=60
                )
                response.raise_for_status()
                created += 1

            def all_running(count: int = count) -> bool:
                body = httpx.get(url + "/connectors?expand=status", timeout=30).json()
                states = [t["state"] for c in body.values() for t in c["status"]["tasks"]]
                return len(states) == count and all(s == "RUNNING" for s in states)

            wait(f"{count} tasks RUNNING", all_running, 300)
            running_s = time.monotonic() - started
            expected = count * LINES_PER_CONNECTOR
            wait(
                f"{expected} records",
                lambda expected=expected: (
                    asyncio.run(topic_records(broker.bootstrap_servers, topic)) >= expected
                ),
                300,
            )
            time.sleep(3)  # let memory settle after the burst
            step = {
                "tasks": count,
                "rss_mb": round(tree_rss_mb(process.pid), 1),
                "processes": len(process_tree(process.pid)),
                "to_running_s": round(running_s, 2),
                "records": asyncio.run(topic_records(broker.bootstrap_servers, topic)),
            }
            print(f"  {engine:8s} {step}", flush=True)
            steps.append(step)
    finally:
        stop_process(process)
        log.close()
    return steps


def _chart(results: dict[str, list[dict[str, Any]]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for engine, steps in results.items():
        tasks = [s["tasks"] for s in steps]
        left.plot(tasks, [s["rss_mb"] for s in steps], marker="o", label=engine)
        right.plot(tasks, [s["to_running_s"] for s in steps], marker="o", label=engine)
    left.set_title("resident memory of the worker's processes, MiB")
    right.set_title("time until each step's new tasks are RUNNING, s")
    for axis in (left, right):
        axis.set_xlabel("FileStreamSource connectors (1 task each)")
        axis.legend()
        axis.set_ylim(bottom=0)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def run_footprint(
    broker: KafkaBroker, rounds: int, progress: Any, counts: tuple[int, ...] = (1, 100)
) -> dict[str, Any]:
    """Scenario 5 of the suite: raw figures per connector count and engine, `rounds` workers each."""
    raw: dict[str, dict[str, dict[str, list[float]]]] = {}
    with tempfile.TemporaryDirectory(prefix="kconnect-footprint-") as tmp:
        for r in range(rounds):
            for engine in ("java", "kconnect"):
                progress(
                    f"footprint, round {r + 1}/{rounds}: {engine}, {', '.join(map(str, counts))} connectors"
                )
                for step in run_engine(engine, broker, list(counts), Path(tmp) / str(r)):
                    case = f"{step['tasks']} connector{'s' if step['tasks'] > 1 else ''}"
                    figures = raw.setdefault(case, {}).setdefault(engine, {})
                    figures.setdefault("rss_mb", []).append(step["rss_mb"])
                    figures.setdefault("to_running_s", []).append(step["to_running_s"])
    return raw


def main() -> int:
    """Run each engine and write the results."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--counts", default="1,10,50,100,200")
    parser.add_argument("--engines", default="kconnect,java")
    args = parser.parse_args()
    counts = sorted(int(c) for c in args.counts.split(","))
    results: dict[str, list[dict[str, Any]]] = {}
    with tempfile.TemporaryDirectory(prefix="kconnect-footprint-") as tmp, KafkaBroker(heap="1g") as broker:
        for engine in args.engines.split(","):
            print(f"== {engine}", flush=True)
            results[engine] = run_engine(engine, broker, counts, Path(tmp))
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    report = {"machine": f"{platform.machine()}, {os.cpu_count()} cores", "results": results}
    (out / "task_footprint.json").write_text(json.dumps(report, indent=2) + "\n")
    _chart(results, out / "task_footprint.png")
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
