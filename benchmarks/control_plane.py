"""Control plane side by side: start-up and REST throughput, kconnect vs Java Kafka Connect.

For each engine, one after the other on the same real broker, a standalone worker is started with
one FileStreamSource connector (a 1,000-line file into a fresh topic) and one FileStreamSink
(the topic back into a file), from the same worker and connector files. Measured per round:

- ``rest_up_s``: process start until ``GET /`` first answers 200;
- ``first_sink_line_s``: process start until the sink file holds its first line;
- once every line is in the sink file and 20 s of the same load has warmed the endpoint (Java's
  JIT compiles Jetty's and Jersey's paths in that time: in the first 5 s of load a Java worker
  answers about a third of what it answers warm): ``wrk -t1 -c50 -d10s --latency``
  against ``GET /connectors/<source>/status`` and ``GET /connectors``, giving requests/s
  (``status_rps``, ``connectors_rps``) and the 99th percentile latency (``status_p99_ms``,
  ``connectors_p99_ms``).

The worker is then stopped (SIGTERM, wait) before the next one starts. Rounds alternate which
engine goes first, so neither always meets a broker busy with the other's leftovers.

    python benchmarks/control_plane.py                   # 3 rounds, about 6 minutes on 2 CPUs
    python benchmarks/control_plane.py --rounds 1 --duration 5 --engines kconnect

Needs ``wrk`` on the PATH. Writes benchmarks/results/control_plane.json (medians and raw figures).
`run` is importable: it takes a running broker and returns the raw per-round figures.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "scripts"))
from engines import CONVERTERS, FILE_SINK, FILE_SOURCE, EngineRun  # noqa: E402
from file_pipeline import LineCounter  # noqa: E402
from kafka_broker import KafkaBroker  # noqa: E402

ENGINES = ("java", "kconnect")
FIGURES = (
    "rest_up_s",
    "first_sink_line_s",
    "status_rps",
    "status_p99_ms",
    "connectors_rps",
    "connectors_p99_ms",
)
LINES = 1000
SOURCE_CONNECTOR = "local-file-source"  # the name Kafka's sample file gives the source
START_TIMEOUT_S = 180.0
POLL_S = 0.02

_UNIT_MS = {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 60e3}


def parse_wrk(output: str) -> dict[str, float]:
    """Requests/s, the 99 % latency in ms and the socket errors from ``wrk --latency`` output.

    Raises RuntimeError if wrk got answers other than 2xx (the figure would not be the endpoint's)
    or if the output lacks a figure.
    """
    if (bad := re.search(r"Non-2xx or 3xx responses:\s*(\d+)", output)) is not None:
        raise RuntimeError(f"wrk got {bad.group(1)} non-2xx answers:\n{output}")
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
    rps = re.search(r"Requests/sec:\s*([\d.]+)", output)
    p99 = re.search(r"^\s*99%\s+([\d.]+)(us|ms|s|m)\s*$", output, re.MULTILINE)
    if rps is None or p99 is None:
        raise RuntimeError(f"cannot read wrk's output:\n{output}")
    return {
        "rps": float(rps.group(1)),
        "p99_ms": float(p99.group(1)) * _UNIT_MS[p99.group(2)],
        "socket_errors": float(sum(int(n) for n in errors.groups())) if errors else 0.0,
    }


def wrk(url: str, *, duration_s: int, connections: int) -> dict[str, float]:
    """Run ``wrk -t1 -c<connections> -d<duration>s --latency url``; its figures (see `parse_wrk`)."""
    command = ["wrk", "-t1", f"-c{connections}", f"-d{duration_s}s", "--latency", url]
    done = subprocess.run(command, capture_output=True, text=True, timeout=duration_s + 60, check=True)
    return parse_wrk(done.stdout)


def http_status(url: str) -> int | None:
    """The status of ``GET url``, or None if nothing answers yet."""
    try:
        with urllib.request.urlopen(url, timeout=1) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        return exc.code
    except (urllib.error.URLError, OSError):
        return None


def run_engine(
    engine: str,
    broker: KafkaBroker,
    work: Path,
    progress: Callable[[str], None],
    *,
    duration_s: int,
    warmup_s: int,
    connections: int,
) -> dict[str, float]:
    """Start one engine's worker, time its start-up, load its REST API with wrk, stop it."""
    out = work / f"{engine}-{int(time.time() * 1000)}"
    out.mkdir(parents=True)
    source, sink = out / "source.txt", out / "sink.txt"
    source.write_text(
        "".join(f"line {i:04d}: the quick brown fox jumps over the lazy dog\n" for i in range(LINES))
    )
    connectors = [
        {"name": SOURCE_CONNECTOR, "connector.class": FILE_SOURCE, "file": str(source), "topic": out.name},
        {"name": "local-file-sink", "connector.class": FILE_SINK, "file": str(sink), "topics": out.name},
    ]
    figures: dict[str, float] = {}
    with EngineRun(engine, broker, out, CONVERTERS["json, schemas on"], connectors) as run:
        base = run.url
        lines_in = LineCounter(sink)
        while True:
            now = time.monotonic() - run.started
            if "rest_up_s" not in figures and http_status(f"{base}/") == 200:
                figures["rest_up_s"] = round(now, 3)
                progress(f"  {engine:8s} REST up after {now:.2f} s")
            lines = lines_in()
            if "first_sink_line_s" not in figures and lines > 0:
                figures["first_sink_line_s"] = round(now, 3)
                progress(f"  {engine:8s} first sink line after {now:.2f} s")
            if lines >= LINES and "rest_up_s" in figures:
                break
            run.alive()
            if now > START_TIMEOUT_S:
                raise RuntimeError(f"{engine}: not every line in the sink file; see {out / 'worker.log'}")
            time.sleep(POLL_S)
        progress(f"  {engine:8s} all {LINES:,} lines in the sink after {now:.2f} s")
        urls = {
            "status": f"{base}/connectors/{SOURCE_CONNECTOR}/status",
            "connectors": f"{base}/connectors",
        }
        for name, url in urls.items():
            if warmup_s > 0:
                wrk(url, duration_s=warmup_s, connections=connections)
            result = wrk(url, duration_s=duration_s, connections=connections)
            figures[f"{name}_rps"] = round(result["rps"], 1)
            figures[f"{name}_p99_ms"] = round(result["p99_ms"], 2)
            progress(
                f"  {engine:8s} GET {url.removeprefix(base)}: {result['rps']:,.0f} req/s, "
                f"p99 {result['p99_ms']:.1f} ms"
                + (f", {result['socket_errors']:.0f} socket errors" if result["socket_errors"] else "")
            )
    return figures


def run(
    broker: KafkaBroker,
    rounds: int,
    progress: Callable[[str], None],
    *,
    engines: Sequence[str] = ENGINES,
    duration_s: int = 10,
    warmup_s: int = 20,
    connections: int = 50,
) -> dict[str, Any]:
    """Measure every engine `rounds` times on `broker`; raw figures, ``{engine: {figure: [per round]}}``.

    Called by `main` and by a suite runner that owns the broker. Round ``i`` starts with engine
    ``i % len(engines)``; each worker is stopped before the next starts.
    """
    if shutil.which("wrk") is None:
        raise RuntimeError("wrk is not installed (apt-get install wrk)")
    results: dict[str, Any] = {engine: {figure: [] for figure in FIGURES} for engine in engines}
    with tempfile.TemporaryDirectory(prefix="kconnect-control-plane-") as tmp:
        for round_ in range(rounds):
            order = [*engines[round_ % len(engines) :], *engines[: round_ % len(engines)]]
            for engine in order:
                progress(f"round {round_ + 1}/{rounds}: {engine}")
                figures = run_engine(
                    engine,
                    broker,
                    Path(tmp),
                    progress,
                    duration_s=duration_s,
                    warmup_s=warmup_s,
                    connections=connections,
                )
                for figure in FIGURES:
                    results[engine][figure].append(figures[figure])
    return results


def medians(results: dict[str, Any]) -> dict[str, dict[str, float]]:
    """The median of each engine's figures over the rounds."""
    return {
        engine: {figure: round(statistics.median(values), 3) for figure, values in figures.items() if values}
        for engine, figures in results.items()
    }


def chart(results: dict[str, Any], path: Path) -> None:
    """Bars of each engine's warm requests/s and p99 per endpoint, with the rounds' spread."""
    from report import bar_chart, summarize

    endpoints = {
        "GET /connectors/{name}/status": ("status_rps", "status_p99_ms"),
        "GET /connectors": ("connectors_rps", "connectors_p99_ms"),
    }
    raw = {
        endpoint: {
            engine: {"rps": figures[rps], "p99_ms": figures[p99]} for engine, figures in results.items()
        }
        for endpoint, (rps, p99) in endpoints.items()
    }
    bar_chart(
        summarize(raw),
        [("rps", "requests/s, warm (higher is better)"), ("p99_ms", "p99 latency, ms (lower is better)")],
        "REST reads, 50 clients (wrk) after 20 s of warm-up",
        path,
    )


def _progress(message: str) -> None:
    print(message, flush=True)


def main() -> int:
    """Start a broker, run every round, print and write the results."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=3, help="workers started per engine (default 3)")
    parser.add_argument(
        "--engines", default=",".join(ENGINES), help="comma-separated (default java,kconnect)"
    )
    parser.add_argument("--duration", type=int, default=10, help="seconds of each wrk run (default 10)")
    parser.add_argument("--warmup", type=int, default=20, help="seconds of load before each (default 20)")
    parser.add_argument("--connections", type=int, default=50, help="wrk connections (default 50)")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "control_plane.json")
    parser.add_argument("--chart", type=Path, help="also draw the warm REST figures into this PNG")
    args = parser.parse_args()
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    if unknown := set(engines) - set(ENGINES):
        parser.error(f"--engines: unknown {', '.join(sorted(unknown))} (known: {', '.join(ENGINES)})")
    _progress(f"starting a broker; {args.rounds} round(s) of {', '.join(engines)}")
    with KafkaBroker(heap="1g") as broker:
        results = run(
            broker,
            args.rounds,
            _progress,
            engines=engines,
            duration_s=args.duration,
            warmup_s=args.warmup,
            connections=args.connections,
        )
    report = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "load": f"wrk -t1 -c{args.connections} -d{args.duration}s after {args.warmup}s of warm-up",
        "lines": LINES,
        "rounds": args.rounds,
        "medians": medians(results),
        "raw": results,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report["medians"], indent=2))
    if args.chart:
        chart(results, args.chart)
        _progress(f"drew {args.chart}")
    _progress(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
