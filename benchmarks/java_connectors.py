"""Java connectors' speed: the same Java plugin jars on kconnect and on Java Kafka Connect 4.3.1.

Issue 23's goal is at least 0.9x Java's rate in both scenarios: the connector code and the JVM are
the same, so what differs is what Spark and kconnect's control channel cost. Both engines run on one
broker with the same plugin folders on ``plugin.path`` (fetched with Maven by
`kconnect_testkit.plugin_jars`, as the tests fetch them) and the same connector configs:

* ``file``: Kafka's ``connect-file`` 4.3.1 jar, FileStreamSource -> a fresh one-partition topic ->
  FileStreamSink, `--lines` lines of 100 bytes (default 1,000,000), JsonConverter with schemas
  (Kafka's sample worker file). ``connector.plugin.version=4.3.1`` picks the jar's classes, on
  kconnect over the Python FileStream plugin that answers to the same names (Java's worker also
  has the jar on its classpath, with Kafka's runtime: the same classes). The sink rate is
  throughput.py's (lines / first to last line in the sink file); the source rate counts the topic's
  records from the last poll that saw none to the last line (polled every 0.1 s). Start-up is in
  neither, and is reported apart (launch -> first sink line).
* ``debezium``: Debezium's PostgreSQL connector 3.6.1.Final (its ``tar.gz:plugin`` archive)
  snapshotting a table of `--rows` rows of 6 columns filled with ``generate_series`` (default
  1,000,000; ``snapshot.mode=initial_only``, pgoutput, JsonConverter with schemas), each round
  with a slot, publication and topic of its own. The rate is rows / (create -> the last snapshot
  record in the topic): the connector is created through REST once the worker answers and its
  process tree is idle (kconnect's Spark session starts after REST answers), so connector and task
  start-up are in it, the worker's not; the snapshot alone (first record -> last) is reported
  beside it.

Each round runs every engine once, one after the other; the figures are medians over `--rounds`.
Writes ``java_connectors.json``, ``java_connectors.md`` and ``java_connectors.png`` to ``--out``
(default benchmarks/results). Run it alone: the machine's other load is in every figure. Nothing
here fails on a figure.

    tox -e bench -- java_connectors.py                                  # both, 1M lines and 1M rows, 3 rounds
    tox -e bench -- java_connectors.py --scenario file --lines 20000 --rounds 1     # a quick check
    tox -e bench -- java_connectors.py --scenario debezium --rows 5000 --rounds 1   # a quick check
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import httpx
from crash_replay import TopicEnd
from engines import (
    CONVERTERS,
    ENGINES,
    FILE_SINK,
    FILE_SOURCE,
    EngineRun,
    KafkaBroker,
    Progress,
    create_topic,
    fresh_topic,
    wait_idle,
    watch_sink,
    write_lines,
)
from jdbc import TABLE, fill_table
from kconnect_testkit.plugin_jars import DEBEZIUM_VERSION, fetch_connect_file, fetch_debezium_postgres
from report import bar_chart, summarize, table
from run_all import measured_commit

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from tests.databases import PASSWORD, USER, PostgresServer  # noqa: E402

LINES = 1_000_000
ROWS = 1_000_000
CONNECT_FILE_VERSION = "4.3.1"
CONVERTER = "json, schemas on"
OUT = HERE / "results"
POSTGRES_CONNECTOR = "io.debezium.connector.postgresql.PostgresConnector"
#: The figures of the tables: (key, label, unit, higher is better).
FILE_FIGURES = [
    ("source_lines_per_s", "source lines/s (topic)", "/s", True),
    ("sink_lines_per_s", "sink lines/s (file)", "/s", True),
    ("first_sink_line_s", "launch -> first sink line", "s", False),
]
DEBEZIUM_FIGURES = [
    ("rows_per_s", "rows/s, create -> last record", "/s", True),
    ("snapshot_rows_per_s", "rows/s, first -> last record", "/s", True),
    ("first_record_s", "create -> first record (last poll without)", "s", False),
    ("last_record_s", "create -> last record", "s", False),
]

Raw = dict[str, dict[str, dict[str, list[float]]]]


class TopicWatch:
    """A thread polling a topic's end offset every 0.1 s until it holds `expected` records: when it
    was last seen empty and when it was full (`rate` is records over that span)."""

    def __init__(self, bootstrap: str, topic: str, expected: int) -> None:
        self.end = TopicEnd(bootstrap, topic)
        self.expected = expected
        self.last_empty = time.monotonic()
        self.full: float | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        while not self._stop.is_set():
            count, now = self.end(), time.monotonic()
            if not count:
                self.last_empty = now
            if count >= self.expected:
                self.full = now
                return
            self._stop.wait(0.1)

    def __enter__(self) -> TopicWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.end.close()

    def rate(self) -> float:
        """Records per second from the last empty poll to the poll that saw them all."""
        self._thread.join()
        assert self.full is not None
        return self.expected / max(self.full - self.last_empty, 1e-6)


def delete_topic(broker: KafkaBroker, topic: str) -> None:
    """Delete a round's `topic` once measured: a 1M-row Debezium topic takes about 3 GB."""
    from confluent_kafka.admin import AdminClient

    admin = AdminClient({"bootstrap.servers": broker.bootstrap_servers})  # alive until the answer
    for future in admin.delete_topics([topic]).values():
        future.result(timeout=60)


def java_file_connectors(source: Path, topic: str, sink: Path) -> list[dict[str, str]]:
    """FileStreamSource and FileStreamSink of Kafka's ``connect-file`` jar (its version picked)."""
    java = {"tasks.max": "1", "connector.plugin.version": CONNECT_FILE_VERSION}
    return [
        {
            "name": "java-file-source",
            "connector.class": FILE_SOURCE,
            "file": str(source),
            "topic": topic,
            **java,
        },
        {"name": "java-file-sink", "connector.class": FILE_SINK, "file": str(sink), "topics": topic, **java},
    ]


def fail_if_failed(run: EngineRun, names: list[str]) -> None:
    """Raise with the trace if connector `names` or one of its tasks is FAILED (REST status)."""
    for name in names:
        try:
            response = httpx.get(f"{run.url}/connectors/{name}/status", timeout=10)
        except httpx.HTTPError:
            return  # REST not up yet
        if response.status_code != 200:
            continue
        status = response.json()
        for state in (status["connector"], *status["tasks"]):
            if state["state"] == "FAILED":
                raise RuntimeError(f"{run.engine}: {name} FAILED: {state.get('trace', '')[:2000]}")


def file_round(
    engine: str,
    broker: KafkaBroker,
    plugins: Path,
    source: Path,
    lines: int,
    folder: Path,
    progress: Progress,
) -> dict[str, float]:
    """One copy of `source` through a fresh topic into a sink file; the round's figures."""
    topic = fresh_topic(f"java-file-{engine}")
    create_topic(broker, topic, 1)
    sink = folder / "sink.txt"
    props = {**CONVERTERS[CONVERTER], "plugin.path": str(plugins)}
    connectors = java_file_connectors(source, topic, sink)
    with (
        TopicWatch(broker.bootstrap_servers, topic, lines) as topic_watch,
        EngineRun(engine, broker, folder, props, connectors) as run,
    ):
        names = [c["name"] for c in connectors]

        def checked(message: str) -> None:
            fail_if_failed(run, names)
            progress(message)

        times = watch_sink(run, sink, lines, checked)
        source_rate = topic_watch.rate()
    delete_topic(broker, topic)
    if sink.read_bytes() != source.read_bytes():
        raise RuntimeError(f"{engine}: the sink file differs from the source file; see {folder}")
    sink.unlink()
    return {
        "source_lines_per_s": source_rate,
        "sink_lines_per_s": lines / max(times["last_line_s"] - times["first_line_s"], 1e-6),
        "first_sink_line_s": times["first_line_s"],
    }


def run_file(broker: KafkaBroker, rounds: int, lines: int, folder: Path, progress: Progress) -> Raw:
    """The ``file`` scenario's raw figures: ``{case: {engine: {figure: [per round]}}}``."""
    plugins = fetch_connect_file(CONNECT_FILE_VERSION)
    source = folder / "source.txt"
    write_lines(source, lines)
    raw: Raw = {}
    case = f"connect-file {CONNECT_FILE_VERSION}, {lines:,} lines"
    for r in range(rounds):
        for engine in ENGINES:
            progress(f"file, round {r + 1}/{rounds}: {engine}")
            figures = file_round(
                engine, broker, plugins, source, lines, folder / f"file-{engine}-{r}", progress
            )
            progress(
                f"  {engine}: source {figures['source_lines_per_s']:,.0f} lines/s, "
                f"sink {figures['sink_lines_per_s']:,.0f} lines/s"
            )
            keep(raw, case, engine, figures)
    return raw


def keep(raw: Raw, case: str, engine: str, figures: Mapping[str, float]) -> None:
    """Add one round's `figures` to `raw`."""
    for key, value in figures.items():
        raw.setdefault(case, {}).setdefault(engine, {}).setdefault(key, []).append(value)


def debezium_config(pg: PostgresServer, database: str, prefix: str, slot: str) -> dict[str, str]:
    """Debezium's snapshot-only config for `TABLE`: pgoutput, a slot and publication of its own."""
    return {
        "connector.class": POSTGRES_CONNECTOR,
        "tasks.max": "1",
        "database.hostname": "127.0.0.1",
        "database.port": str(pg.port),
        "database.user": USER,
        "database.password": PASSWORD,
        "database.dbname": database,
        "topic.prefix": prefix,
        "table.include.list": f"public.{TABLE}",
        "plugin.name": "pgoutput",
        "slot.name": slot,
        "publication.name": f"pub_{slot}",
        "publication.autocreate.mode": "filtered",
        "snapshot.mode": "initial_only",
    }


def create_connector(run: EngineRun, name: str, config: Mapping[str, str], timeout: float = 60) -> float:
    """PUT `config` as connector `name` (retrying while the worker refuses: its herder still starting);
    the monotonic time of the call that created it."""
    deadline = time.monotonic() + timeout
    while True:
        run.alive()
        at = time.monotonic()
        response = httpx.put(f"{run.url}/connectors/{name}/config", json=dict(config), timeout=30)
        if response.status_code in (200, 201):
            return at
        if time.monotonic() > deadline:
            raise RuntimeError(f"{run.engine}: creating {name}: {response.status_code} {response.text}")
        time.sleep(0.5)


def debezium_round(
    engine: str,
    broker: KafkaBroker,
    plugins: Path,
    pg: PostgresServer,
    database: str,
    rows: int,
    folder: Path,
    progress: Progress,
) -> dict[str, float]:
    """One snapshot of `TABLE` by an idle worker's new Debezium connector; the round's figures."""
    prefix = fresh_topic(f"dbz-{engine}")
    slot = f"bench_{engine}_{time.monotonic_ns()}"
    topic = f"{prefix}.public.{TABLE}"
    create_topic(broker, topic, 1)
    props = {**CONVERTERS["json, schemas on"], "plugin.path": str(plugins)}
    try:
        with (
            EngineRun(engine, broker, folder, props, heap="2g") as run,
            TopicWatch(broker.bootstrap_servers, topic, rows) as topic_watch,
        ):
            run.wait_rest()
            assert run.process is not None
            wait_idle(run.process.pid)  # kconnect's Spark session starts after REST answers
            name = "debezium-postgres"
            created = create_connector(run, name, debezium_config(pg, database, prefix, slot))
            follow(run, name, topic_watch, rows, progress, timeout=max(600.0, rows / 500))
            assert topic_watch.full is not None
            elapsed = topic_watch.full - created
            snapshot_rate = topic_watch.rate()
    finally:
        delete_topic(broker, topic)
        pg.execute(
            database,
            "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
            f"WHERE slot_name = '{slot}'",
            f"DROP PUBLICATION IF EXISTS pub_{slot}",
        )
    return {
        "rows_per_s": rows / elapsed,
        "snapshot_rows_per_s": snapshot_rate,
        "first_record_s": topic_watch.last_empty - created,
        "last_record_s": elapsed,
    }


def follow(
    run: EngineRun, name: str, watch: TopicWatch, expected: int, progress: Progress, timeout: float
) -> None:
    """Wait for `watch` to see every record, showing progress every 5 s; raise if the worker exits or
    connector `name` fails."""
    started = last_report = time.monotonic()
    while watch.full is None:
        run.alive()
        now = time.monotonic()
        if now - last_report > 5:
            fail_if_failed(run, [name])
        if now - started > timeout:
            raise RuntimeError(f"{run.engine}: {watch.end():,} of {expected:,} records after {timeout:.0f} s")
        if now - last_report > 5:
            progress(f"  {run.engine}: {watch.end():,} / {expected:,} records in the topic")
            last_report = now
        time.sleep(0.2)


def run_debezium(broker: KafkaBroker, rounds: int, rows: int, folder: Path, progress: Progress) -> Raw:
    """The ``debezium`` scenario's raw figures, on a PostgreSQL server of its own."""
    plugins = fetch_debezium_postgres(DEBEZIUM_VERSION)
    raw: Raw = {}
    case = f"Debezium {DEBEZIUM_VERSION} snapshot, {rows:,} rows"
    pg = PostgresServer().start()
    try:
        database = pg.new_database()
        progress(f"filling {TABLE} with {rows:,} rows")
        fill_table(pg, database, rows)
        for r in range(rounds):
            for engine in ENGINES:
                progress(f"debezium, round {r + 1}/{rounds}: {engine}")
                figures = debezium_round(
                    engine, broker, plugins, pg, database, rows, folder / f"dbz-{engine}-{r}", progress
                )
                progress(
                    f"  {engine}: {figures['rows_per_s']:,.0f} rows/s from create, "
                    f"snapshot {figures['snapshot_rows_per_s']:,.0f} rows/s"
                )
                keep(raw, case, engine, figures)
    finally:
        pg.stop()
    return raw


def ratios(summary: Mapping[str, Any], key: str) -> dict[str, float]:
    """kconnect's median over Java's for figure `key`, by case."""
    return {
        case: engines["kconnect"][key]["median"] / engines["java"][key]["median"]
        for case, engines in summary.items()
        if key in engines.get("kconnect", {}) and key in engines.get("java", {})
    }


def write_report(report: dict[str, Any], out: Path) -> None:
    """``java_connectors.json``, ``java_connectors.md`` (a table per scenario) and ``java_connectors.png``."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "java_connectors.json").write_text(json.dumps(report, indent=2) + "\n")
    lines = [
        "### Java connectors: the same jars on kconnect and on Java Kafka Connect 4.3.1",
        "",
        f"*{report['measured']}, commit {report['commit']}, {report['rounds']} rounds; median (min-max); "
        "the goal is kconnect / Java >= 0.9 in rate.*",
        "",
    ]
    charted: dict[str, Any] = {}
    for scenario, figures, key in (
        ("file", FILE_FIGURES, "sink_lines_per_s"),
        ("debezium", DEBEZIUM_FIGURES, "rows_per_s"),
    ):
        if scenario in report["summary"]:
            lines += [table(report["summary"][scenario], figures), ""]
            for case, engines in report["summary"][scenario].items():
                charted[case] = {engine: {"rate": f[key]} for engine, f in engines.items()}
    title = "Java connectors on kconnect and on Java Kafka Connect 4.3.1"
    bar_chart(charted, [("rate", "sink lines/s; rows/s from create")], title, out / "java_connectors.png")
    lines += ["![Java connectors](java_connectors.png)", ""]
    (out / "java_connectors.md").write_text("\n".join(lines))


def main() -> int:
    """Start a broker (and PostgreSQL for ``debezium``), run the rounds, write the report."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scenario", choices=("file", "debezium", "both"), default="both")
    parser.add_argument("--lines", type=int, default=LINES, help="lines copied by the file scenario")
    parser.add_argument("--rows", type=int, default=ROWS, help="rows snapshotted by the debezium scenario")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    started = time.monotonic()

    def progress(message: str) -> None:
        print(f"[{time.monotonic() - started:7.0f} s] {message}", flush=True)

    scenarios: dict[str, Callable[[KafkaBroker, Path], Raw]] = {
        "file": lambda broker, tmp: run_file(broker, args.rounds, args.lines, tmp, progress),
        "debezium": lambda broker, tmp: run_debezium(broker, args.rounds, args.rows, tmp, progress),
    }
    chosen = list(scenarios) if args.scenario == "both" else [args.scenario]
    summary = {}
    with KafkaBroker(heap="1g") as broker, tempfile.TemporaryDirectory(prefix="kconnect-java-speed-") as tmp:
        for name in chosen:
            summary[name] = summarize(scenarios[name](broker, Path(tmp)))
    report = {
        "lines": args.lines,
        "rows": args.rows,
        "rounds": args.rounds,
        "measured": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "commit": measured_commit(),
        "summary": summary,
        "kconnect_over_java": {
            "file, sink lines/s": ratios(summary.get("file", {}), "sink_lines_per_s"),
            "file, source lines/s": ratios(summary.get("file", {}), "source_lines_per_s"),
            "debezium, rows/s from create": ratios(summary.get("debezium", {}), "rows_per_s"),
        },
    }
    write_report(report, args.out)
    print(json.dumps(report["kconnect_over_java"], indent=2))
    progress(f"done: {args.out / 'java_connectors.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
