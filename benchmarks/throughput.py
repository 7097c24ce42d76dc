"""Scenarios 1 and 2: how many lines per second the file pipeline moves, kconnect against Java.

FileStreamSource -> Kafka -> FileStreamSink on the same broker, the same files and the same input
for both engines, each round on a fresh topic. The rate counts lines from the first line in the
sink file to the last, so start-up is not in it; start-up is reported apart (start -> first sink
line).

* `throughput`: one source connector, one sink task, one partition, 1,000,000 lines of 100 bytes,
  for each converter setting (JsonConverter schemas off and on, StringConverter).
* `parallel`: N source connectors (FileStreamSource runs one task per file, so N files need N
  connectors) into one topic of N partitions, and one FileStreamSink with ``tasks.max=N``, for
  N = 1, 2, 4, 8; JsonConverter with schemas off.

    tox -e bench -- throughput.py                  # both scenarios, 3 rounds
    tox -e bench -- throughput.py --scenario throughput --rounds 1 --lines 200000
    tox -e bench -- throughput.py --scenario parallel --tasks 8 --rounds 1
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from engines import (
    CONVERTERS,
    ENGINES,
    EngineRun,
    KafkaBroker,
    Progress,
    cpu_seconds,
    create_topic,
    delete_topic,
    fresh_topic,
    pipeline_connectors,
    processes,
    tree_cpu,
    watch_sink,
    write_lines,
)
from report import bar_chart, summarize, table

LINES = 1_000_000
PARALLEL_LINES_PER_TASK = 500_000
PARALLEL_TASKS = (1, 2, 4, 8)


def pipeline_round(
    engine: str,
    broker: KafkaBroker,
    sources: list[Path],
    lines_each: int,
    converter: str,
    folder: Path,
    progress: Progress,
) -> dict[str, float]:
    """Move every line of `sources` through one fresh topic into one sink file; the round's figures."""
    tasks = len(sources)
    topic = fresh_topic(f"tp-{engine}")
    create_topic(broker, topic, tasks)
    sink = folder / "sink.txt"
    connectors = pipeline_connectors(sources, topic, sink)
    expected = lines_each * tasks
    broker_pids = [pid for pid, (_, command) in processes().items() if "kafka.Kafka" in command]
    with EngineRun(engine, broker, folder, CONVERTERS[converter], connectors) as run:
        assert run.process is not None
        root = run.process.pid

        def cpu() -> dict[str, float]:
            return {"engine": tree_cpu(root), "broker": sum(cpu_seconds(p) for p in broker_pids)}

        times = watch_sink(run, sink, expected, progress, cpu=cpu)
    if tasks == 1 and sink.read_bytes() != sources[0].read_bytes():
        raise RuntimeError(f"{engine}: the sink file differs from the source file; see {folder}")
    if tasks > 1 and sink.stat().st_size != sum(s.stat().st_size for s in sources):
        raise RuntimeError(f"{engine}: the sink file has not every byte of the sources; see {folder}")
    # A round at 8 tasks leaves 400 MB in the sink file and as much in the topic: 24 rounds fill a disk.
    delete_topic(broker, topic)
    shutil.rmtree(folder)
    transfer = max(times["last_line_s"] - times["first_line_s"], 1e-6)
    engine_cpu = times["cpu_last_engine"] - times["cpu_first_engine"]
    broker_cpu = times["cpu_last_broker"] - times["cpu_first_broker"]
    return {
        "lines_per_s": expected / transfer,
        "first_sink_line_s": times["first_line_s"],
        "wall_s": times["last_line_s"],
        # From the first sink line to the last: what the rate above spends, and how busy the cores were.
        "engine_us_per_line": engine_cpu / expected * 1e6,
        "broker_us_per_line": broker_cpu / expected * 1e6,
        "busy_cores": (engine_cpu + broker_cpu) / transfer,
        # From launch to the last line: start-up included.
        "engine_cpu_s": times["cpu_last_engine"],
    }


def run_throughput(
    broker: KafkaBroker, rounds: int, progress: Progress, lines: int = LINES
) -> dict[str, Any]:
    """Scenario 1: raw figures per converter setting and engine."""
    raw: dict[str, dict[str, dict[str, list[float]]]] = {}
    with tempfile.TemporaryDirectory(prefix="kconnect-throughput-") as tmp:
        source = Path(tmp) / "source.txt"
        write_lines(source, lines)
        for converter in CONVERTERS:
            for r in range(rounds):
                for engine in ENGINES:
                    progress(f"throughput, {converter}, round {r + 1}/{rounds}: {engine}")
                    figures = pipeline_round(
                        engine,
                        broker,
                        [source],
                        lines,
                        converter,
                        Path(tmp) / f"{engine}-{converter}-{r}",
                        progress,
                    )
                    progress(f"  {engine}: {figures['lines_per_s']:,.0f} lines/s")
                    for key, value in figures.items():
                        raw.setdefault(converter, {}).setdefault(engine, {}).setdefault(key, []).append(value)
    return raw


def run_parallel(
    broker: KafkaBroker,
    rounds: int,
    progress: Progress,
    lines_each: int = PARALLEL_LINES_PER_TASK,
    task_counts: tuple[int, ...] = PARALLEL_TASKS,
) -> dict[str, Any]:
    """Scenario 2: raw figures per task count and engine (JsonConverter, schemas off)."""
    raw: dict[str, dict[str, dict[str, list[float]]]] = {}
    with tempfile.TemporaryDirectory(prefix="kconnect-parallel-") as tmp:
        sources = [Path(tmp) / f"source-{i}.txt" for i in range(max(task_counts))]
        for i, source in enumerate(sources):
            write_lines(source, lines_each, start=i * lines_each)
        for tasks in task_counts:
            case = f"{tasks} task{'s' if tasks > 1 else ''}"
            for r in range(rounds):
                for engine in ENGINES:
                    progress(f"parallel, {case}, round {r + 1}/{rounds}: {engine}")
                    figures = pipeline_round(
                        engine,
                        broker,
                        sources[:tasks],
                        lines_each,
                        "json, schemas off",
                        Path(tmp) / f"{engine}-{tasks}-{r}",
                        progress,
                    )
                    progress(f"  {engine}: {figures['lines_per_s']:,.0f} lines/s")
                    for key, value in figures.items():
                        raw.setdefault(case, {}).setdefault(engine, {}).setdefault(key, []).append(value)
    return raw


def main() -> int:
    """Run the scenarios on a broker of their own and print the summaries."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scenario", choices=("throughput", "parallel", "both"), default="both")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--lines", type=int, default=LINES)
    parser.add_argument(
        "--tasks",
        type=lambda text: tuple(int(n) for n in text.split(",")),
        default=PARALLEL_TASKS,
        help="the parallel scenario's task counts, comma-separated (default 1,2,4,8)",
    )
    parser.add_argument(
        "--out", type=Path, help="a folder for each scenario's <scenario>.{json,md,png} (run_all.py's tables)"
    )
    args = parser.parse_args()
    results = {}
    with KafkaBroker(heap="1g") as broker:
        if args.scenario in ("throughput", "both"):
            results["throughput"] = summarize(run_throughput(broker, args.rounds, print, args.lines))
        if args.scenario in ("parallel", "both"):
            results["parallel"] = summarize(
                run_parallel(broker, args.rounds, print, args.lines // 2, args.tasks)
            )
    print(json.dumps(results, indent=2))
    if args.out is not None:
        _write(results, args.out)
    return 0


def _write(results: dict[str, Any], folder: Path) -> None:
    """Each scenario's summary as JSON, run_all.py's Markdown table and its chart."""
    from run_all import SCENARIOS

    folder.mkdir(parents=True, exist_ok=True)
    for scenario, summary in results.items():
        _, figures, panels, title = SCENARIOS[scenario]
        (folder / f"{scenario}.json").write_text(json.dumps(summary, indent=2) + "\n")
        (folder / f"{scenario}.md").write_text(f"### {title}\n\n" + table(summary, figures))
        bar_chart(summary, panels, title, folder / f"{scenario}.png")


if __name__ == "__main__":
    sys.exit(main())
