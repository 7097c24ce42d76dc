"""Replays after a crash: five SIGKILLs of the worker running a source task, kconnect against Java.

One broker; per engine a distributed cluster of two workers with Kafka's sample
``connect-distributed.properties`` (JsonConverter with schemas, ``offset.flush.interval.ms=10000``),
and one FileStreamSource task copying `--lines` numbered lines (default 6,000,000) into a
one-partition topic: kconnect's Python FileStreamSource, Java's ``connect-file`` 4.3.1. Each time
the topic has grown by another sixth of the lines since the last kill (at 1/6, 2/6 ... 5/6 of the
lines, a little earlier with duplicates), the worker process running the task is SIGKILLed (that
process only, as a crash leaves a Spark cluster's processes running) and another worker is started
at once, so two remain. Then a consumer reads the topic: lines delivered more than once
(duplicates) and lines missing (lost; must be 0).

kconnect runs twice: ``offset.flush.records`` at its default (a commit every 10,000 acknowledged
records as well) and 0 (off: commits on the interval only, as Java's). A kill costs the lines the
successor sends again from the last committed offset, and on kconnect possibly a zombie: the dead
worker's Spark Python process goes on sending until it notices its worker is gone. Each record after a
kill is told apart by its timestamp (the producer's CreateTime) and by the run of consecutive lines it
continues: a record after kill *k* continuing a run begun before the kill was sent by the dead task.

One setting differs from the sample file, for both engines: ``scheduled.rebalance.max.delay.ms=1000``
(the default, 5 minutes, would leave the dead worker's task unassigned that long after each kill).

    tox -e bench -- crash_replay.py                                          # about 15 minutes on 2 CPUs
    tox -e bench -- crash_replay.py --lines 60000 --runs kconnect,java      # a quick check
"""

from __future__ import annotations

import argparse
import bisect
import contextlib
import datetime
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

import httpx
import javaproperties
from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition
from engines import FILE_SOURCE, KafkaBroker, Progress, create_topic, process_tree, processes, write_lines
from kconnect_testkit.worker import WorkerProcess, wait_until
from run_all import measured_commit

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from tests.java_connect import JavaConnectWorker  # noqa: E402

LINES = 6_000_000
KILLS = 5
#: Kafka's sample worker file (``config/connect-distributed.properties`` of Kafka 4.3.1).
SAMPLE = HERE.parent / "tests" / "fixtures" / "kafka-config" / "connect-distributed.properties"
#: The one key set apart from the sample file, for both engines (see the module's docstring).
REBALANCE_DELAY_MS = "1000"
#: The copy is over once the topic's newest record is the last line and the topic has not grown for
#: this long (longer than the gap a kill leaves: the session timeout, 10 s, then a rebalance).
QUIET_S = 20.0
#: The longest wait for one step (a kill's mark reached, the copy's end).
STEP_TIMEOUT_S = 900.0
#: How long the Python processes a killed kconnect worker left are watched for their exit.
ORPHAN_WATCH_S = 120.0
OUT = HERE.parent / "docs" / "performance"


@dataclass(frozen=True)
class Setting:
    """One run: an engine and the worker keys it gets on top of the sample file."""

    key: str
    engine: str
    label: str
    props: Mapping[str, str] = field(default_factory=dict)


SETTINGS = (
    Setting("java", "java", "offset.flush.interval.ms=10000"),
    Setting("kconnect", "kconnect", "offset.flush.records=10000 (default)"),
    Setting("kconnect-off", "kconnect", "offset.flush.records=0 (off)", {"offset.flush.records": "0"}),
)


class Worker(Protocol):
    """What the harness uses of a worker, kconnect's `WorkerProcess` or Java's `JavaConnectWorker`."""

    port: int
    url: str
    process: Any

    def start(self) -> object:
        """Launch the worker process."""


def worker_props(bootstrap: str, group: str, setting: Setting) -> dict[str, str]:
    """The sample file's keys for a fresh group on `bootstrap`, and the setting's own."""
    with SAMPLE.open(encoding="utf-8") as sample_file:
        sample = dict(javaproperties.load(sample_file))
    # Java finds connect-file on its classpath, kconnect its Python FileStreamSource.
    sample.pop("plugin.path", None)
    return {
        **sample,
        "bootstrap.servers": bootstrap,
        "group.id": group,
        "config.storage.topic": f"{group}-configs",
        "offset.storage.topic": f"{group}-offsets",
        "status.storage.topic": f"{group}-status",
        "scheduled.rebalance.max.delay.ms": REBALANCE_DELAY_MS,
        **setting.props,
    }


def alive(pid: int) -> bool:
    """Whether `pid` runs (an exited process nobody reaped yet counts as gone)."""
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


@dataclass
class Kill:
    """One SIGKILL: when (ms since the epoch, the records' clock), and what the dead worker left."""

    at_ms: int
    worker: str
    #: Every process the worker had started (Spark's JVM and Python processes): killed at the end.
    left: list[int]
    #: The Python processes among them (the Spark task hosts).
    orphans: list[int]
    #: Seconds from the kill until every orphan had exited; None while any runs (or there was none).
    orphans_gone_s: float | None = None

    def watch(self) -> None:
        """Note when the orphans exit (in a thread, at most `ORPHAN_WATCH_S`)."""
        deadline = time.monotonic() + ORPHAN_WATCH_S
        while self.orphans and time.monotonic() < deadline:
            if not any(alive(pid) for pid in self.orphans):
                self.orphans_gone_s = time.time() - self.at_ms / 1000
                return
            time.sleep(0.01)


@dataclass
class Cluster:
    """The distributed workers of one engine, one group; workers are started in the background."""

    engine: str
    props: dict[str, str]
    folder: Path
    workers: list[Worker] = field(default_factory=list)
    kills: list[Kill] = field(default_factory=list)

    def add(self) -> Worker:
        """Start one more worker (its REST API comes up later: see `wait_ready`)."""
        worker: Worker = (
            JavaConnectWorker(self.folder, self.props)
            if self.engine == "java"
            else WorkerProcess(self.folder, self.props, mode="distributed")
        )
        self.workers.append(worker)
        threading.Thread(target=worker.start, daemon=True).start()
        return worker

    def wait_ready(self, timeout: float = 240) -> None:
        """Wait until every worker's ``GET /health`` answers 200 (group joined, topics read)."""
        for worker in self.workers:
            wait_until(
                f"{self.engine} worker {worker.url} healthy",
                lambda w=worker: httpx.get(w.url + "/health", timeout=5).status_code == 200,
                timeout,
            )

    def running_task(self) -> Worker | None:
        """The live worker the cluster reports running task ``copy-0``, if any."""
        for asker in self.workers:
            try:
                status = httpx.get(asker.url + "/connectors/copy/status", timeout=10).json()
            except (httpx.HTTPError, ValueError):
                continue
            tasks = status.get("tasks") or [{}]
            if tasks[0].get("state") != "RUNNING":
                return None
            where = str(tasks[0].get("worker_id", ""))
            return next((w for w in self.workers if where.endswith(f":{w.port}")), None)
        return None

    def kill(self, victim: Worker) -> Kill:
        """SIGKILL the victim's own process; watch the Python processes it started."""
        table = processes()
        left = process_tree(victim.process.pid, table)[1:]
        orphans = [p for p in left if Path(table[p][1].split(" ", 1)[0]).name.startswith("python")]
        at_ms = int(time.time() * 1000)
        victim.process.send_signal(signal.SIGKILL)
        victim.process.wait()
        self.workers.remove(victim)
        kill = Kill(at_ms, victim.url, left, orphans)
        self.kills.append(kill)
        threading.Thread(target=kill.watch, daemon=True).start()
        return kill

    def stop(self) -> None:
        """Stop the live workers together, then kill what the dead ones left."""
        for worker in self.workers:
            if worker.process is not None and worker.process.poll() is None:
                worker.process.send_signal(signal.SIGTERM)
        for worker in self.workers:
            if worker.process is not None:
                try:
                    worker.process.wait(60)
                except subprocess.TimeoutExpired:
                    worker.process.kill()
                    worker.process.wait()
        for pid in (p for kill in self.kills for p in kill.left):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


class TopicEnd:
    """The copy topic's end offset (records written so far, duplicates included)."""

    def __init__(self, bootstrap: str, topic: str) -> None:
        self.partition = TopicPartition(topic, 0)
        self.consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"{topic}-watch"})

    def __call__(self) -> int:
        return int(self.consumer.get_watermark_offsets(self.partition, timeout=10, cached=False)[1])

    def last_line(self) -> int:
        """The line number of the topic's newest record (-1 if there is none)."""
        end = self()
        if not end:
            return -1
        self.consumer.assign([TopicPartition(self.partition.topic, 0, end - 1)])
        for message in self.consumer.consume(1, timeout=10):
            if not message.error():
                return line_number(message.value())
        return -1

    def close(self) -> None:
        """Close the client."""
        self.consumer.close()


@dataclass
class KillTally:
    """What the topic says about one kill."""

    at_ms: int
    #: Records the dead task sent after the kill (the zombie), and the last one's time after the kill.
    zombie_records: int = 0
    zombie_ms: int = 0
    #: The highest line written before the kill, and the line the successor started from.
    reached: int = -1
    resumed_at: int | None = None

    @property
    def replayed(self) -> int:
        """Lines written before the kill that the successor sent again (from its committed offset)."""
        return 0 if self.resumed_at is None else max(self.reached - self.resumed_at + 1, 0)


class Runs:
    """Splits the topic, in offset order, into runs of consecutive lines, and charges each kill.

    A task sends its lines in order, so every task run (and a zombie going on after its worker died)
    is one run of consecutive line numbers; a successor starts a new run at its committed offset.
    A record stamped after kill *k* that extends a run begun before kill *k* was sent by the dead
    task after the kill.
    """

    def __init__(self, kill_ms: Sequence[int]) -> None:
        self.kill_ms = list(kill_ms)
        self.kills = [KillTally(at) for at in kill_ms]
        self._heads: dict[int, int] = {}  # the next line of a run -> the run's start time
        self._epoch_max = [-1] * (len(kill_ms) + 1)

    def add(self, line: int, at_ms: int) -> None:
        """One record, in offset order."""
        epoch = bisect.bisect_right(self.kill_ms, at_ms) - 1
        started = self._heads.pop(line, None)
        if started is None:
            started = at_ms
            if epoch >= 0 and self.kills[epoch].resumed_at is None:
                self.kills[epoch].resumed_at = line
        self._heads[line + 1] = started
        if epoch >= 0 and started < self.kill_ms[epoch]:
            tally = self.kills[epoch]
            tally.zombie_records += 1
            tally.zombie_ms = max(tally.zombie_ms, at_ms - tally.at_ms)
        self._epoch_max[epoch + 1] = max(self._epoch_max[epoch + 1], line)

    def done(self) -> list[KillTally]:
        """The tallies, with each kill's highest line before it."""
        for k, tally in enumerate(self.kills):
            tally.reached = max(self._epoch_max[: k + 1])
        return self.kills


def line_number(value: bytes) -> int:
    """The number of the line a record carries (`engines.line`, inside the converter's JSON); -1 if none."""
    at = value.find(b"line ")
    return int(value[at + 5 : at + 14]) if at >= 0 else -1


def read_topic(bootstrap: str, topic: str, lines: int, kill_ms: Sequence[int]) -> dict[str, Any]:
    """Read every record of the topic: duplicates, lost lines, and each kill's tally."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"{topic}-count",
            "enable.auto.commit": False,
            "fetch.max.bytes": 64 << 20,
        }
    )
    partition = TopicPartition(topic, 0)
    end = consumer.get_watermark_offsets(partition, timeout=10, cached=False)[1]
    consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    seen = bytearray(lines)
    runs = Runs(kill_ms)
    records = strangers = 0
    position = 0
    deadline = time.monotonic() + STEP_TIMEOUT_S
    while position < end:
        if time.monotonic() > deadline:
            raise RuntimeError(
                f"reading {topic}: offset {position:,} of {end:,} after {STEP_TIMEOUT_S:.0f} s"
            )
        for message in consumer.consume(10_000, timeout=1.0):
            if message.error():
                raise RuntimeError(f"reading {topic}: {message.error()}")
            position = message.offset() + 1
            records += 1
            number = line_number(message.value())
            if not 0 <= number < lines:
                strangers += 1
                continue
            seen[number] = min(seen[number] + 1, 255)
            runs.add(number, message.timestamp()[1])
    consumer.close()
    distinct = lines - seen.count(0)
    return {
        "records": records,
        "duplicates": records - strangers - distinct,
        "lost": lines - distinct,
        "unexpected_records": strangers,
        "kills": [{**asdict(t), "replayed": t.replayed} for t in runs.done()],
    }


def crash_run(
    setting: Setting, broker: KafkaBroker, source: Path, lines: int, folder: Path, progress: Progress
) -> dict[str, Any]:
    """Copy `source` on a fresh cluster of two workers, killing the task's worker `KILLS` times."""
    folder.mkdir(parents=True, exist_ok=True)
    group = f"crash-{setting.key}-{uuid.uuid4().hex[:8]}"
    topic = f"{group}-lines"
    create_topic(broker, topic, 1)
    cluster = Cluster(setting.engine, worker_props(broker.bootstrap_servers, group, setting), folder)
    written = TopicEnd(broker.bootstrap_servers, topic)
    try:
        cluster.add()
        cluster.add()
        cluster.wait_ready()
        config = {"connector.class": FILE_SOURCE, "tasks.max": "1", "file": str(source), "topic": topic}
        answer = httpx.put(cluster.workers[0].url + "/connectors/copy/config", json=config, timeout=60)
        if answer.status_code != 201:
            raise RuntimeError(f"{setting.engine}: creating the connector answered {answer.text}")
        started = time.time()
        killed_at = 0
        for k in range(1, KILLS + 1):
            # Spaced in records written, not in lines: duplicates alone never bring the next kill on.
            mark = killed_at + lines // (KILLS + 1)
            victims: list[Worker] = []

            def ready(mark: int = mark, victims: list[Worker] = victims) -> bool:
                running = cluster.running_task()
                victims[:] = [running] if running is not None and written() >= mark else []
                return bool(victims)

            wait_until(f"{setting.key}: task running, {mark:,} records written", ready, STEP_TIMEOUT_S)
            kill = cluster.kill(victims[0])
            killed_at = written()
            progress(f"{setting.key}: kill {k} at {killed_at:,} records ({len(kill.orphans)} orphans)")
            cluster.add()
        copy_s = wait_copied(cluster, written, lines, started, progress, setting.key)
    finally:
        written.close()
        cluster.stop()
    progress(f"{setting.key}: copied in {copy_s:.0f} s; reading the topic")
    figures = read_topic(broker.bootstrap_servers, topic, lines, [kill.at_ms for kill in cluster.kills])
    for tally, kill in zip(figures["kills"], cluster.kills, strict=True):
        tally["orphans"] = len(kill.orphans)
        tally["orphans_gone_s"] = kill.orphans_gone_s
    duplicates = figures["duplicates"]
    return {
        "engine": setting.engine,
        "setting": setting.label,
        "lines": lines,
        "kill_count": KILLS,
        **figures,
        "duplicates_per_kill": duplicates / KILLS,
        "zombie_records": sum(t["zombie_records"] for t in figures["kills"]),
        "zombie_ms_max": max(t["zombie_ms"] for t in figures["kills"]),
        "copy_s": copy_s,
    }


def wait_copied(
    cluster: Cluster, written: TopicEnd, lines: int, started: float, progress: Progress, key: str
) -> float:
    """Wait until the topic's newest record is the last line, and the topic stopped growing with the
    task running; the copy's time, from the connector's creation to the last record.

    The newest record tells a finished copy from a task that is only moving (a worker that joined
    takes it over, its Spark session still starting): a successor always copies to the end.
    """
    last, last_change, reported = -1, time.time(), time.time()
    deadline = time.monotonic() + STEP_TIMEOUT_S
    while time.monotonic() < deadline:
        now_written, now = written(), time.time()
        if now_written != last:
            last, last_change = now_written, now
        elif (
            now_written >= lines
            and now - last_change >= QUIET_S
            and cluster.running_task() is not None
            and written.last_line() == lines - 1
        ):
            return last_change - started
        if now - reported > 15:
            progress(f"{key}: {now_written:,} records written")
            reported = now
        time.sleep(0.2)
    raise RuntimeError(f"{key}: the copy did not end within {STEP_TIMEOUT_S:.0f} s ({last:,} records)")


COLUMNS = (
    ("duplicates", "duplicates"),
    ("duplicates_per_kill", "duplicates per kill"),
    ("zombie_records", "of which sent by the dead task after its kill"),
    ("zombie_ms_max", "dead task's last send after its kill, ms (max)"),
    ("lost", "lost"),
    ("copy_s", "copy time, s"),
)


def table(runs: Sequence[Mapping[str, Any]]) -> str:
    """The Markdown table: one row per run."""
    rows = [
        "| engine | setting | " + " | ".join(label for _, label in COLUMNS) + " |",
        "|---|---|" + "---|" * len(COLUMNS),
    ]
    for run in runs:
        cells = [f"{run[key]:,.0f}" for key, _ in COLUMNS]
        rows.append(f"| {run['engine']} | {run['setting']} | " + " | ".join(cells) + " |")
    return "\n".join(rows) + "\n"


def chart(runs: Sequence[Mapping[str, Any]], title: str, path: Path) -> None:
    """Duplicates per kill, stacked: replayed from the last commit, and sent by the dead task."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [f"{run['engine']}\n{run['setting']}" for run in runs]
    zombie = [run["zombie_records"] / run["kill_count"] for run in runs]
    replayed = [max(run["duplicates_per_kill"] - z, 0) for run, z in zip(runs, zombie, strict=True)]
    fig, axis = plt.subplots(figsize=(7.5, 4.2))
    axis.bar(labels, replayed, 0.6, label="replayed from the last offset commit", color="#4c72b0")
    bars = axis.bar(
        labels, zombie, 0.6, bottom=replayed, label="sent by the dead task after its kill", color="#dd8452"
    )
    axis.bar_label(bars, labels=[f"{r + z:,.0f}" for r, z in zip(replayed, zombie, strict=True)], fontsize=8)
    axis.set_ylabel("duplicate records per kill")
    axis.tick_params(axis="x", labelsize=8)
    axis.legend(fontsize=8)
    axis.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_report(report: dict[str, Any], out: Path) -> None:
    """``crash_replay.json``, ``crash_replay.md`` (the table) and ``crash_replay.png``."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "crash_replay.json").write_text(json.dumps(report, indent=2) + "\n")
    title = f"Five SIGKILLs during a {report['lines']:,}-line FileStreamSource copy"
    (out / "crash_replay.md").write_text(
        "\n".join(
            [
                f"### {title}",
                "",
                f"*Commit {report['commit']}, {report['measured']}, one run each; load average "
                f"{report['load_before']} before, {report['load_after']} after. Two distributed workers "
                "per engine with Kafka's sample connect-distributed.properties "
                f"(scheduled.rebalance.max.delay.ms={REBALANCE_DELAY_MS}).*",
                "",
                table(report["runs"]),
                f"![{title}](crash_replay.png)",
                "",
            ]
        )
    )
    chart(report["runs"], title, out / "crash_replay.png")


def load_average() -> str:
    """The 1, 5 and 15 minute load averages, as `uptime` shows them."""
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> int:
    """Start a broker, run each setting once, write the report."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--lines", type=int, default=LINES)
    parser.add_argument(
        "--runs", default=",".join(s.key for s in SETTINGS), help="which of java,kconnect,kconnect-off"
    )
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it (the workers' logs)")
    args = parser.parse_args()
    settings = [s for s in SETTINGS if s.key in args.runs.split(",")]
    began = time.monotonic()

    def progress(message: str) -> None:
        print(f"[{time.monotonic() - began:7.0f} s] {message}", file=sys.stderr, flush=True)

    load_before = load_average()
    runs = []
    work = (
        contextlib.nullcontext(str(args.keep))
        if args.keep
        else tempfile.TemporaryDirectory(prefix="kconnect-crash-")
    )
    with work as tmp, KafkaBroker(heap="1g") as broker:
        source = Path(tmp) / "lines.txt"
        progress(f"writing {args.lines:,} lines")
        write_lines(source, args.lines)
        for setting in settings:
            progress(f"{setting.key}: {setting.label}")
            run = crash_run(setting, broker, source, args.lines, Path(tmp) / setting.key, progress)
            progress(
                f"{setting.key}: {run['duplicates']:,} duplicates, {run['lost']:,} lost, "
                f"{run['zombie_records']:,} sent by dead tasks"
            )
            runs.append(run)
    report = {
        "lines": args.lines,
        "commit": measured_commit(),
        "measured": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "load_before": load_before,
        "load_after": load_average(),
        "runs": runs,
    }
    write_report(report, args.out)
    print(table(runs))
    progress(f"done: {args.out / 'crash_replay.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
