"""Where the CPU goes while the file pipeline runs flat out: per process, in cores and µs per line.

Runs one engine's FileStreamSource -> Kafka -> FileStreamSink pipeline on 4,000,000 lines (with
``--tasks N``: N source connectors on N files into N partitions, and a sink with N tasks, the
layout of `throughput.py --scenario parallel`), waits until it is warm, then reads each process's
CPU time from /proc over 10 s: the engine's worker and every process under it (for kconnect: the
worker, Spark's JVM, and the Spark tasks that host the source and sink tasks), and the broker. A
process near 1.0 cores bounds the rate: one Python thread cannot go faster, whatever the other
core does.

With ``--py-spy DIR`` each kconnect task host is also sampled by py-spy over the same window, only
while a thread holds the interpreter lock (``--gil``): the share of samples says how much of the
window the lock was held (work) and the rest is waiting or idle; DIR gets each host's collapsed
stacks (``host-PID.txt``, for flame graphs) and the top functions by own time are printed.

    tox -e bench -- cpu_split.py                                  # both engines, JsonConverter schemas off
    tox -e bench -- cpu_split.py --engines kconnect --converter string
    tox -e bench -- cpu_split.py --tasks 4 --py-spy /tmp/profiles # the parallel layout, profiled
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from engines import (
    CONVERTERS,
    EngineRun,
    KafkaBroker,
    LineCounter,
    cpu_seconds,
    create_topic,
    fresh_topic,
    pipeline_connectors,
    process_tree,
    processes,
    write_lines,
)

LINES = 4_000_000
WINDOW_S = 10.0
#: py-spy's samples per second per process.
SAMPLE_RATE = 100
#: How many functions each host's profile lists.
TOP = 12


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


def measure(
    engine: str, broker: KafkaBroker, converter: str, folder: Path, tasks: int, profiles: Path | None
) -> None:
    """Run the pipeline and print the CPU split over a warm 10 s window (and the hosts' profiles)."""
    folder.mkdir(parents=True)
    sources = [folder / f"in-{i}.txt" for i in range(tasks)]
    for i, source in enumerate(sources):
        write_lines(source, LINES // tasks, start=i * (LINES // tasks))
    sink = folder / "out.txt"
    topic = fresh_topic(f"cpu-{engine}")
    create_topic(broker, topic, tasks)
    connectors = pipeline_connectors(sources, topic, sink)
    with EngineRun(engine, broker, folder, CONVERTERS[converter], connectors) as run:
        lines_in = LineCounter(sink)
        while lines_in() < 300_000:
            run.alive()
            time.sleep(0.1)
        table = processes()
        assert run.process is not None
        pids = process_tree(run.process.pid, table) + [p for p, (_, c) in table.items() if "kafka.Kafka" in c]
        hosts = [p for p in pids if "pyspark.daemon" in table[p][1]]
        spies = _spy(hosts, profiles) if profiles is not None and engine == "kconnect" else {}
        before, lines_before, started = {p: cpu_seconds(p) for p in pids}, lines_in(), time.monotonic()
        time.sleep(WINDOW_S)
        after, lines_after, ended = {p: cpu_seconds(p) for p in pids}, lines_in(), time.monotonic()
        for spy in spies.values():
            spy.wait(timeout=30)
    moved = lines_after - lines_before
    print(f"{engine}, {converter}, {tasks} task(s) each way: {moved / (ended - started):,.0f} lines/s")
    for pid in pids:
        used = after[pid] - before[pid]
        if used > 0.05:
            cores, per_line = used / (ended - started), used / moved * 1e6
            print(f"  {_label(table[pid][1]):28s} pid {pid:7d}  {cores:4.2f} cores  {per_line:6.2f} µs/line")
    for pid in spies:
        assert profiles is not None
        _print_profile(pid, profiles / f"host-{pid}.txt", after[pid] - before[pid])


def _spy(hosts: list[int], profiles: Path) -> dict[int, subprocess.Popen[bytes]]:
    """Start py-spy on each host for the window: samples only while a thread holds the GIL."""
    profiles.mkdir(parents=True, exist_ok=True)
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    return {
        pid: subprocess.Popen(
            [
                spy,
                "record",
                "--pid",
                str(pid),
                "--duration",
                str(int(WINDOW_S)),
                "--rate",
                str(SAMPLE_RATE),
                "--gil",
                "--nonblocking",
                "--function",
                "--format",
                "raw",
                "--output",
                str(profiles / f"host-{pid}.txt"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for pid in hosts
    }


def _print_profile(pid: int, raw: Path, cpu_s: float) -> None:
    """The host's GIL-held share of the window and its top functions by own samples."""
    if not raw.exists():
        print(f"  host {pid}: py-spy wrote no profile")
        return
    own: Counter[str] = Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack:
            continue
        total += int(count)
        own[stack.rsplit(";", 1)[-1]] += int(count)
    window = WINDOW_S * SAMPLE_RATE
    print(
        f"  host {pid}: the GIL held in {total / window:.0%} of the window, "
        f"CPU {cpu_s / WINDOW_S:.2f} cores; top functions by own samples (of {total}):"
    )
    for frame, count in own.most_common(TOP):
        print(f"    {count / total:6.1%}  {frame}")


def main() -> int:
    """Measure each engine on one broker."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--engines", default="java,kconnect")
    parser.add_argument("--converter", default="json, schemas off", choices=list(CONVERTERS))
    parser.add_argument("--tasks", type=int, default=1, help="tasks each way (the parallel layout)")
    parser.add_argument("--py-spy", type=Path, metavar="DIR", help="profile kconnect's task hosts into DIR")
    args = parser.parse_args()
    with KafkaBroker(heap="1g") as broker, tempfile.TemporaryDirectory(prefix="kconnect-cpu-") as tmp:
        for engine in args.engines.split(","):
            measure(engine, broker, args.converter, Path(tmp) / engine, args.tasks, args.py_spy)
    return 0


if __name__ == "__main__":
    sys.exit(main())
