"""A local kconnect cluster: one Kafka broker and three ``kconnect distributed`` workers on this machine.

    .venv/bin/python scripts/local_cluster.py [--workers 3] [--base-port 8083] [--demo] [--exit]

Starts a single-node Kafka broker (`kafka_broker.KafkaBroker`), writes one worker file per worker
(Kafka's distributed keys: ``group.id``, the three internal topics, ``listeners``) into the output
folder and starts the workers as separate processes, then prints their REST URLs and waits for
Ctrl-C, which stops the workers gracefully and then the broker. ``--demo`` creates a
FileStreamSource and a three-task FileStreamSink through the first worker, waits until every line
arrives and prints which worker runs each task; with ``--exit`` the script then stops the cluster
and exits (0 when every line arrived), which is how the test suite runs it.
"""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from kafka_broker import KafkaBroker

REPO = Path(__file__).resolve().parent.parent
GROUP = "kconnect-local"


def worker_properties(bootstrap: str, port: int) -> str:
    """A distributed worker file: Kafka's keys, loopback listener, short rebalance delay for a laptop."""
    return "\n".join(
        [
            f"bootstrap.servers={bootstrap}",
            f"group.id={GROUP}",
            "key.converter=org.apache.kafka.connect.json.JsonConverter",
            "value.converter=org.apache.kafka.connect.json.JsonConverter",
            "config.storage.topic=kconnect-local-configs",
            "offset.storage.topic=kconnect-local-offsets",
            "status.storage.topic=kconnect-local-status",
            "config.storage.replication.factor=1",
            "offset.storage.replication.factor=1",
            "status.storage.replication.factor=1",
            "offset.flush.interval.ms=1000",
            "scheduled.rebalance.max.delay.ms=10000",
            f"listeners=http://127.0.0.1:{port}",
            "spark.master=local[2]",
            "",
        ]
    )


def call(url: str, method: str = "GET", body: Any = None) -> Any:
    """A REST call; returns the decoded JSON answer (None when empty)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        raw = response.read()
    return json.loads(raw) if raw else None


def healthy(url: str) -> bool:
    """Whether the worker's ``/health`` answers 200 (topics read, group joined, Spark up)."""
    try:
        call(f"{url}/health")
        return True
    except (urllib.error.URLError, OSError):
        return False


def wait(what: str, check: Any, timeout: float) -> None:
    """Poll `check` every half second, printing a dot every 5 s; SystemExit naming `what` on timeout."""
    deadline, dots = time.monotonic() + timeout, time.monotonic()
    while not check():
        if time.monotonic() > deadline:
            raise SystemExit(f"error: timed out after {timeout:.0f} s waiting for {what}")
        if time.monotonic() - dots > 5:
            print(".", end="", flush=True)
            dots = time.monotonic()
        time.sleep(0.5)


def create(url: str, name: str, config: dict[str, str]) -> None:
    """Create a connector, retrying the 409 a rebalance may answer."""
    for _ in range(60):
        try:
            call(f"{url}/connectors", "POST", {"name": name, "config": config})
            return
        except urllib.error.HTTPError as exc:
            if exc.code != 409:
                raise SystemExit(f"error: creating {name}: {exc.code} {exc.read().decode()}") from None
            time.sleep(1)
    raise SystemExit(f"error: creating {name}: the cluster kept rebalancing")


def demo(urls: list[str], out: Path, lines: int) -> bool:
    """Source -> Kafka -> three-task sink through the cluster; True when every line arrived."""
    source, sink = out / "demo-source.txt", out / "demo-sink.txt"
    source.write_text("".join(f"line {i}\n" for i in range(lines)), encoding="utf-8")
    sink.unlink(missing_ok=True)
    topic = f"kconnect-local-demo-{int(time.time())}"
    create(
        urls[0], "demo-source", {"connector.class": "FileStreamSource", "file": str(source), "topic": topic}
    )
    sink_config = {"connector.class": "FileStreamSink", "file": str(sink), "topics": topic, "tasks.max": "3"}
    create(urls[0], "demo-sink", sink_config)
    expected = set(source.read_text(encoding="utf-8").splitlines())

    def arrived() -> bool:
        return sink.exists() and expected <= set(sink.read_text(encoding="utf-8").splitlines())

    def running() -> bool:
        statuses = call(f"{urls[-1]}/connectors?expand=status")
        tasks = [t for body in statuses.values() for t in body["status"]["tasks"]]
        return len(tasks) == 4 and all(t["state"] == "RUNNING" for t in tasks)

    print(f"==> demo: {lines:,} lines through topic {topic}", end="", flush=True)
    wait("every demo line in the sink file", arrived, 180)
    print(" every line arrived")
    wait("every demo task RUNNING", running, 60)  # the sink's idle tasks may start after the lines
    statuses = call(f"{urls[-1]}/connectors?expand=status")
    for name, body in sorted(statuses.items()):
        placed = ", ".join(
            f"task {t['id']} {t['state']} on {t['worker_id']}" for t in body["status"]["tasks"]
        )
        print(f"    {name}: {placed}")
    return True


def main() -> int:
    """Run the cluster until Ctrl-C (or, with --exit, until the demo is done)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--base-port", type=int, default=8083, help="REST port of the first worker")
    parser.add_argument("--out", type=Path, default=REPO / "local-cluster", help="worker files and logs")
    parser.add_argument("--demo", action="store_true", help="run a file pipeline through the cluster")
    parser.add_argument("--lines", type=int, default=10_000, help="lines in the demo's source file")
    parser.add_argument("--exit", action="store_true", help="stop the cluster after the demo")
    args = parser.parse_args()
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    stop = False

    def on_signal(*_: Any) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, on_signal)
    print("==> starting Apache Kafka (KRaft, single node)")
    with KafkaBroker() as broker:
        print(f"    broker at {broker.bootstrap_servers}")
        processes: list[subprocess.Popen[bytes]] = []
        urls = []
        try:
            for n in range(args.workers):
                port = args.base_port + n
                worker_file = out / f"worker-{n + 1}.properties"
                worker_file.write_text(worker_properties(broker.bootstrap_servers, port), encoding="utf-8")
                log = (out / f"worker-{n + 1}.log").open("wb")
                command = [sys.executable, "-m", "kconnect_rest.cli", "distributed", str(worker_file)]
                processes.append(subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT))
                urls.append(f"http://127.0.0.1:{port}")
            print(f"==> starting {args.workers} workers of group {GROUP} (logs in {out})", end="", flush=True)
            wait("every worker healthy", lambda: all(healthy(u) for u in urls), 240)
            print()
            for n, url in enumerate(urls):
                print(f"    worker {n + 1}: {url}")
            print(f"    try: curl -s '{urls[0]}/connectors?expand=status'")
            ok = demo(urls, out, args.lines) if args.demo else True
            if args.exit:
                return 0 if ok else 1
            print("==> running; Ctrl-C stops the workers and the broker")
            while not stop and all(p.poll() is None for p in processes):
                time.sleep(0.5)
            return 0
        except KeyboardInterrupt:
            return 0
        finally:
            print("==> stopping the workers")
            for process in processes:
                if process.poll() is None:
                    process.send_signal(signal.SIGINT)
            for process in processes:
                try:
                    process.wait(60)
                except subprocess.TimeoutExpired:
                    process.kill()


if __name__ == "__main__":
    sys.exit(main())
