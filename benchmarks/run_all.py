"""kconnect against Apache Kafka Connect (Java): every scenario, one command, one broker.

    tox -e bench -- run_all.py                         # all six scenarios, 3 rounds: about 45 minutes
    tox -e bench -- run_all.py --only throughput,latency --rounds 1

Scenarios (each module's docstring says exactly what it does):

1. `throughput`: file -> Kafka -> file, 1,000,000 lines, JsonConverter schemas off/on, StringConverter.
2. `parallel`: 1, 2, 4 and 8 source connectors into as many partitions, a sink with as many tasks.
3. `latency`: 1,000 lines/s appended for 60 s; append -> sink p50, p99, max.
4. `control_plane`: REST requests/s and p99 with 50 concurrent clients (wrk); start-up times.
5. `footprint`: resident memory with 1 and 100 connectors, and the time to create the 100.
6. `ceiling`: the broker's own produce and consume rates for the same records (Kafka's perf tools).

In each round both engines run one after the other on the same broker and input, on fresh
topics; the report gives the median with the spread (min-max) over the rounds and the ratio
kconnect / Java. Written to docs/performance/: ``results.json`` (raw and summarised figures, the
commit measured, the machine), ``results.md`` (the tables) and one chart per scenario.
Run it alone: the machine's other load is in every figure. Nothing here fails on a figure.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ceiling import run_ceiling
from control_plane import run as run_control_plane
from engines import KafkaBroker
from latency import run_latency
from report import bar_chart, summarize, table
from task_footprint import run_footprint
from throughput import run_parallel, run_throughput


def _control_plane(broker: KafkaBroker, rounds: int, progress: Callable[[str], None]) -> dict[str, Any]:
    return {"REST, 50 clients": run_control_plane(broker, rounds, progress)}


def _footprint(broker: KafkaBroker, rounds: int, progress: Callable[[str], None]) -> dict[str, Any]:
    # Resident memory hardly varies between runs, and one round of 100 connectors takes minutes.
    return run_footprint(broker, 1, progress)


OUT = Path(__file__).resolve().parent.parent / "docs" / "performance"

Figures = list[tuple[str, str, str, bool]]

#: name -> (runner, the figures its table shows, the chart's panels, the chart's title)
SCENARIOS: dict[str, tuple[Callable[..., dict[str, Any]], Figures, list[tuple[str, str]], str]] = {
    "throughput": (
        run_throughput,
        [
            ("lines_per_s", "lines per second, first to last sink line", "/s", True),
            ("first_sink_line_s", "start -> first line in the sink", "s", False),
        ],
        [
            ("lines_per_s", "lines/s, first to last sink line"),
            ("first_sink_line_s", "start -> first sink line, s"),
        ],
        "1. file -> Kafka -> file, 1,000,000 lines of 100 bytes, 1 task each way",
    ),
    "parallel": (
        run_parallel,
        [
            ("lines_per_s", "lines per second, all tasks", "/s", True),
            ("wall_s", "start -> last line in the sink", "s", False),
            ("engine_us_per_line", "engine CPU per line, first to last sink line", "µs", False),
            ("broker_us_per_line", "broker CPU per line, first to last sink line", "µs", False),
            ("busy_cores", "cores busy (engine and broker), first to last sink line", "cores", True),
        ],
        [("lines_per_s", "lines/s, all tasks together"), ("engine_us_per_line", "engine CPU µs per line")],
        "2. N sources into N partitions, a sink with N tasks (JsonConverter, schemas off)",
    ),
    "latency": (
        run_latency,
        [
            ("p50_ms", "append -> sink p50", "ms", False),
            ("p99_ms", "append -> sink p99", "ms", False),
            ("max_ms", "append -> sink max", "ms", False),
        ],
        [("p50_ms", "p50, ms"), ("p99_ms", "p99, ms"), ("max_ms", "max, ms")],
        "3. append -> sink latency at 1,000 lines/s for 60 s",
    ),
    "control_plane": (
        _control_plane,
        [
            ("status_rps", "GET /connectors/{name}/status", "req/s", True),
            ("status_p99_ms", "GET /connectors/{name}/status p99", "ms", False),
            ("connectors_rps", "GET /connectors", "req/s", True),
            ("connectors_p99_ms", "GET /connectors p99", "ms", False),
            ("rest_up_s", "process start -> REST answers", "s", False),
            ("first_sink_line_s", "process start -> first line in the sink", "s", False),
        ],
        [
            ("status_rps", "GET /connectors/{name}/status, req/s"),
            ("connectors_rps", "GET /connectors, req/s"),
            ("rest_up_s", "start -> REST answers, s"),
            ("first_sink_line_s", "start -> first sink line, s"),
        ],
        "4. control plane: 50 concurrent clients (wrk), and start-up",
    ),
    "footprint": (
        _footprint,
        [
            ("rss_mb", "resident memory, whole process tree", "MiB", False),
            ("to_running_s", "create through REST -> all RUNNING", "s", False),
        ],
        [("rss_mb", "resident memory, MiB"), ("to_running_s", "create -> all RUNNING, s")],
        "5. footprint: FileStreamSource connectors created through REST",
    ),
    "ceiling": (
        run_ceiling,
        [
            ("produce_per_s", "kafka-producer-perf-test", "/s", True),
            ("consume_per_s", "kafka-consumer-perf-test", "/s", True),
        ],
        [],
        "6. the broker's ceiling",
    ),
}


def measured_commit() -> str:
    """The commit measured (short hash), noting uncommitted changes to the code under test."""
    here = Path(__file__).resolve().parent
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=here)
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--", "kernel", "plugins", "rest"],
        capture_output=True,
        text=True,
        cwd=here.parent,  # the paths are the checkout's folders
    )
    return head.stdout.strip() + (" (with uncommitted changes)" if dirty.stdout.strip() else "")


def _ensure_class_archive(progress: Callable[[str], None]) -> None:
    """Build kconnect's Spark class archive first, as any worker after the first start has it."""
    from kconnect_spark.class_archive import archive_path, build
    from kconnect_spark.session import spark_conf

    archive = archive_path(spark_conf({}))
    if not archive.is_file():
        progress(f"building the Spark class archive {archive} (once per install)")
        build(archive, {})


def _ceiling_lines(summary: dict[str, Any]) -> list[str]:
    """Each throughput as a fraction of the broker's produce ceiling."""
    ceiling = summary.get("ceiling", {}).get("1 partition", {}).get("kafka tools", {}).get("produce_per_s")
    if not ceiling:
        return []
    lines = ["", "Each engine's rate as a fraction of the broker's produce ceiling:", ""]
    lines += ["| scenario | case | Java | kconnect |", "|---|---|---|---|"]
    for scenario in ("throughput", "parallel"):
        for case, engines in summary.get(scenario, {}).items():
            cells = [
                f"{engines[e]['lines_per_s']['median'] / ceiling['median']:.0%}" if e in engines else "n/a"
                for e in ("java", "kconnect")
            ]
            lines.append(f"| {scenario} | {case} | {cells[0]} | {cells[1]} |")
    return lines


def main() -> int:
    """Run the chosen scenarios and write the report."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", default=",".join(SCENARIOS), help="comma-separated scenario names")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    chosen = [name.strip() for name in args.only.split(",")]
    unknown = set(chosen) - set(SCENARIOS)
    if unknown:
        parser.error(f"unknown scenarios: {', '.join(sorted(unknown))}; known: {', '.join(SCENARIOS)}")
    started = time.monotonic()

    def progress(message: str) -> None:
        print(f"[{time.monotonic() - started:7.0f} s] {message}", flush=True)

    _ensure_class_archive(progress)
    args.out.mkdir(parents=True, exist_ok=True)
    results_path = args.out / "results.json"
    report: dict[str, Any] = json.loads(results_path.read_text()) if results_path.exists() else {}
    report.setdefault("scenarios", {})
    with KafkaBroker(heap="1g") as broker:
        for name in chosen:
            runner = SCENARIOS[name][0]
            raw = runner(broker, args.rounds, progress)
            report["scenarios"][name] = {
                "summary": summarize(raw),
                "rounds": 1 if name == "footprint" else args.rounds,
                "commit": measured_commit(),
                "measured": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            }
            results_path.write_text(json.dumps(report, indent=2) + "\n")
    report["machine"] = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    results_path.write_text(json.dumps(report, indent=2) + "\n")
    _write_markdown(report, args.out)
    progress(f"done: {args.out}")
    return 0


def _write_markdown(report: dict[str, Any], out: Path) -> None:
    """results.md (every scenario's table) and one chart per scenario that has panels."""
    lines = [f"Machine: {report.get('machine', 'n/a')}.", ""]
    summaries = {name: entry["summary"] for name, entry in report["scenarios"].items()}
    for name, (_, figures, panels, title) in SCENARIOS.items():
        entry = report["scenarios"].get(name)
        if entry is None:
            continue
        lines += [
            f"### {title}",
            "",
            f"*Commit {entry['commit']}, {entry['measured']}, {entry['rounds']} rounds; median (min-max).*",
            "",
        ]
        if name == "ceiling":
            ceiling = entry["summary"]["1 partition"]["kafka tools"]
            for key, label, unit, _higher in figures:
                f = ceiling[key]
                lines.append(f"- {label}: {f['median']:,.0f} records{unit} ({f['min']:,.0f}-{f['max']:,.0f})")
            lines += _ceiling_lines(summaries)
        else:
            lines.append(table(entry["summary"], figures, "case"))
        if panels:
            chart = out / f"{name}.png"
            bar_chart(entry["summary"], panels, title, chart)
            lines += [f"![{title}]({chart.name})"]
        lines.append("")
    (out / "results.md").write_text("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
