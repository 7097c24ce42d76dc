"""Side-by-side throughput: the file source -> Kafka -> file sink pipeline, kconnect vs Java Kafka Connect.

Both run on the same real broker with the same worker settings (JsonConverter with schemas, as
Kafka's connect-standalone.properties), the same connector files and the same N-line input. For
each engine: wall time from process start until the sink file holds every line (start-up
included), and the transfer rate from the first sink line to the last (start-up excluded).

    python benchmarks/pipeline_throughput.py --lines 1000000

Writes benchmarks/results/pipeline_throughput.json and .png.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "scripts"))
from file_pipeline import count_lines, free_port, kconnect_command, write_pipeline_files  # noqa: E402
from kafka_broker import KafkaBroker, java_connect_command  # noqa: E402


def run_engine(
    engine: str, broker: KafkaBroker, source: Path, lines: int, work: Path, timeout: float
) -> dict[str, float]:
    """Run one engine's pipeline to completion and time it."""
    out = work / engine
    out.mkdir(parents=True, exist_ok=True)
    sink = out / "sink.txt"
    topic = f"bench-{engine}-{int(time.time() * 1000)}"
    worker, src, snk = write_pipeline_files(
        out, bootstrap=broker.bootstrap_servers, rest_port=free_port(), source=source, sink=sink, topic=topic
    )
    if engine == "kconnect":
        command = kconnect_command(worker, src, snk)
    else:
        command = java_connect_command(worker, src, snk, heap="1g")
    log = (out / "worker.log").open("w")
    started = time.monotonic()
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=out)
    first = None
    last_print = 0.0
    try:
        while True:
            done = count_lines(sink)
            now = time.monotonic()
            if done and first is None:
                first = now
            if now - last_print > 2:
                print(f"  {engine:8s} {now - started:6.1f}s {done:>10,} / {lines:,}", flush=True)
                last_print = now
            if done >= lines:
                break
            if process.poll() is not None:
                raise RuntimeError(f"{engine} exited early; see {out / 'worker.log'}")
            if now - started > timeout:
                raise RuntimeError(f"{engine} timed out; see {out / 'worker.log'}")
            time.sleep(0.2)
        finished = time.monotonic()
    finally:
        process.terminate()
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()
    if sink.read_bytes() != source.read_bytes():
        raise RuntimeError(f"{engine}: sink differs from source")
    assert first is not None
    transfer = max(finished - first, 1e-6)
    return {
        "wall_s": round(finished - started, 2),
        "startup_s": round(first - started, 2),
        "transfer_s": round(transfer, 2),
        "records_per_s": round(lines / transfer),
        "records_per_s_with_startup": round(lines / (finished - started)),
    }


def _chart(results: dict[str, dict[str, float]], lines: int, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    engines = list(results)
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    left.bar(
        engines, [results[e]["records_per_s"] for e in engines], color=["#4c72b0", "#dd8452"][: len(engines)]
    )
    left.set_title("records/s (start-up excluded)")
    right.bar(engines, [results[e]["wall_s"] for e in engines], color=["#4c72b0", "#dd8452"][: len(engines)])
    right.set_title("wall time to last record, s (start-up included)")
    for axis, key in ((left, "records_per_s"), (right, "wall_s")):
        for i, engine in enumerate(engines):
            axis.annotate(f"{results[engine][key]:,}", (i, results[engine][key]), ha="center", va="bottom")
    fig.suptitle(f"file -> Kafka -> file, {lines:,} lines, JsonConverter with schemas, one broker")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> int:
    """Run both engines and write the results."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--engines", default="kconnect,java")
    parser.add_argument("--timeout", type=float, default=900)
    args = parser.parse_args()
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="kconnect-bench-") as tmp, KafkaBroker(heap="1g") as broker:
        work = Path(tmp)
        source = work / "source.txt"
        with source.open("w") as f:
            f.writelines(
                f"line {i:08d}: the quick brown fox jumps over the lazy dog\n" for i in range(args.lines)
            )
        for engine in args.engines.split(","):
            print(f"== {engine}")
            results[engine] = run_engine(engine, broker, source, args.lines, work, args.timeout)
            print(f"   {results[engine]}")
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    report = {
        "lines": args.lines,
        "machine": f"{platform.machine()}, {__import__('os').cpu_count()} cores",
        "results": results,
    }
    (out / "pipeline_throughput.json").write_text(json.dumps(report, indent=2) + "\n")
    _chart(results, args.lines, out / "pipeline_throughput.png")
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
