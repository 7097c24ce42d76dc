"""The quickstart: FileStreamSource -> Kafka -> FileStreamSink through kconnect on Spark.

Starts a real Kafka broker, writes a source file of N lines, runs ``kconnect standalone`` with a
worker file and the two connector files, waits until the sink file has every line, checks the two
files are identical and prints what it did and where the output is.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from file_pipeline import LineCounter, free_port, write_pipeline_files
from kafka_broker import KafkaBroker

REPO = Path(__file__).resolve().parent.parent


def _status(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            body = json.load(response)
        tasks = ",".join(t["state"] for t in body["tasks"])
        return f"{body['name']}: connector {body['connector']['state']}, tasks {tasks or '-'}"
    except Exception:
        return "starting"


def main() -> int:
    """Run the quickstart; exit 0 when the sink file equals the source file."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--out", default=str(REPO / "quickstart-out"))
    parser.add_argument("--timeout", type=float, default=300.0)
    args = parser.parse_args()
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    source, sink = out / "source.txt", out / "sink.txt"
    for stale in (sink, out / "connect.offsets", out / "worker.log"):
        stale.unlink(missing_ok=True)
    print(f"==> writing {args.lines:,} lines to {source}")
    with source.open("w", encoding="utf-8") as f:
        f.writelines(
            f"line {i:07d}: the quick brown fox jumps over the lazy dog\n" for i in range(args.lines)
        )

    print("==> starting Apache Kafka (KRaft, single node)")
    with KafkaBroker() as broker:
        print(f"    broker at {broker.bootstrap_servers}")
        port = free_port()
        topic = f"quickstart-{int(time.time())}"
        files = write_pipeline_files(
            out, bootstrap=broker.bootstrap_servers, rest_port=port, source=source, sink=sink, topic=topic
        )
        command = [
            sys.executable,
            "-m",
            "kconnect_rest.cli",
            "standalone",
            *map(str, files),
        ]
        print(
            "==> starting kconnect:",
            " ".join(Path(c).name if c.startswith(str(out)) else c for c in command[2:]),
        )
        log = (out / "worker.log").open("w")
        worker = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=out)
        started = time.monotonic()
        try:
            last = -1
            lines_in = LineCounter(sink)
            while True:
                done = lines_in()
                elapsed = time.monotonic() - started
                if done != last:
                    state = _status(f"http://127.0.0.1:{port}/connectors/local-file-sink/status")
                    print(
                        f"    {elapsed:6.1f}s  sink has {done:>9,} / {args.lines:,} lines  [{state}]",
                        flush=True,
                    )
                    last = done
                if done >= args.lines:
                    break
                if worker.poll() is not None:
                    print(f"kconnect exited early (status {worker.returncode}); see {out / 'worker.log'}")
                    return 1
                if elapsed > args.timeout:
                    print(f"timed out after {args.timeout:.0f}s; see {out / 'worker.log'}")
                    return 1
                time.sleep(0.5)
            elapsed = time.monotonic() - started
        finally:
            worker.send_signal(signal.SIGINT)
            try:
                worker.wait(timeout=60)
            except subprocess.TimeoutExpired:
                worker.kill()
            log.close()
    identical = filecmp.cmp(source, sink, shallow=False)
    print()
    print(f"source: {source}")
    print(f"sink:   {sink}")
    print(f"worker log: {out / 'worker.log'}")
    if identical:
        print(
            f"OK: the sink file is identical to the {args.lines:,}-line source file "
            f"({elapsed:.1f}s from worker start, Spark start-up included)"
        )
        return 0
    print("FAILED: the sink file differs from the source file")
    return 1


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
