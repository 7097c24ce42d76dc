"""The storage sink: records/s and bytes/s of Parquet files on local disk and on HDFS, beside its ceiling.

Issue 19's goals: kconnect's ``StorageSink`` is no slower than the file pipeline's
``FileStreamSink``, and moves at least half what pyarrow alone writes to the same store. One
topic (one partition) holds 1,000,000 records of a 6-field Struct (``id`` int64, ``name`` string,
``qty`` int32, ``price`` float64, ``flag`` boolean, ``note`` string of 40 characters; the row of
``avro.py`` and ``jdbc.py``), produced once with confluent-kafka as JsonConverter envelopes with
their schema. Every worker reads it with JsonConverter, schemas on. Per round, for each store
(local disk, and HDFS: a MiniDFSCluster the benchmark starts, ``tests/storage_servers.py``):

* ``ceiling``: pyarrow alone, no Kafka: each file's rows (``flush.size`` of them, the same Python
  values the topic holds, made beforehand) built into an Arrow table and written as one Parquet
  file (snappy, as the sink) straight to the store: a local path, or HDFS through the same client
  the sink uses (fsspec's ``WebHDFS``, wrapped in ``pyarrow.fs.PyFileSystem``);
* ``storage``: ``StorageSink`` (``storage.url`` a local folder or ``webhdfs://``),
  ``ParquetFormat``, ``flush.size`` (100,000), one task; timed from the ``POST /connectors`` that
  creates it to the moment the committed files (polled, names ``<topic>+0+<first>+<last>``) hold
  every record;
* ``file``: ``FileStreamSink`` on the same topic into a local file, timed the same way to its last
  line. It writes only local files, so its one figure per round stands in both stores' rows.

Each connector runs on a fresh standalone worker whose Spark is already up (a warm-up connector
ran and was deleted), so the time is the connector's, not the worker's start-up. Figures: records/s
and bytes/s (the bytes of the Parquet files, or of the sink file, over the same time). The median
over ``--rounds`` (3), with the spread. Writes ``storage.json``, ``storage.md`` and ``storage.png``
to ``--out`` (default docs/performance/); progress goes to stderr, the table to stdout. Run it
alone: the machine's other load is in every figure. Nothing here fails on a figure.

    tox -e bench -- storage.py                                                # 1M records, 3 rounds
    tox -e bench -- storage.py --records 50000 --flush-size 10000 --rounds 1  # a quick check
    tox -e bench -- storage.py --stores local                                 # local disk only
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from engines import (
    CONVERTERS,
    FILE_SINK,
    EngineRun,
    KafkaBroker,
    LineCounter,
    Progress,
    create_topic,
    fresh_topic,
    wait_idle,
    wait_running,
)
from report import bar_chart, summarize
from run_all import measured_commit
from struct_lines import NOTE

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from tests.storage_servers import HdfsCluster  # noqa: E402

RECORDS = 1_000_000
FLUSH_SIZE = 100_000
OUT = HERE.parent / "docs" / "performance"
STORAGE_SINK = "StorageSink"
PARQUET_FORMAT = "io.confluent.connect.s3.format.parquet.ParquetFormat"
CODEC = "snappy"
STORES = (("local", "local disk"), ("hdfs", "HDFS (WebHDFS)"))
#: The rows of each store's group, as (key, label); ratios are against the first two.
COLUMNS = (
    ("ceiling", "pyarrow alone (ceiling)"),
    ("storage", "kconnect StorageSink"),
    ("file", "kconnect FileStreamSink (local file)"),
)
#: The figures: (key, label, unit).
FIGURES = (("records_per_s", "records/s", "/s"), ("mib_per_s", "MiB/s written", "MiB/s"))
#: A committed file's name ends in ``+<first offset>+<last offset><extension>``.
_OFFSETS = re.compile(r"\+(\d{10})\+(\d{10})\.[^+/]*$")

SCHEMA: dict[str, Any] = {
    "type": "struct",
    "name": "bench.Row",
    "optional": False,
    "fields": [
        {"field": "id", "type": "int64", "optional": False},
        {"field": "name", "type": "string", "optional": False},
        {"field": "qty", "type": "int32", "optional": False},
        {"field": "price", "type": "double", "optional": False},
        {"field": "flag", "type": "boolean", "optional": False},
        {"field": "note", "type": "string", "optional": False},
    ],
}


def row(i: int) -> dict[str, Any]:
    """Record `i`'s value: the row of ``struct_lines.row_line`` (and of the JDBC benchmark's table)."""
    return {"id": i, "name": f"name-{i}", "qty": i % 1000, "price": i * 0.5, "flag": i % 2 == 0, "note": NOTE}


def produce(bootstrap: str, topic: str, records: int, progress: Progress) -> None:
    """Write records ``0 .. records - 1`` to partition 0 of `topic` as JsonConverter envelopes."""
    from confluent_kafka import Producer

    producer = Producer(
        {
            "bootstrap.servers": bootstrap,
            "linger.ms": 50,
            "batch.size": 1_000_000,
            "queue.buffering.max.messages": 500_000,
        }
    )
    head = '{"schema":' + json.dumps(SCHEMA, separators=(",", ":")) + ',"payload":'
    dumps = json.JSONEncoder(separators=(",", ":")).encode
    for i in range(records):
        value = (head + dumps(row(i)) + "}").encode()
        while True:
            try:
                producer.produce(topic, value=value, partition=0)
                break
            except BufferError:
                producer.poll(0.1)
        if i % 100_000 == 0:
            producer.poll(0)
            if i:
                progress(f"  produced {i:,} / {records:,}")
    if producer.flush(120) != 0:
        raise RuntimeError(f"records to {topic} were not delivered")


def columns_of(first: int, count: int) -> dict[str, list[Any]]:
    """Rows ``first .. first + count - 1`` as one list of Python values per field."""
    rows = [row(i) for i in range(first, first + count)]
    return {field["field"]: [r[field["field"]] for r in rows] for field in SCHEMA["fields"]}


def arrow_schema() -> Any:
    """The Arrow schema of `SCHEMA` (all fields required, as the sink writes them)."""
    import pyarrow as pa

    types = {"int64": pa.int64(), "string": pa.string(), "int32": pa.int32(), "double": pa.float64()}
    types["boolean"] = pa.bool_()
    return pa.schema([pa.field(f["field"], types[f["type"]], nullable=False) for f in SCHEMA["fields"]])


class Store:
    """Where files go: a local folder or an HDFS folder, listed and sized the same way."""

    def __init__(self, key: str, root: str, hdfs: HdfsCluster | None = None) -> None:
        self.key = key
        self.root = root
        self.hdfs = hdfs
        self.fs = hdfs.webhdfs() if hdfs else None

    def url(self, folder: str) -> str:
        """The sink's ``storage.url`` for `folder` under this store's root."""
        if self.hdfs is None:
            return f"{self.root}/{folder}"
        return f"webhdfs://127.0.0.1:{self.hdfs.http_port}{self.root}/{folder}"

    def files(self, folder: str) -> dict[str, int]:
        """Name -> size of the files directly in `folder` (empty while it does not exist)."""
        path = f"{self.root}/{folder}"
        if self.fs is None:
            directory = Path(path)
            return (
                {p.name: p.stat().st_size for p in directory.iterdir() if p.is_file()}
                if directory.is_dir()
                else {}
            )
        try:
            entries = self.fs.ls(path, detail=True)
        except FileNotFoundError:
            return {}
        return {e["name"].rsplit("/", 1)[-1]: int(e["size"]) for e in entries if e["type"] == "file"}

    def arrow_fs(self) -> Any:
        """A pyarrow filesystem for this store (None for local paths)."""
        if self.fs is None:
            return None
        from pyarrow.fs import FSSpecHandler, PyFileSystem

        return PyFileSystem(FSSpecHandler(self.fs))

    def remove(self, folder: str) -> None:
        """Delete `folder` and everything under it."""
        path = f"{self.root}/{folder}"
        if self.fs is None:
            shutil.rmtree(path, ignore_errors=True)
        elif self.fs.exists(path):
            self.fs.rm(path, recursive=True)


def committed(files: Mapping[str, int]) -> tuple[int, int]:
    """Records and bytes of the committed files among `files` (by the offsets in their names)."""
    records = size = 0
    for name, length in files.items():
        match = _OFFSETS.search(name)
        if match:
            records += int(match[2]) - int(match[1]) + 1
            size += length
    return records, size


class Bench:
    """One broker, the topic, the stores and the rounds' raw figures."""

    def __init__(self, broker: KafkaBroker, topic: str, records: int, flush_size: int, folder: Path) -> None:
        self.broker = broker
        self.topic = topic
        self.records = records
        self.flush_size = flush_size
        self.folder = folder
        self.raw: dict[str, dict[str, dict[str, list[float]]]] = {}
        self.timeout = max(600.0, records / 500)

    def keep(
        self, store: str, column: str, records: int, size: int, seconds: float, progress: Progress
    ) -> None:
        figures = {
            "records_per_s": records / seconds,
            "mib_per_s": size / seconds / 2**20,
            "seconds": seconds,
        }
        progress(
            f"  {store}, {column}: {figures['records_per_s']:,.0f} records/s, "
            f"{figures['mib_per_s']:.2f} MiB/s ({size:,} bytes in {seconds:.1f} s)"
        )
        for key, value in figures.items():
            self.raw.setdefault(store, {}).setdefault(column, {}).setdefault(key, []).append(value)

    def ceiling(self, store: Store, label: str, progress: Progress) -> None:
        """pyarrow alone: each file's table built from Python values and written; the values are made
        outside the timed part (a sink gets them from Kafka)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        schema, filesystem = arrow_schema(), store.arrow_fs()
        folder = f"ceiling-{time.monotonic_ns()}"
        if store.fs is None:
            Path(store.root, folder).mkdir(parents=True)
        else:
            store.fs.makedirs(f"{store.root}/{folder}", exist_ok=True)
        seconds = 0.0
        for first in range(0, self.records, self.flush_size):
            count = min(self.flush_size, self.records - first)
            values = columns_of(first, count)
            started = time.monotonic()
            table = pa.table(
                {name: pa.array(v, schema.field(name).type) for name, v in values.items()}, schema
            )
            last = first + count - 1
            path = f"{store.root}/{folder}/{self.topic}+0+{first:010d}+{last:010d}.parquet"
            pq.write_table(table, path, filesystem=filesystem, compression=CODEC)
            seconds += time.monotonic() - started
        records, size = committed(store.files(folder))
        if records != self.records:
            raise RuntimeError(f"ceiling on {label}: {records:,} of {self.records:,} rows written")
        self.keep(label, "ceiling", records, size, seconds, progress)
        store.remove(folder)

    @contextmanager
    def worker(self, name: str, progress: Progress) -> Iterator[EngineRun]:
        """A fresh standalone worker with its Spark up: a warm-up FileStreamSink ran and was deleted."""
        folder = self.folder / f"{name}-{time.monotonic_ns()}"
        with EngineRun("kconnect", self.broker, folder, CONVERTERS["json, schemas on"], heap="2g") as run:
            run.wait_rest()
            warm_topic = fresh_topic("storage-bench-warm-up")
            create_topic(self.broker, warm_topic, 1)
            warm = {"connector.class": FILE_SINK, "tasks.max": "1", "file": str(folder / "warm-up.txt")}
            create(run, "warm-up", {**warm, "topics": warm_topic})
            wait_running(run, ["warm-up"])
            httpx.delete(f"{run.url}/connectors/warm-up", timeout=60).raise_for_status()
            assert run.process is not None
            wait_idle(run.process.pid)
            yield run

    def measure(
        self,
        run: EngineRun,
        name: str,
        config: Mapping[str, str],
        done: Callable[[], tuple[int, int]],
        progress: Progress,
    ) -> tuple[int, float]:
        """Create the connector and poll `done` (records, bytes) until every record is there: the
        bytes and the seconds since the creation."""
        started = create(run, name, config)
        last_report = started
        while True:
            records, size = done(), done.offset
            now = time.monotonic()
            if records >= self.records:
                return size, now - started
            run.alive()
            if now - started > self.timeout:
                raise RuntimeError(
                    f"{name}: {records:,} of {self.records:,} records after {self.timeout:.0f} s"
                )
            if now - last_report > 5:
                progress(f"  {name}: {records:,} / {self.records:,} records")
                last_report = now
            time.sleep(0.1)

    def storage_sink(self, store: Store, label: str, progress: Progress) -> None:
        """``StorageSink`` writing Parquet to `store`, from creation to the last committed file."""
        folder = f"sink-{time.monotonic_ns()}"
        # A fresh name each round: a connector's consumer group keeps its offsets across workers.
        name = f"storage-{store.key}-{time.monotonic_ns()}"
        config = {
            "connector.class": STORAGE_SINK,
            "tasks.max": "1",
            "topics": self.topic,
            "storage.url": store.url(folder),
            "format.class": PARQUET_FORMAT,
            "parquet.codec": CODEC,
            "flush.size": str(self.flush_size),
        }
        files = f"{folder}/topics/{self.topic}/partition=0"
        with self.worker(name, progress) as run:
            size, seconds = self.measure(run, name, config, lambda: committed(store.files(files)), progress)
        self.keep(label, "storage", self.records, size, seconds, progress)
        store.remove(folder)

    def file_sink(self, progress: Progress) -> tuple[int, float]:
        """``FileStreamSink`` into a local file, from creation to its last line: its bytes and seconds."""
        sink = self.folder / f"file-sink-{time.monotonic_ns()}.txt"
        config = {"connector.class": FILE_SINK, "tasks.max": "1", "topics": self.topic, "file": str(sink)}
        name = f"file-{time.monotonic_ns()}"
        with self.worker(name, progress) as run:
            size, seconds = self.measure(run, name, config, LineCounter(sink), progress)
        sink.unlink()
        return size, seconds


def create(run: EngineRun, name: str, config: Mapping[str, str]) -> float:
    """``POST /connectors``; the time just before the request."""
    started = time.monotonic()
    response = httpx.post(f"{run.url}/connectors", json={"name": name, "config": dict(config)}, timeout=60)
    if response.status_code != 201:
        raise RuntimeError(f"creating {name}: {response.status_code} {response.text}")
    return started


def cell(figure: Mapping[str, Any] | None) -> str:
    if figure is None:
        return "n/a"
    digits = 0 if figure["median"] >= 100 else 2
    return f"{figure['median']:,.{digits}f} ({figure['min']:,.{digits}f}-{figure['max']:,.{digits}f})"


def ratio(summary: Mapping[str, Any], key: str, of: str, to: str) -> str:
    a, b = summary.get(of, {}).get(key), summary.get(to, {}).get(key)
    return f"{a['median'] / b['median']:.2f}x" if a and b and b["median"] else "n/a"


def table(summary: Mapping[str, Any]) -> str:
    """The Markdown table: per store and figure, each column's median (min-max) and the two goals'
    ratios (StorageSink / ceiling, at least 0.5; StorageSink / FileStreamSink, at least 1)."""
    labels = [label for _, label in COLUMNS]
    rows = [
        f"| store | figure | {' | '.join(labels)} | StorageSink / ceiling (goal >= 0.5) "
        "| StorageSink / FileStreamSink (goal >= 1) |",
        "|---|---|" + "---|" * (len(COLUMNS) + 2),
    ]
    for store, columns in summary.items():
        for key, label, unit in FIGURES:
            cells = [cell(columns.get(c, {}).get(key)) for c, _ in COLUMNS]
            to_ceiling = ratio(columns, key, "storage", "ceiling")
            to_file = ratio(columns, key, "storage", "file") if key == "records_per_s" else "n/a"
            rows.append(f"| {store} | {label}, {unit} | {' | '.join(cells)} | {to_ceiling} | {to_file} |")
    return "\n".join(rows) + "\n"


def write_report(report: dict[str, Any], out: Path) -> None:
    """``storage.json``, ``storage.md`` (the table) and ``storage.png``."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "storage.json").write_text(json.dumps(report, indent=2) + "\n")
    title = f"Storage sink, Parquet, {report['records']:,} records of a 6-field Struct"
    lines = [
        f"### {title}",
        "",
        f"*Commit {report['commit']}, {report['measured']}, {report['rounds']} rounds; median (min-max); "
        f"flush.size {report['flush_size']:,}, {CODEC}; JsonConverter with schemas. FileStreamSink writes "
        "a local file only: its figure is the same in both stores' rows; its MiB/s are of text lines.*",
        "",
        table(report["summary"]),
        f"![{title}](storage.png)",
        "",
    ]
    bar_chart(
        report["summary"],
        [("records_per_s", "records/s"), ("mib_per_s", "MiB/s written")],
        title,
        out / "storage.png",
        COLUMNS,
    )
    (out / "storage.md").write_text("\n".join(lines))


def main() -> int:
    """Start a broker (and HDFS), produce the topic, run the rounds, write the report."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--records", type=int, default=RECORDS)
    parser.add_argument("--flush-size", type=int, default=FLUSH_SIZE)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--stores", default="local,hdfs", help="which of local,hdfs to run")
    args = parser.parse_args()
    if args.records % args.flush_size:
        parser.error("--records must be a multiple of --flush-size (the last file is committed when full)")
    stores = [(key, label) for key, label in STORES if key in args.stores.split(",")]
    started = time.monotonic()

    def progress(message: str) -> None:
        print(f"[{time.monotonic() - started:7.0f} s] {message}", file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory(prefix="kconnect-storage-") as tmp, KafkaBroker(heap="1g") as broker:
        folder = Path(tmp)
        topic = fresh_topic("storage-bench")
        create_topic(broker, topic, 1)
        progress(f"producing {args.records:,} records to {topic}")
        produce(broker.bootstrap_servers, topic, args.records, progress)
        bench = Bench(broker, topic, args.records, args.flush_size, folder)
        with _hdfs(any(key == "hdfs" for key, _ in stores), progress) as hdfs:
            targets = [
                (Store(key, str(folder / "local")) if key == "local" else Store(key, "/bench", hdfs), label)
                for key, label in stores
            ]
            for r in range(args.rounds):
                progress(f"round {r + 1}/{args.rounds}")
                size, seconds = bench.file_sink(progress)
                for store, label in targets:
                    bench.keep(label, "file", args.records, size, seconds, progress)
                    bench.ceiling(store, label, progress)
                    bench.storage_sink(store, label, progress)
    report = {
        "records": args.records,
        "flush_size": args.flush_size,
        "rounds": args.rounds,
        "commit": measured_commit(),
        "measured": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "summary": summarize(bench.raw),
    }
    write_report(report, args.out)
    print(table(report["summary"]))
    progress(f"done: {args.out / 'storage.md'}")
    return 0


@contextmanager
def _hdfs(wanted: bool, progress: Progress) -> Iterator[HdfsCluster | None]:
    if not wanted:
        yield None
        return
    progress("starting HDFS (a MiniDFSCluster)")
    with HdfsCluster(heap="1g") as cluster:
        progress(f"HDFS at {cluster.webhdfs_url}")
        yield cluster


if __name__ == "__main__":
    sys.exit(main())
