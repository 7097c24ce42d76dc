"""The control plane at 10,000 connectors: REST answers and a distributed worker's start-up, kconnect vs Java.

For each engine, one after the other on the same real broker, one distributed worker (a group and
internal topics of its own, Kafka's sample ``connect-distributed.properties`` values) gets N
FileStreamSource connectors through ``POST /connectors`` with ``"initial_state": "STOPPED"``
(KIP-980), so the figures are the control plane's alone: no connector instance or task runs. Then:

- ``create_per_s``: connectors created per second (8 clients at once);
- ``list_ms``, ``expand_ms``, ``status_ms``: the median of 5 ``GET /connectors``,
  ``GET /connectors?expand=status&expand=info`` (every connector's config, tasks and status) and
  ``GET /connectors/<one>/status``;
- the worker is stopped (SIGTERM) and started again on the same topics: ``restart_rest_s`` from
  launch to the first answer of ``GET /``, ``restart_listed_s`` to the first ``GET /connectors`` that
  lists all N, and ``expand_after_restart_ms`` as above;
- ``rss_mb``: the resident memory of the worker's process tree after the restart.

With ``--start-up``, only the start: the N connectors' records (``connector-<name>`` and a STOPPED
``target-state-<name>``, as a create with ``initial_state`` writes them) are produced straight into a
new config topic, and each engine's worker is started on it `--rounds` times: ``rest_s``,
``listed_s`` (every connector in ``GET /connectors``) and ``stopped_s`` (every status STOPPED in
``?expand=status``) from launch, medians. A minute per engine where the full run takes an hour.

    tox -e bench -- many_connectors.py                         # 10,000 connectors, both engines
    tox -e bench -- many_connectors.py --connectors 1000 --engines kconnect
    tox -e bench -- many_connectors.py --start-up              # start-up only, 3 rounds

Writes docs/performance/many_connectors.{json,md} (start_up.{json,md} with ``--start-up``); prints
progress.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "scripts"))
from engines import process_tree, stop_process  # noqa: E402
from file_pipeline import free_port  # noqa: E402
from kafka_broker import CONNECT_STANDALONE, KafkaBroker, java_connect_command  # noqa: E402
from run_all import measured_commit  # noqa: E402
from task_footprint import tree_rss_mb  # noqa: E402

OUT = HERE.parent / "docs" / "performance"
ENGINES = ("kconnect", "java")
CONNECT_DISTRIBUTED = "org.apache.kafka.connect.cli.ConnectDistributed"
CLIENTS = 8
REPEATS = 5
START_TIMEOUT_S = 600.0


def connector_config(index: int) -> dict[str, str]:
    """The config of connector `index`: a FileStreamSource (both engines have it) that never runs."""
    return {
        "connector.class": "FileStreamSource",
        "tasks.max": "1",
        "file": f"/tmp/many-connectors/input-{index}.txt",
        "topic": f"many-connectors-{index % 100}",
    }


def worker_props(engine: str, bootstrap: str, port: int, stem: str) -> dict[str, str]:
    """A distributed worker's keys (Kafka's sample file's values), its group and topics its own."""
    return {
        "bootstrap.servers": bootstrap,
        "listeners": f"http://127.0.0.1:{port}",
        "group.id": f"{stem}-{engine}",
        "config.storage.topic": f"{stem}-{engine}-configs",
        "offset.storage.topic": f"{stem}-{engine}-offsets",
        "status.storage.topic": f"{stem}-{engine}-status",
        "config.storage.replication.factor": "1",
        "offset.storage.replication.factor": "1",
        "status.storage.replication.factor": "1",
        "key.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "offset.flush.interval.ms": "10000",
    }


class Worker:
    """One engine's distributed worker process, restartable on the same file and topics."""

    def __init__(self, engine: str, folder: Path, props: dict[str, str], port: int) -> None:
        self.engine = engine
        self.url = f"http://127.0.0.1:{port}"
        self.folder = folder
        self.file = folder / f"{engine}-worker.properties"
        self.file.write_text("".join(f"{key}={value}\n" for key, value in props.items()))
        self.process: subprocess.Popen[bytes] | None = None
        self.started = 0.0

    def command(self) -> list[str]:
        """``kconnect distributed FILE`` or Java's ``ConnectDistributed FILE``."""
        if self.engine == "kconnect":
            cli = [sys.executable, "-m", "kconnect_rest.cli", "--log-level", "WARNING"]
            return [*cli, "distributed", str(self.file)]
        command = java_connect_command(self.file, heap="2g")
        command[command.index(CONNECT_STANDALONE)] = CONNECT_DISTRIBUTED
        return command

    def start(self) -> None:
        """Launch the process; `started` is when."""
        log = (self.folder / f"{self.engine}-worker.log").open("ab")
        self.started = time.monotonic()
        self.process = subprocess.Popen(self.command(), stdout=log, stderr=subprocess.STDOUT, cwd=self.folder)

    def wait(self, what: str, check: Callable[[], bool]) -> float:
        """Seconds from launch until `check` holds; RuntimeError if the process exits or it does not
        hold within `START_TIMEOUT_S` of this call."""
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.engine} exited; see {self.folder}/{self.engine}-worker.log")
            try:
                if check():
                    return time.monotonic() - self.started
            except httpx.HTTPError:
                pass
            time.sleep(0.02)
        raise RuntimeError(f"{self.engine}: {what} not within {START_TIMEOUT_S:.0f} s")

    def stop(self) -> None:
        """SIGTERM and wait (SIGKILL after a minute)."""
        if self.process is None:
            return
        stop_process(self.process)
        self.process = None


async def create_all(url: str, count: int, progress: Callable[[str], None]) -> float:
    """Create connectors 0..count-1 STOPPED with `CLIENTS` clients at once; connectors per second."""
    queue: asyncio.Queue[int] = asyncio.Queue()
    for index in range(count):
        queue.put_nowait(index)
    done = 0

    async def client(http: httpx.AsyncClient) -> None:
        nonlocal done
        while not queue.empty():
            index = queue.get_nowait()
            body = {"name": f"c{index:05d}", "config": connector_config(index), "initial_state": "STOPPED"}
            for _attempt in range(20):
                response = await http.post(f"{url}/connectors", json=body)
                if response.status_code == 201:
                    break
                if response.status_code != 409:  # 409: a rebalance is in progress: try again
                    raise RuntimeError(f"creating {body['name']}: {response.status_code} {response.text}")
                await asyncio.sleep(0.5)
            else:
                raise RuntimeError(f"creating {body['name']}: still 409 after 20 tries: {response.text}")
            done += 1
            if done % 1000 == 0:
                progress(f"  {done:,} connectors created")

    started = time.monotonic()
    async with httpx.AsyncClient(timeout=120) as http:
        await asyncio.gather(*(client(http) for _ in range(CLIENTS)))
    return count / (time.monotonic() - started)


def median_ms(url: str, path: str, check: Callable[[httpx.Response], None]) -> float:
    """The median time of `REPEATS` ``GET path`` calls (after one to warm up), in ms."""
    times = []
    with httpx.Client(timeout=120) as http:
        for attempt in range(REPEATS + 1):
            started = time.perf_counter()
            response = http.get(url + path)
            elapsed = time.perf_counter() - started
            response.raise_for_status()
            check(response)
            if attempt:
                times.append(elapsed * 1000)
    return statistics.median(times)


def listed(url: str, count: int) -> bool:
    """Whether ``GET /connectors`` answers with all `count` connectors."""
    response = httpx.get(url + "/connectors", timeout=30)
    return response.status_code == 200 and len(response.json()) == count


def run_engine(
    engine: str, broker: KafkaBroker, count: int, folder: Path, progress: Callable[[str], None]
) -> dict[str, Any]:
    """Every figure of one engine at `count` connectors."""
    port = free_port()
    stem = f"many-{time.monotonic_ns()}"
    worker = Worker(engine, folder, worker_props(engine, broker.bootstrap_servers, port, stem), port)
    figures: dict[str, Any] = {}

    def all_expanded(response: httpx.Response) -> None:
        body = response.json()
        assert len(body) == count, f"{engine}: {len(body)} connectors expanded, {count} expected"
        some = body["c00000"]
        assert some["status"]["connector"]["state"] == "STOPPED", some
        assert some["info"]["config"]["connector.class"] == "FileStreamSource", some

    def all_listed(response: httpx.Response) -> None:
        assert len(response.json()) == count

    def stopped(response: httpx.Response) -> None:
        assert response.json()["connector"]["state"] == "STOPPED"

    worker.start()
    try:
        worker.wait("REST", lambda: httpx.get(worker.url + "/connectors", timeout=5).status_code == 200)
        progress(f"{engine}: creating {count:,} connectors")
        figures["create_per_s"] = asyncio.run(create_all(worker.url, count, progress))
        worker.wait("every connector listed", lambda: listed(worker.url, count))
        figures["list_ms"] = median_ms(worker.url, "/connectors", all_listed)
        expand = "/connectors?expand=status&expand=info"
        worker.wait("every status STOPPED", lambda: _all_stopped(worker.url, count))
        figures["expand_ms"] = median_ms(worker.url, expand, all_expanded)
        figures["expand_bytes"] = len(httpx.get(worker.url + expand, timeout=120).content)
        figures["status_ms"] = median_ms(worker.url, "/connectors/c00042/status", stopped)
        progress(f"{engine}: restarting the worker")
        worker.stop()
        worker.start()
        figures["restart_rest_s"] = worker.wait(
            "REST after the restart", lambda: httpx.get(worker.url + "/", timeout=5).status_code == 200
        )
        figures["restart_listed_s"] = worker.wait(
            "every connector listed after the restart", lambda: listed(worker.url, count)
        )
        worker.wait("every status STOPPED after the restart", lambda: _all_stopped(worker.url, count))
        figures["expand_after_restart_ms"] = median_ms(worker.url, expand, all_expanded)
        assert worker.process is not None
        figures["rss_mb"] = tree_rss_mb(worker.process.pid)
        figures["processes"] = len(process_tree(worker.process.pid))
    finally:
        worker.stop()
    progress(f"{engine}: {json.dumps({k: round(v, 2) for k, v in figures.items()})}")
    return figures


def write_config_topic(bootstrap: str, topic: str, count: int) -> None:
    """Connectors 0..count-1, STOPPED, written into a new compacted config topic as a worker writes them."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for future in admin.create_topics([NewTopic(topic, 1, 1, config={"cleanup.policy": "compact"})]).values():
        future.result()
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 50})
    stopped = json.dumps({"state": "PAUSED", "state.v2": "STOPPED"})
    for index in range(count):
        name = f"c{index:05d}"
        producer.produce(topic, key=f"target-state-{name}", value=stopped)
        config = {**connector_config(index), "name": name}
        producer.produce(topic, key=f"connector-{name}", value=json.dumps({"properties": config}))
        producer.poll(0)
    if producer.flush(60):
        raise RuntimeError(f"config records for {topic} not all written within 60 s")


def start_up_engine(
    engine: str, broker: KafkaBroker, count: int, rounds: int, folder: Path, progress: Callable[[str], None]
) -> dict[str, Any]:
    """Medians over `rounds` starts of one engine's worker on a config topic of `count` connectors."""
    port = free_port()
    stem = f"start-{time.monotonic_ns()}"
    props = worker_props(engine, broker.bootstrap_servers, port, stem)
    write_config_topic(broker.bootstrap_servers, props["config.storage.topic"], count)
    worker = Worker(engine, folder, props, port)
    runs: dict[str, list[float]] = {"rest_s": [], "listed_s": [], "stopped_s": []}
    for attempt in range(rounds):
        worker.start()
        try:
            runs["rest_s"].append(
                worker.wait("REST", lambda: httpx.get(worker.url + "/", timeout=5).status_code == 200)
            )
            runs["listed_s"].append(worker.wait("every connector listed", lambda: listed(worker.url, count)))
            runs["stopped_s"].append(
                worker.wait("every status STOPPED", lambda: _all_stopped(worker.url, count))
            )
        finally:
            worker.stop()
        progress(f"{engine} start {attempt + 1}: " + ", ".join(f"{k} {v[-1]:.1f}" for k, v in runs.items()))
    return {key: statistics.median(values) for key, values in runs.items()} | {"runs": runs}


START_UP_ROWS = (
    ("rest_s", "launch to REST answering, s", "{:,.1f}"),
    ("listed_s", "launch to every connector listed, s", "{:,.1f}"),
    ("stopped_s", "launch to every status STOPPED, s", "{:,.1f}"),
)


def _all_stopped(url: str, count: int) -> bool:
    body = httpx.get(url + "/connectors?expand=status", timeout=120).json()
    return len(body) == count and all(c["status"]["connector"]["state"] == "STOPPED" for c in body.values())


ROWS = (
    ("create_per_s", "connectors created per second (8 clients)", "{:,.0f}"),
    ("list_ms", "`GET /connectors`, ms (median of 5)", "{:,.1f}"),
    ("expand_ms", "`GET /connectors?expand=status&expand=info`, ms", "{:,.0f}"),
    ("expand_bytes", "its body, bytes", "{:,.0f}"),
    ("status_ms", "`GET /connectors/<one>/status`, ms", "{:,.1f}"),
    ("restart_rest_s", "restart: launch to REST answering, s", "{:,.1f}"),
    ("restart_listed_s", "restart: launch to every connector listed, s", "{:,.1f}"),
    ("expand_after_restart_ms", "restart: the expand call, ms", "{:,.0f}"),
    ("rss_mb", "resident memory of the worker's processes, MiB", "{:,.0f}"),
)


def markdown(report: dict[str, Any], rows: tuple[tuple[str, str, str], ...] = ROWS) -> str:
    """The report as a table, engines side by side."""
    engines = list(report["engines"])
    what = "STOPPED connectors on one distributed worker"
    if "rounds" in report:
        what += f", medians of {report['rounds']} starts"
    lines = [
        f"{report['connectors']:,} {what}; commit {report['commit']}, "
        f"{report['date']}, load before the run {report['load']}.",
        "",
        "| figure | " + " | ".join(engines) + " |",
        "|---|" + "---|" * len(engines),
    ]
    for key, label, fmt in rows:
        cells = [fmt.format(report["engines"][engine][key]) for engine in engines]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> int:
    """Run the engines one after the other and write the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connectors", type=int, default=10_000)
    parser.add_argument("--engines", default=",".join(ENGINES))
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument(
        "--start-up", action="store_true", help="only start workers on a written config topic"
    )
    parser.add_argument("--rounds", type=int, default=3, help="starts per engine with --start-up")
    args = parser.parse_args()

    def progress(message: str) -> None:
        print(message, flush=True)

    report: dict[str, Any] = {
        "connectors": args.connectors,
        "commit": measured_commit(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "load": os.getloadavg()[0],
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "engines": {},
    }
    if args.start_up:
        report["rounds"] = args.rounds
    with tempfile.TemporaryDirectory(prefix="kconnect-many-") as tmp, KafkaBroker(heap="1g") as broker:
        for engine in args.engines.split(","):
            folder = Path(tmp) / engine
            folder.mkdir()
            if args.start_up:
                figures = start_up_engine(engine, broker, args.connectors, args.rounds, folder, progress)
            else:
                figures = run_engine(engine, broker, args.connectors, folder, progress)
            report["engines"][engine] = figures
    stem, rows = ("start_up", START_UP_ROWS) if args.start_up else ("many_connectors", ROWS)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{stem}.json").write_text(json.dumps(report, indent=2) + "\n")
    (args.out / f"{stem}.md").write_text(markdown(report, rows))
    print(markdown(report, rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
