"""How much does Spark cost per job on this machine? The numbers behind running connector tasks on Spark.

Measures, with pyspark in local mode:

1. SparkSession start-up (``local[2]``, ``local[*]``, ``local[2]`` without the UI), each in a fresh
   Python process.
2. Per-job overhead of a trivial job, ``sc.parallelize(range(n), n).map(lambda x: x).collect()``, for 1, 2
   and 8 partitions: warm-up, then ``--reps`` runs; min / median / p95.
3. Long-running Python tasks: a ``mapPartitions`` that returns at once (after reading its input, and
   without reading it), and one that blocks until the driver releases it. For the blocking one:
   submit -> task running in its Python worker (start latency), and release -> ``collect()`` returns
   (finish latency). Also a trivial job's latency while a blocking task holds one of the task slots.
4. Concurrency: 8 Python threads each submit a job at the same moment (trivial, and one whose task sleeps
   200 ms), showing how jobs queue for the ``local[N]`` task slots.

Run: ``python benchmarks/spark_job_overhead.py`` (about 4 minutes on 2 CPUs). Writes
``benchmarks/results/spark_job_overhead.json`` and ``.png``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"
STARTUP_CONFIGS: dict[str, dict[str, str]] = {
    "local[2]": {"master": "local[2]"},
    "local[*]": {"master": "local[*]"},
    "local[2], ui off": {"master": "local[2]", "spark.ui.enabled": "false"},
}


def summary(samples_s: Iterable[float]) -> dict[str, float]:
    """Return min / median / p95 / max / mean of samples in seconds, as milliseconds."""
    values = sorted(samples_s)
    p95 = values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]
    return {
        "n": len(values),
        "min_ms": values[0] * 1000,
        "median_ms": statistics.median(values) * 1000,
        "p95_ms": p95 * 1000,
        "max_ms": values[-1] * 1000,
        "mean_ms": statistics.fmean(values) * 1000,
    }


def progress(message: str) -> None:
    print(message, flush=True)


# --- 1. start-up, one fresh process per sample ------------------------------------------------------------


def startup_child(config: dict[str, str]) -> None:
    """Run in a child process: time the pyspark import, getOrCreate() and the first job; print JSON."""
    started = time.perf_counter()
    from pyspark.sql import SparkSession

    imported = time.perf_counter()
    builder = SparkSession.builder.master(config["master"]).config("spark.ui.showConsoleProgress", "false")
    for key, value in config.items():
        if key != "master":
            builder = builder.config(key, value)
    spark = builder.getOrCreate()
    created = time.perf_counter()
    spark.sparkContext.parallelize([1], 1).map(lambda x: x).collect()
    first_job = time.perf_counter()
    parallelism = spark.sparkContext.defaultParallelism
    spark.stop()
    stopped = time.perf_counter()
    print(
        json.dumps(
            {
                "import_s": imported - started,
                "session_s": created - imported,
                "first_job_s": first_job - created,
                "stop_s": stopped - first_job,
                "default_parallelism": parallelism,
            }
        )
    )


def measure_startup(repeats: int) -> dict[str, Any]:
    """Start a SparkSession ``repeats`` times per configuration, each in a fresh interpreter."""
    results: dict[str, Any] = {}
    for name, config in STARTUP_CONFIGS.items():
        samples: list[dict[str, Any]] = []
        for i in range(repeats):
            wall = time.perf_counter()
            done = subprocess.run(
                [sys.executable, __file__, "--startup-child", json.dumps(config)],
                capture_output=True,
                text=True,
                check=True,
            )
            sample = json.loads(done.stdout.strip().splitlines()[-1])
            sample["process_wall_s"] = time.perf_counter() - wall
            samples.append(sample)
            progress(
                f"  startup {name} #{i + 1}: session {sample['session_s']:.2f} s, "
                f"first job {sample['first_job_s']:.2f} s, process {sample['process_wall_s']:.2f} s"
            )
        results[name] = {
            "config": config,
            "default_parallelism": samples[0]["default_parallelism"],
            "samples": samples,
            **{
                key: summary(s[key] for s in samples)
                for key in ("import_s", "session_s", "first_job_s", "stop_s", "process_wall_s")
            },
        }
    return results


# --- 2. per-job overhead ----------------------------------------------------------------------------------


def time_jobs(run: Callable[[], object], warmup: int, reps: int) -> list[float]:
    """Run ``run`` ``warmup`` times untimed, then ``reps`` times timed; return the durations in seconds."""
    for _ in range(warmup):
        run()
    samples = []
    for _ in range(reps):
        started = time.perf_counter()
        run()
        samples.append(time.perf_counter() - started)
    return samples


def measure_trivial_jobs(sc: Any, warmup: int, reps: int) -> dict[str, Any]:
    """Time a trivial map/collect job with 1, 2 and 8 partitions (one element per partition)."""
    results: dict[str, Any] = {}
    for partitions in (1, 2, 8):

        def run(n: int = partitions) -> object:
            return sc.parallelize(range(n), n).map(lambda x: x).collect()

        stats = summary(time_jobs(run, warmup, reps))
        results[f"{partitions} partitions"] = stats
        progress(
            f"  trivial job, {partitions} partition(s): min {stats['min_ms']:.1f} ms, "
            f"median {stats['median_ms']:.1f} ms, p95 {stats['p95_ms']:.1f} ms"
        )
    return results


# --- 3. long-running Python tasks -------------------------------------------------------------------------


class Gate:
    """A loopback socket the driver uses to learn that a task started and to tell it to finish."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.server.getsockname()[1]

    def accept(self) -> socket.socket:
        """Wait for the task to connect and return the connection (the task is running)."""
        conn, _ = self.server.accept()
        return conn

    def close(self) -> None:
        """Close the listening socket."""
        self.server.close()


def blocking_partition(port: int) -> Callable[[Iterator[int]], Iterator[int]]:
    """Return a mapPartitions function that reports to the driver, then blocks until released."""

    def run(rows: Iterator[int]) -> Iterator[int]:
        import socket as task_socket

        with task_socket.create_connection(("127.0.0.1", port)) as conn:
            conn.sendall(b"s")
            conn.recv(1)  # blocks until the driver releases the task
        yield sum(rows)

    return run


def drain(rows: Iterator[int]) -> Iterator[int]:
    """Read the partition's input, then return at once.

    A Python task that returns without reading its input is not reused: Spark starts a fresh Python worker for
    the next task, which costs a few hundred milliseconds (measured as ``immediate_job_input_not_read``).
    """
    for _ in rows:
        pass
    return iter([1])


def measure_long_running(sc: Any, warmup: int, reps: int) -> dict[str, Any]:
    """Time an immediate mapPartitions, a blocking one's start and finish, and a job beside a blocked one."""
    undrained = summary(
        time_jobs(
            lambda: sc.parallelize([1], 1).mapPartitions(lambda rows: iter([1])).collect(), warmup, reps
        )
    )
    immediate = summary(
        time_jobs(lambda: sc.parallelize([1], 1).mapPartitions(drain).collect(), warmup, reps)
    )
    progress(
        f"  immediate mapPartitions: median {immediate['median_ms']:.1f} ms, p95 {immediate['p95_ms']:.1f} ms"
    )
    progress(
        f"  immediate mapPartitions, input not read: median {undrained['median_ms']:.1f} ms, "
        f"p95 {undrained['p95_ms']:.1f} ms"
    )

    gate = Gate()
    start_latency, finish_latency, beside_blocked = [], [], []
    try:
        for i in range(warmup + reps):
            result: list[object] = []
            rdd = sc.parallelize([1], 1).mapPartitions(blocking_partition(gate.port))
            job = threading.Thread(target=lambda rdd=rdd, result=result: result.extend(rdd.collect()))
            submitted = time.perf_counter()
            job.start()
            conn = gate.accept()
            conn.recv(1)
            running = time.perf_counter()
            # While this task holds one slot, a trivial job runs in the other one.
            beside = time.perf_counter()
            sc.parallelize([1], 1).map(lambda x: x).collect()
            beside_done = time.perf_counter()
            released = time.perf_counter()
            conn.sendall(b"g")
            job.join()
            finished = time.perf_counter()
            conn.close()
            if result != [1]:
                raise RuntimeError(f"blocking job returned {result!r}")
            if i >= warmup:
                start_latency.append(running - submitted)
                finish_latency.append(finished - released)
                beside_blocked.append(beside_done - beside)
    finally:
        gate.close()
    results = {
        "immediate_job": immediate,
        "immediate_job_input_not_read": undrained,
        "blocking_task_start": summary(start_latency),
        "blocking_task_finish_after_release": summary(finish_latency),
        "trivial_job_beside_blocked_task": summary(beside_blocked),
    }
    for key in list(results)[2:]:
        progress(f"  {key}: median {results[key]['median_ms']:.1f} ms, p95 {results[key]['p95_ms']:.1f} ms")
    return results


# --- 4. concurrency ---------------------------------------------------------------------------------------


def measure_concurrency(sc: Any, threads: int, rounds: int, task_sleep_s: float) -> dict[str, Any]:
    """Submit ``threads`` one-partition jobs at once from as many threads, ``rounds`` times; time each."""

    def job() -> object:
        if task_sleep_s:

            def work(x: int) -> int:
                time.sleep(task_sleep_s)
                return x

            return sc.parallelize([1], 1).map(work).collect()
        return sc.parallelize([1], 1).map(lambda x: x).collect()

    per_job: list[float] = []
    walls: list[float] = []
    for _ in range(rounds + 1):  # the first round warms up the extra Python workers
        barrier = threading.Barrier(threads + 1)
        durations: list[float] = []
        lock = threading.Lock()

        def worker(
            barrier: threading.Barrier = barrier,
            lock: threading.Lock = lock,
            durations: list[float] = durations,
        ) -> None:
            barrier.wait()
            started = time.perf_counter()
            job()
            elapsed = time.perf_counter() - started
            with lock:
                durations.append(elapsed)

        pool = [threading.Thread(target=worker) for _ in range(threads)]
        for thread in pool:
            thread.start()
        barrier.wait()
        started = time.perf_counter()
        for thread in pool:
            thread.join()
        walls.append(time.perf_counter() - started)
        per_job.extend(durations)
    per_job, walls = per_job[threads:], walls[1:]
    job_stats, wall_stats = summary(per_job), summary(walls)
    progress(
        f"  {threads} concurrent jobs, task sleep {task_sleep_s * 1000:.0f} ms: round wall median "
        f"{wall_stats['median_ms']:.1f} ms, per-job median {job_stats['median_ms']:.1f} ms, "
        f"p95 {job_stats['p95_ms']:.1f} ms"
    )
    results: dict[str, Any] = {"threads": threads, "task_sleep_ms": task_sleep_s * 1000}
    results.update(per_job=job_stats, round_wall=wall_stats)
    return results


# --- report -----------------------------------------------------------------------------------------------


def chart(results: dict[str, Any], path: Path) -> None:
    """Draw the four measurements as bar charts of median with p95 whiskers."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(13, 9))

    def bars(ax: Any, title: str, unit: str, items: dict[str, dict[str, float]], scale: float = 1.0) -> None:
        names = list(items)
        medians = [items[n]["median_ms"] * scale for n in names]
        p95 = [items[n]["p95_ms"] * scale for n in names]
        mins = [items[n]["min_ms"] * scale for n in names]
        ax.bar(names, medians, color="#4c72b0", label="median")
        ax.errorbar(
            names,
            medians,
            yerr=[
                [m - lo for m, lo in zip(medians, mins, strict=True)],
                [hi - m for m, hi in zip(medians, p95, strict=True)],
            ],
            fmt="none",
            ecolor="black",
            capsize=4,
            label="min .. p95",
        )
        for x, value in enumerate(medians):
            ax.annotate(
                f"{value:.1f}",
                (x, value),
                ha="center",
                va="bottom",
                fontsize=8,
                xytext=(0, 2),
                textcoords="offset points",
            )
        ax.set_title(title)
        ax.set_ylabel(unit)
        ax.tick_params(axis="x", labelrotation=15, labelsize=8)
        ax.legend(fontsize=8)

    startup = results["startup"]
    bars(
        axes[0][0],
        "SparkSession start-up (getOrCreate)",
        "seconds",
        {name: startup[name]["session_s"] for name in startup},
        scale=0.001,
    )
    bars(axes[0][1], "Trivial job (parallelize/map/collect)", "ms", results["trivial_jobs"])
    long_running = results["long_running"]
    bars(
        axes[1][0],
        "Long-running Python task",
        "ms",
        {
            "immediate job": long_running["immediate_job"],
            "immediate, input not read": long_running["immediate_job_input_not_read"],
            "blocking: submit->running": long_running["blocking_task_start"],
            "blocking: release->done": long_running["blocking_task_finish_after_release"],
            "job beside blocked task": long_running["trivial_job_beside_blocked_task"],
        },
    )
    concurrency = results["concurrency"]
    bars(
        axes[1][1],
        f"{concurrency['trivial']['threads']} jobs from {concurrency['trivial']['threads']} threads at once",
        "ms",
        {
            "trivial: per job": concurrency["trivial"]["per_job"],
            "trivial: round wall": concurrency["trivial"]["round_wall"],
            "200 ms task: per job": concurrency["sleep_200ms"]["per_job"],
            "200 ms task: round wall": concurrency["sleep_200ms"]["round_wall"],
        },
    )
    env = results["environment"]
    fig.suptitle(
        f"pyspark {env['pyspark']} on {env['cpus']} CPUs, Python {env['python']}, master {env['master']}"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> int:
    """Run every measurement, print progress, and write the JSON and PNG results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--startup-child", help=argparse.SUPPRESS)
    parser.add_argument("--master", default="local[2]", help="master for the per-job measurements")
    parser.add_argument("--reps", type=int, default=50, help="timed repetitions per job measurement")
    parser.add_argument("--warmup", type=int, default=5, help="untimed repetitions first")
    parser.add_argument("--startup-repeats", type=int, default=3, help="fresh processes per start-up config")
    parser.add_argument("--concurrency-rounds", type=int, default=10)
    parser.add_argument("--out", type=Path, default=RESULTS / "spark_job_overhead.json")
    args = parser.parse_args()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    if args.startup_child:
        startup_child(json.loads(args.startup_child))
        return 0

    import pyspark
    from pyspark.sql import SparkSession

    results: dict[str, Any] = {
        "environment": {
            "pyspark": pyspark.__version__,
            "python": platform.python_version(),
            "java": subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()[
                0
            ],
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
            "master": args.master,
            "reps": args.reps,
            "warmup": args.warmup,
            "load_average_at_start": os.getloadavg(),
        }
    }
    progress(f"1/4 SparkSession start-up, {args.startup_repeats} fresh processes per config")
    results["startup"] = measure_startup(args.startup_repeats)

    spark = (
        SparkSession.builder.master(args.master)
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.ui.enabled", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    sc = spark.sparkContext
    results["environment"]["default_parallelism"] = sc.defaultParallelism
    try:
        progress(f"2/4 trivial jobs on {args.master}: {args.warmup} warm-up + {args.reps} timed each")
        results["trivial_jobs"] = measure_trivial_jobs(sc, args.warmup, args.reps)
        progress("3/4 long-running Python tasks")
        results["long_running"] = measure_long_running(sc, args.warmup, max(20, args.reps // 2))
        progress(f"4/4 concurrency: 8 threads x {args.concurrency_rounds} rounds")
        results["concurrency"] = {
            "trivial": measure_concurrency(sc, 8, args.concurrency_rounds, 0.0),
            "sleep_200ms": measure_concurrency(sc, 8, args.concurrency_rounds, 0.2),
        }
    finally:
        spark.stop()

    results["environment"]["load_average_at_end"] = os.getloadavg()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    png = args.out.with_suffix(".png")
    chart(results, png)
    progress(f"wrote {args.out} and {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
