"""Where the CPU goes while the file pipeline runs flat out: per process, in cores and µs per line.

Runs one engine's FileStreamSource -> Kafka -> FileStreamSink pipeline on 3,000,000 lines, waits
until it is warm, then reads each process's CPU time from /proc over 10 s: the engine's worker and
every process under it (for kconnect: the worker, Spark's JVM, and the Spark tasks that host the
source and the sink task), and the broker. A process near 1.0 cores bounds the rate: one Python
thread cannot go faster, whatever the other core does.

    tox -e bench -- cpu_split.py                                  # both engines, JsonConverter schemas off
    tox -e bench -- cpu_split.py --engines kconnect --converter string
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from engines import (
    CONVERTERS,
    FILE_SINK,
    FILE_SOURCE,
    EngineRun,
    KafkaBroker,
    count_lines,
    cpu_seconds,
    create_topic,
    fresh_topic,
    process_tree,
    processes,
    write_lines,
)

LINES = 3_000_000
WINDOW_S = 10.0


def _label(command: str) -> str:
    for needle, label in (
        ("kafka.Kafka", "broker"),
        ("ConnectStandalone", "Java Kafka Connect worker"),
        ("SparkSubmit", "Spark JVM (driver)"),
        ("pyspark.daemon", "Spark task (Python)"),
        ("kconnect_rest.cli", "kconnect worker"),
    ):
        if needle in command:
            return label
    return command[:40]


def measure(engine: str, broker: KafkaBroker, converter: str, folder: Path) -> None:
    """Run the pipeline and print the CPU split over a warm 10 s window."""
    folder.mkdir(parents=True)
    source, sink = folder / "in.txt", folder / "out.txt"
    write_lines(source, LINES)
    topic = fresh_topic(f"cpu-{engine}")
    create_topic(broker, topic, 1)
    connectors = [
        {"name": "source", "connector.class": FILE_SOURCE, "file": str(source), "topic": topic},
        {"name": "sink", "connector.class": FILE_SINK, "file": str(sink), "topics": topic},
    ]
    with EngineRun(engine, broker, folder, CONVERTERS[converter], connectors) as run:
        while count_lines(sink) < 300_000:
            run.alive()
            time.sleep(0.1)
        table = processes()
        assert run.process is not None
        pids = process_tree(run.process.pid, table) + [p for p, (_, c) in table.items() if "kafka.Kafka" in c]
        before, lines_before, started = {p: cpu_seconds(p) for p in pids}, count_lines(sink), time.monotonic()
        time.sleep(WINDOW_S)
        after, lines_after, ended = {p: cpu_seconds(p) for p in pids}, count_lines(sink), time.monotonic()
    moved = lines_after - lines_before
    print(f"{engine}, {converter}: {moved / (ended - started):,.0f} lines/s")
    for pid in pids:
        used = after[pid] - before[pid]
        if used > 0.05:
            cores, per_line = used / (ended - started), used / moved * 1e6
            print(f"  {_label(table[pid][1]):28s} pid {pid:7d}  {cores:4.2f} cores  {per_line:6.2f} µs/line")


def main() -> int:
    """Measure each engine on one broker."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--engines", default="java,kconnect")
    parser.add_argument("--converter", default="json, schemas off", choices=list(CONVERTERS))
    args = parser.parse_args()
    with KafkaBroker(heap="1g") as broker, tempfile.TemporaryDirectory(prefix="kconnect-cpu-") as tmp:
        for engine in args.engines.split(","):
            measure(engine, broker, args.converter, Path(tmp) / engine)
    return 0


if __name__ == "__main__":
    sys.exit(main())
