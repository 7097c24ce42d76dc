"""JDBC: rows per second from a PostgreSQL table into Kafka and from Kafka into a table, beside Java.

One throwaway PostgreSQL server (``tests/databases.py``, ``wal_level=logical``) holds a table of
1,000,000 rows of 6 columns. In each round, on one broker, one after the other:

* source, kconnect: ``JdbcSourceConnector`` in ``mode=bulk``, then ``mode=incrementing`` (on
  ``id``), each into a fresh topic (created first: the broker does not create topics);
* source, Java: Debezium's PostgreSQL connector (``io.debezium:debezium-connector-postgres``'s plugin
  archive, fetched with Maven into the cache as the tests fetch it, `kconnect_testkit.plugin_jars`) on
  Apache Kafka Connect, snapshotting the same table
  (``snapshot.mode=initial_only``). A snapshot is one way of reading the table, so its figure
  stands beside both kconnect modes;
* sink, kconnect: ``JdbcSinkConnector`` from the bulk round's topic into a fresh table, with
  ``insert.mode=insert`` and ``insert.mode=upsert`` (``pk.mode=record_value``, ``pk.fields=id``);
* sink, Java: none. Debezium's JDBC sink (``io.debezium:debezium-connector-jdbc``) is not served
  by the Maven repository this project can reach, and Confluent's JDBC connector is not on Maven
  Central; the Java column says n/a;
* ceiling: PostgreSQL's own ``COPY ... TO STDOUT`` and ``COPY ... FROM STDIN`` of the same rows
  through psycopg, with no Kafka in between.

A source rate counts records from the first one in the topic to the last, a sink rate rows from
the first one in the table to the last (both polled every half second), so start-up is not in
them. Both engines use
JsonConverter with schemas on (the sink needs them). Writes ``jdbc.json``, ``jdbc.md`` and
``jdbc.png`` to ``--out`` (default docs/performance/). Run it alone: the machine's other load is
in every figure. Nothing here fails on a figure.

    tox -e bench -- jdbc.py                            # 1M rows, 3 rounds
    tox -e bench -- jdbc.py --rows 20000 --rounds 1    # a quick check that everything runs
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from engines import CONVERTERS, EngineRun, KafkaBroker, Progress, create_topic, fresh_topic
from kconnect_testkit.plugin_jars import DEBEZIUM_VERSION, fetch_debezium_postgres
from report import bar_chart, summarize, table

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from tests.databases import PASSWORD, USER, PostgresServer  # noqa: E402

ROWS = 1_000_000
OUT = HERE.parent / "docs" / "performance"
JDBC_SOURCE = "io.confluent.connect.jdbc.JdbcSourceConnector"
JDBC_SINK = "io.confluent.connect.jdbc.JdbcSinkConnector"
TABLE = "bench"

#: The figures of the table: (key, label, unit, higher is better).
FIGURES = [("rows_per_s", "rows/s", "/s", True)]


def fill_table(pg: PostgresServer, database: str, rows: int) -> None:
    """``bench``: `rows` rows of 6 columns (bigint key, two texts, int, double, boolean)."""
    pg.execute(
        database,
        f"CREATE TABLE {TABLE} (id BIGINT PRIMARY KEY, name TEXT NOT NULL, qty INTEGER NOT NULL, "
        "price DOUBLE PRECISION NOT NULL, flag BOOLEAN NOT NULL, note TEXT NOT NULL)",
        f"INSERT INTO {TABLE} SELECT g, 'name-' || g, g % 1000, g * 0.5, g % 2 = 0, "
        f"repeat('x', 40) FROM generate_series(1, {rows}) g",
        f"ALTER TABLE {TABLE} REPLICA IDENTITY DEFAULT",
        f"VACUUM ANALYZE {TABLE}",
    )


def topic_records(broker: KafkaBroker, topic: str) -> int:
    """How many records `topic` holds (its end offsets; 0 while it does not exist)."""
    from aiokafka import AIOKafkaConsumer, TopicPartition

    async def count() -> int:
        consumer = AIOKafkaConsumer(bootstrap_servers=broker.bootstrap_servers)
        await consumer.start()
        try:
            if topic not in await consumer.topics():
                return 0
            # Every topic here has one partition (create_topic); the consumer knows no partitions
            # of a topic it is not subscribed to.
            ends = await consumer.end_offsets([TopicPartition(topic, 0)])
            return sum(ends.values())
        finally:
            await consumer.stop()

    return asyncio.run(count())


def watch(
    run: EngineRun, count: Callable[[], int], expected: int, what: str, progress: Progress, timeout: float
) -> float:
    """Poll `count` until it reaches `expected`; rows per second from the first row to the last.

    The first row came after the last poll that saw none: the time counts from that poll, so a
    short run errs on the slow side by at most one poll (half a second) rather than dividing by
    nearly nothing.
    """
    last_empty = run.started
    last_report = time.monotonic()
    while True:
        done = count()
        now = time.monotonic()
        if done >= expected:
            break
        if not done:
            last_empty = now
        run.alive()
        if now - run.started > timeout:
            raise RuntimeError(f"{run.engine}: {done:,} of {expected:,} {what} after {timeout:.0f} s")
        if now - last_report > 5:
            progress(f"  {run.engine}: {done:,} / {expected:,} {what}")
            last_report = now
        time.sleep(0.5)
    return expected / max(now - last_empty, 1e-6)


class Bench:
    """One database, one broker and the rounds' raw figures."""

    def __init__(self, broker: KafkaBroker, pg: PostgresServer, database: str, rows: int, folder: Path):
        self.broker = broker
        self.pg = pg
        self.database = database
        self.rows = rows
        self.folder = folder
        self.url = f"jdbc:postgresql://127.0.0.1:{pg.port}/{database}"
        self.raw: dict[str, dict[str, dict[str, list[float]]]] = {}
        self.ceiling: dict[str, dict[str, list[float]]] = {}
        self.timeout = max(300.0, rows / 500)

    def keep(self, case: str, engine: str, rate: float, progress: Progress) -> None:
        progress(f"  {case}, {engine}: {rate:,.0f} rows/s")
        self.raw.setdefault(case, {}).setdefault(engine, {}).setdefault("rows_per_s", []).append(rate)

    def engine(self, engine: str, name: str, connector: Mapping[str, str], **worker: str) -> EngineRun:
        props = {**CONVERTERS["json, schemas on"], **worker}
        folder = self.folder / f"{name}-{time.monotonic_ns()}"
        return EngineRun(engine, self.broker, folder, props, [connector], heap="2g")

    def kconnect_source(self, mode: str, progress: Progress) -> str:
        prefix = fresh_topic(f"jdbc-{mode}") + "-"
        connector = {
            "name": f"jdbc-source-{mode}",
            "connector.class": JDBC_SOURCE,
            "tasks.max": "1",
            "connection.url": self.url,
            "connection.user": USER,
            "connection.password": PASSWORD,
            "table.whitelist": TABLE,
            "mode": mode,
            "topic.prefix": prefix,
            "poll.interval.ms": "3600000",
        }
        if mode == "incrementing":
            connector["incrementing.column.name"] = "id"
        topic = prefix + TABLE
        create_topic(self.broker, topic, 1)
        with self.engine("kconnect", f"source-{mode}", connector) as run:
            rate = watch(
                run, lambda: topic_records(self.broker, topic), self.rows, "records", progress, self.timeout
            )
        self.keep(f"source {mode}", "kconnect", rate, progress)
        return topic

    def debezium_source(self, plugins: Path, progress: Progress) -> None:
        prefix = fresh_topic("dbz")
        slot = f"bench_{time.monotonic_ns()}"
        connector = {
            "name": "debezium-postgres",
            "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
            "tasks.max": "1",
            "database.hostname": "127.0.0.1",
            "database.port": str(self.pg.port),
            "database.user": USER,
            "database.password": PASSWORD,
            "database.dbname": self.database,
            "topic.prefix": prefix,
            "table.include.list": f"public.{TABLE}",
            "plugin.name": "pgoutput",
            "slot.name": slot,
            "publication.name": f"pub_{slot}",
            "publication.autocreate.mode": "filtered",
            "snapshot.mode": "initial_only",
        }
        topic = f"{prefix}.public.{TABLE}"
        create_topic(self.broker, topic, 1)
        try:
            with self.engine("java", "debezium", connector, **{"plugin.path": str(plugins)}) as run:
                rate = watch(
                    run,
                    lambda: topic_records(self.broker, topic),
                    self.rows,
                    "records",
                    progress,
                    self.timeout,
                )
        finally:
            self.pg.execute(
                self.database,
                "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
                f"WHERE slot_name = '{slot}'",
                f"DROP PUBLICATION IF EXISTS pub_{slot}",
            )
        for mode in ("bulk", "incrementing"):
            self.keep(f"source {mode}", "java", rate, progress)

    def kconnect_sink(self, mode: str, topic: str, progress: Progress) -> None:
        table_name = f"sink_{mode}_{time.monotonic_ns()}"
        connector = {
            "name": f"jdbc-sink-{mode}",
            "connector.class": JDBC_SINK,
            "tasks.max": "1",
            "topics": topic,
            "connection.url": self.url,
            "connection.user": USER,
            "connection.password": PASSWORD,
            "table.name.format": table_name,
            "auto.create": "true",
            "insert.mode": mode,
            "pk.mode": "none",
        }
        if mode == "upsert":
            connector |= {"pk.mode": "record_value", "pk.fields": "id"}
        with self.engine("kconnect", f"sink-{mode}", connector) as run:
            rate = watch(run, lambda: self.table_rows(table_name), self.rows, "rows", progress, self.timeout)
        self.keep(f"sink {mode}", "kconnect", rate, progress)

    def table_rows(self, name: str) -> int:
        import psycopg

        with psycopg.connect(self.conninfo()) as connection:
            exists = connection.execute("SELECT to_regclass(%s)", (name,)).fetchone()
            if exists is None or exists[0] is None:
                return 0
            row = connection.execute(f'SELECT count(*) FROM "{name}"').fetchone()
            return int(row[0]) if row else 0

    def conninfo(self) -> str:
        return f"host=127.0.0.1 port={self.pg.port} user={USER} password={PASSWORD} dbname={self.database}"

    def copy_ceiling(self, progress: Progress) -> None:
        """``COPY TO STDOUT`` of the table and ``COPY FROM STDIN`` of the same bytes into a copy of it."""
        import psycopg

        with psycopg.connect(self.conninfo(), autocommit=True) as connection:
            started = time.monotonic()
            chunks = []
            with connection.cursor().copy(f"COPY {TABLE} TO STDOUT") as copy:
                for chunk in copy:
                    chunks.append(bytes(chunk))
            out_rate = self.rows / (time.monotonic() - started)
            target = f"copy_{time.monotonic_ns()}"
            connection.execute(f"CREATE TABLE {target} (LIKE {TABLE} INCLUDING ALL)")
            started = time.monotonic()
            with connection.cursor().copy(f"COPY {target} FROM STDIN") as copy:
                for chunk in chunks:
                    copy.write(chunk)
            in_rate = self.rows / (time.monotonic() - started)
            connection.execute(f"DROP TABLE {target}")
        progress(f"  COPY out {out_rate:,.0f} rows/s, COPY in {in_rate:,.0f} rows/s")
        for name, rate in (
            ("COPY TO STDOUT (source ceiling)", out_rate),
            ("COPY FROM STDIN (sink ceiling)", in_rate),
        ):
            self.ceiling.setdefault(name, {}).setdefault("rows_per_s", []).append(rate)

    def round(self, plugins: Path, progress: Progress) -> None:
        self.copy_ceiling(progress)
        bulk_topic = self.kconnect_source("bulk", progress)
        self.kconnect_source("incrementing", progress)
        self.debezium_source(plugins, progress)
        for mode in ("insert", "upsert"):
            self.kconnect_sink(mode, bulk_topic, progress)


def write_report(report: dict[str, Any], out: Path) -> None:
    """``jdbc.json``, ``jdbc.md`` (the table, the COPY ceiling) and ``jdbc.png``."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "jdbc.json").write_text(json.dumps(report, indent=2) + "\n")
    title = f"JDBC, PostgreSQL, {report['rows']:,} rows of 6 columns"
    lines = [
        f"### {title}",
        "",
        f"*{report['measured']}, {report['rounds']} rounds; median (min-max). Java: Debezium "
        f"{DEBEZIUM_VERSION}'s PostgreSQL connector snapshotting the table (one figure for both source "
        "modes); no Java sink (Debezium's JDBC sink is not served).*",
        "",
        table(report["summary"], FIGURES, "case"),
    ]
    for name, figures in report["ceiling"].items():
        f = figures["rows_per_s"]
        lines.append(f"- {name}: {f['median']:,.0f} rows/s ({f['min']:,.0f}-{f['max']:,.0f})")
    bar_chart(report["summary"], [("rows_per_s", "rows/s")], title, out / "jdbc.png")
    lines += ["", f"![{title}](jdbc.png)", ""]
    (out / "jdbc.md").write_text("\n".join(lines))


def main() -> int:
    """Start PostgreSQL and a broker, run the rounds, write the report."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=ROWS)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    started = time.monotonic()

    def progress(message: str) -> None:
        print(f"[{time.monotonic() - started:7.0f} s] {message}", flush=True)

    progress(f"Debezium {DEBEZIUM_VERSION}'s PostgreSQL connector (fetched with Maven the first time)")
    plugins = fetch_debezium_postgres(DEBEZIUM_VERSION)
    pg = PostgresServer().start()
    try:
        database = pg.new_database()
        progress(f"filling {TABLE} with {args.rows:,} rows")
        fill_table(pg, database, args.rows)
        with KafkaBroker(heap="1g") as broker, tempfile.TemporaryDirectory(prefix="kconnect-jdbc-") as tmp:
            bench = Bench(broker, pg, database, args.rows, Path(tmp))
            for r in range(args.rounds):
                progress(f"round {r + 1}/{args.rounds}")
                bench.round(plugins, progress)
    finally:
        pg.stop()
    report = {
        "rows": args.rows,
        "rounds": args.rounds,
        "measured": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "summary": summarize(bench.raw),
        "ceiling": {
            name: summarize({"c": {"e": figures}})["c"]["e"] for name, figures in bench.ceiling.items()
        },
    }
    write_report(report, args.out)
    print(json.dumps(report["summary"], indent=2))
    progress(f"done: {args.out / 'jdbc.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
