"""Scenario 3: how long an appended line takes to reach the sink file, kconnect against Java.

A writer appends 1,000 lines per second to the source file for 60 s, each line carrying the time
it was written; a reader follows the sink file and takes, for each line, the time it appeared
minus the time it was written. Reported: p50, p99 and max in milliseconds (JsonConverter with
schemas off, one task each way). The measured minute starts once the pipeline is warm: the first
warm-up line has crossed.

    tox -e bench -- latency.py                    # 3 rounds
    tox -e bench -- latency.py --rounds 1 --seconds 20
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from engines import CONVERTERS as _CONVERTERS
from engines import (
    ENGINES,
    FILE_SINK,
    FILE_SOURCE,
    EngineRun,
    KafkaBroker,
    Progress,
    create_topic,
    fresh_topic,
)
from report import summarize

RATE = 1000
SECONDS = 60
CONVERTER = "json, schemas off"


def _percentile(ordered: list[float], p: float) -> float:
    return ordered[min(len(ordered) - 1, int(p / 100 * (len(ordered) - 1) + 0.5))]


def _write(source: Path, count: int, rate: int, stop: threading.Event) -> None:
    """Append `count` lines at `rate` per second, 10 at a time, each stamped with time.time_ns()."""
    with source.open("a") as out:
        start = time.monotonic()
        for i in range(0, count, 10):
            if stop.is_set():
                return
            delay = start + i / rate - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            now = time.time_ns()
            out.write("".join(f"m {i + j} {now}\n" for j in range(10)))
            out.flush()


def _follow(sink: Path, count: int, deadline: float) -> list[float]:
    """Latencies (ms) of the first `count` measured lines to appear in `sink`, in arrival order."""
    latencies: list[float] = []
    offset, partial = 0, b""
    while len(latencies) < count and time.monotonic() < deadline:
        if sink.exists():
            with sink.open("rb") as f:
                f.seek(offset)
                data = f.read()
            if data:
                now = time.time_ns()
                offset += len(data)
                *lines, partial = (partial + data).split(b"\n")
                for line in lines:
                    if line.startswith(b"m "):
                        latencies.append((now - int(line.rsplit(b" ", 1)[1])) / 1e6)
                continue
        time.sleep(0.002)
    return latencies


def latency_round(
    engine: str, broker: KafkaBroker, folder: Path, seconds: int, progress: Progress
) -> dict[str, float]:
    """One engine, one minute of steady appends: the round's p50, p99 and max in ms."""
    folder.mkdir(parents=True)
    source, sink = folder / "source.txt", folder / "sink.txt"
    source.write_text("warm-up\n")
    topic = fresh_topic(f"lat-{engine}")
    create_topic(broker, topic, 1)
    connectors = [
        {"name": "source", "connector.class": FILE_SOURCE, "file": str(source), "topic": topic},
        {"name": "sink", "connector.class": FILE_SINK, "file": str(sink), "topics": topic},
    ]
    with EngineRun(engine, broker, folder, _CONVERTERS[CONVERTER], connectors) as run:
        while not (sink.exists() and sink.stat().st_size):
            run.alive()
            if time.monotonic() - run.started > 180:
                raise RuntimeError(f"{engine}: the warm-up line never reached the sink; see {folder}")
            time.sleep(0.05)
        count = RATE * seconds
        stop = threading.Event()
        writer = threading.Thread(target=_write, args=(source, count, RATE, stop), daemon=True)
        progress(f"{engine}: appending {RATE} lines/s for {seconds} s")
        writer.start()
        try:
            latencies = _follow(sink, count, time.monotonic() + seconds + 120)
        finally:
            stop.set()
            writer.join()
    if len(latencies) < count:
        raise RuntimeError(f"{engine}: only {len(latencies)} of {count} lines reached the sink; see {folder}")
    ordered = sorted(latencies)
    return {"p50_ms": _percentile(ordered, 50), "p99_ms": _percentile(ordered, 99), "max_ms": ordered[-1]}


def run_latency(
    broker: KafkaBroker, rounds: int, progress: Progress, seconds: int = SECONDS
) -> dict[str, Any]:
    """Scenario 3: raw figures per engine (one case)."""
    raw: dict[str, dict[str, list[float]]] = {}
    with tempfile.TemporaryDirectory(prefix="kconnect-latency-") as tmp:
        for r in range(rounds):
            for engine in ENGINES:
                progress(f"latency, round {r + 1}/{rounds}: {engine}")
                figures = latency_round(engine, broker, Path(tmp) / f"{engine}-{r}", seconds, progress)
                progress(f"  {engine}: p50 {figures['p50_ms']:.1f} ms, p99 {figures['p99_ms']:.1f} ms")
                for key, value in figures.items():
                    raw.setdefault(engine, {}).setdefault(key, []).append(value)
    return {f"{RATE:,} lines/s": raw}


def main() -> int:
    """Run the scenario on a broker of its own and print the summary."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=SECONDS)
    args = parser.parse_args()
    with KafkaBroker(heap="1g") as broker:
        print(json.dumps(summarize(run_latency(broker, args.rounds, print, args.seconds)), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
