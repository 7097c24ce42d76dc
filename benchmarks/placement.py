"""Issue 24: a busy task placed by measured load, against placement by task count, beside Java.

One broker; per engine a standalone worker on this machine's cores (kconnect: ``local[*]``, two
shared Spark task hosts on 2 cores), JsonConverter with schemas off. Connectors are created through
REST, one after another, as an operator adds them: a busy FileStreamSource (``hot-1``, a file of
`--lines` lines into its own topic), three idle ones (``idle-1`` .. ``idle-3``, empty files), and
after a pause a second busy one (``hot-2``, another file, another topic). Placed by count, kconnect
puts ``hot-2`` beside ``hot-1`` in one Python process (host 1 runs two tasks, host 2 two, and host
1 comes first), where the two share one interpreter lock while the other process idles. Placed by
measured load it goes to the idle process. Java runs every task as a thread of one JVM.

Measured while both busy sources run: the lines both put in their topics per second over
`WINDOW_S` (the topics' end offsets), and for kconnect where each busy task ran and each host's CPU
(``GET /executor``). ``--against REV`` also runs kconnect with the Spark executor plugin of a git
revision (a temporary worktree first on ``PYTHONPATH``): the parent of the change that placed by
load, 43bd20c, places by count.

    tox -e bench -- placement.py --against 43bd20c        # about 10 minutes on 2 CPUs
    tox -e bench -- placement.py --rounds 1 --against 43bd20c                   # a quick check

Writes ``docs/performance/placement.{json,md,png}`` (``--out`` elsewhere).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx
from engines import (
    CONVERTERS,
    FILE_SOURCE,
    EngineRun,
    KafkaBroker,
    create_topic,
    delete_topic,
    fresh_topic,
    write_lines,
)
from report import bar_chart, summarize
from revision import add_worktree, remove_worktree
from run_all import measured_commit

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
LINES = 8_000_000
IDLE = 3
#: The converters of both engines (`engines.CONVERTERS`), as in `throughput.py`'s parallel scenario.
CONVERTER = "json, schemas off"
#: How long both busy sources are measured together.
WINDOW_S = 8.0
#: The wait before ``hot-2``: longer than a kconnect host's load report interval, twice.
REPORTED_S = 2.5
#: The one case, as the figures and the chart name it.
CASE = "2 busy and 3 idle sources"
#: The rates measured (lines per second into the busy sources' topics), in the table's order.
NUMERIC = ("hot_1_alone_per_s", "lines_per_s", "hot_1_per_s", "hot_2_per_s")
#: The engines run, by the key the figures use, and how the report names them.
COLUMNS = (("java", "Java"), ("kconnect", "kconnect, by load"), ("kconnect_count", "kconnect, by count"))


def _create(run: EngineRun, name: str, file: Path, topic: str) -> None:
    config = {"connector.class": FILE_SOURCE, "tasks.max": "1", "file": str(file), "topic": topic}
    answer = httpx.post(f"{run.url}/connectors", json={"name": name, "config": config}, timeout=30)
    if answer.status_code != 201:
        raise RuntimeError(f"{run.engine}: creating {name}: {answer.status_code} {answer.text}")
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        run.alive()
        status = httpx.get(f"{run.url}/connectors/{name}/status", timeout=5).json()
        if status.get("tasks") and status["tasks"][0]["state"] == "RUNNING":
            return
        time.sleep(0.1)
    raise RuntimeError(f"{run.engine}: {name} not RUNNING within 180 s; see {run.folder}/worker.log")


def _end_offsets(broker: KafkaBroker, topics: list[str]) -> dict[str, int]:
    from aiokafka import AIOKafkaConsumer, TopicPartition

    async def ask() -> dict[str, int]:
        consumer = AIOKafkaConsumer(bootstrap_servers=broker.bootstrap_servers)
        await consumer.start()
        try:
            ends = await consumer.end_offsets([TopicPartition(t, 0) for t in topics])
            return {tp.topic: offset for tp, offset in ends.items()}
        finally:
            await consumer.stop()

    return asyncio.run(ask())


def one_run(
    engine: str, broker: KafkaBroker, work: Path, hot: tuple[Path, Path], lines: int, env: Mapping[str, str]
) -> dict[str, Any]:
    """One engine's worker: the connectors one after another, then both busy sources measured."""
    topics = [fresh_topic("hot-1"), fresh_topic("hot-2"), fresh_topic("idle")]
    for topic in topics:
        create_topic(broker, topic, 1)
    work.mkdir(parents=True, exist_ok=True)
    idle_files = [work / f"idle-{engine}-{i}.txt" for i in range(1, IDLE + 1)]
    for path in idle_files:
        path.write_text("")
    kind = "kconnect" if engine.startswith("kconnect") else "java"
    try:
        props = CONVERTERS[CONVERTER]
        with EngineRun(kind, broker, work / engine, worker_props=props, env=env) as run:
            run.wait_rest()
            _create(run, "hot-1", hot[0], topics[0])
            for i, path in enumerate(idle_files, start=1):
                _create(run, f"idle-{i}", path, topics[2])
            alone, alone_at = _end_offsets(broker, topics[:1]), time.monotonic()
            time.sleep(REPORTED_S)
            alone_rate = (_end_offsets(broker, topics[:1])[topics[0]] - alone[topics[0]]) / (
                time.monotonic() - alone_at
            )
            _create(run, "hot-2", hot[1], topics[1])
            time.sleep(1.0)  # hot-2's first polls
            before, at = _end_offsets(broker, topics[:2]), time.monotonic()
            time.sleep(WINDOW_S)
            after, now = _end_offsets(broker, topics[:2]), time.monotonic()
            if max(after.values()) >= lines:
                raise RuntimeError(f"{engine}: a source finished inside the window; raise --lines")
            figures: dict[str, Any] = {
                "hot_1_alone_per_s": alone_rate,
                "lines_per_s": sum(after[t] - before[t] for t in topics[:2]) / (now - at),
                "hot_1_per_s": (after[topics[0]] - before[topics[0]]) / (now - at),
                "hot_2_per_s": (after[topics[1]] - before[topics[1]]) / (now - at),
            }
            if kind == "kconnect":
                placement = httpx.get(f"{run.url}/executor", timeout=5).json()
                where = {t["connector"]: host["id"] for host in placement["hosts"] for t in host["tasks"]}
                figures["shared_process"] = where["hot-1"] == where["hot-2"]
                figures["hosts"] = [
                    {"id": h["id"], "cpu": h.get("cpu"), "tasks": [t["connector"] for t in h["tasks"]]}
                    for h in placement["hosts"]
                ]
            return figures
    finally:
        for topic in topics:
            delete_topic(broker, topic)


def _said(figures: Mapping[str, Any]) -> str:
    """One run's figures, for the progress lines."""
    where = f", shared a process: {figures['shared_process']}" if "shared_process" in figures else ""
    return (
        f"hot-1 alone {figures['hot_1_alone_per_s']:,.0f} lines/s, then both "
        f"{figures['lines_per_s']:,.0f} lines/s (hot-1 {figures['hot_1_per_s']:,.0f}, "
        f"hot-2 {figures['hot_2_per_s']:,.0f}){where}"
    )


def _markdown(summary: Mapping[str, Any], runs: Mapping[str, list[dict[str, Any]]], lines: int) -> str:
    label = dict(COLUMNS)
    rows = [
        f"Two busy FileStreamSource tasks ({lines:,}-line files, each into a topic of its own) and "
        f"{IDLE} idle ones, created in turn; lines put in the busy sources' topics per second: hot-1's "
        f"over the {REPORTED_S} s before hot-2 is created, then both's over {WINDOW_S:.0f} s while both "
        f"run (median, min-max of the rounds).",
        "",
        "| engine | hot-1 alone, before hot-2 | both busy sources | hot-1 | hot-2 "
        "| the busy tasks shared a process |",
        "|---|---|---|---|---|---|",
    ]
    for engine, _ in COLUMNS:
        figures = summary[CASE].get(engine)
        if not figures:
            continue
        cells = [
            f"{figures[k]['median']:,.0f} ({figures[k]['min']:,.0f}-{figures[k]['max']:,.0f})"
            for k in NUMERIC
        ]
        shared = [r.get("shared_process") for r in runs[engine]]
        together = (
            "n/a (threads of one JVM)"
            if engine == "java"
            else f"{sum(map(bool, shared))} of {len(shared)} rounds"
        )
        rows.append(f"| {label[engine]} | {' | '.join(cells)} | {together} |")
    return "\n".join(rows) + "\n"


def chart(summary: Mapping[str, Any], engines: list[str], path: Path) -> None:
    """The first busy source's lines/s alone, then both's, per engine."""
    bar_chart(
        summary,
        [
            ("hot_1_alone_per_s", "hot-1 alone, lines/s"),
            ("lines_per_s", "hot-1 and hot-2 together, lines/s"),
        ],
        f"Two busy file sources and {IDLE} idle ones, created in turn (higher is better)",
        path,
        columns=[c for c in COLUMNS if c[0] in engines],
    )


def main() -> int:
    """Run the rounds for each engine, write the table, the chart and the raw figures."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--lines", type=int, default=LINES, help="lines in each busy source's file")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--against", metavar="REV", help="also run kconnect's Spark executor of this revision"
    )
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "performance" / "placement")
    args = parser.parse_args()
    engines = ["java", "kconnect", *(["kconnect_count"] if args.against else [])]
    runs: dict[str, list[dict[str, Any]]] = {engine: [] for engine in engines}
    with tempfile.TemporaryDirectory(prefix="kconnect-placement-") as scratch:
        work = Path(scratch)
        envs: dict[str, Mapping[str, str]] = {"java": {}, "kconnect": {}}
        if args.against:
            envs["kconnect_count"] = {
                "PYTHONPATH": add_worktree(args.against, work / "revision", ["plugins/spark/src"])
            }
        hot = (work / "hot-1.txt", work / "hot-2.txt")
        print(f"writing two files of {args.lines:,} lines", flush=True)
        for path in hot:
            write_lines(path, args.lines)
        try:
            with KafkaBroker(heap="1g") as broker:
                for n in range(args.rounds):
                    for engine in engines:
                        figures = one_run(engine, broker, work / f"round-{n}", hot, args.lines, envs[engine])
                        runs[engine].append(figures)
                        print(f"round {n + 1}/{args.rounds} {engine}: {_said(figures)}", flush=True)
        finally:
            if args.against:
                remove_worktree(work / "revision")
    summary = summarize({CASE: {e: {k: [r[k] for r in runs[e]] for k in NUMERIC} for e in engines}})
    markdown = _markdown(summary, runs, args.lines)
    print(markdown)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    record = {
        "commit": measured_commit(),
        "against": args.against,
        "lines": args.lines,
        "rounds": args.rounds,
        "median_ratio_load_over_count": (
            summary[CASE]["kconnect"]["lines_per_s"]["median"]
            / summary[CASE]["kconnect_count"]["lines_per_s"]["median"]
            if args.against
            else None
        ),
        "summary": summary,
        "runs": runs,
    }
    args.out.with_suffix(".json").write_text(json.dumps(record, indent=2) + "\n")
    args.out.with_suffix(".md").write_text(markdown)
    chart(summary, engines, args.out.with_suffix(".png"))
    print(f"wrote {args.out}.{{json,md,png}}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
