"""Avro with a schema registry against JsonConverter with schemas, on kconnect's file pipeline.

FileStreamSource -> Kafka -> FileStreamSink, one task each way, 1,000,000 records. A small
transformation on the source (``struct_lines.py``) turns each line into a Struct of 6 typed fields
(int64, string, int32, float64, boolean, string), so the source's value converter writes Structs and
the sink's reads them back and writes each one as a line. Two settings of the worker's converters,
each round on a fresh topic, one broker and one registry:

* ``json``: ``org.apache.kafka.connect.json.JsonConverter`` with ``schemas.enable=true`` (each
  message carries its schema);
* ``avro``: ``io.confluent.connect.avro.AvroConverter`` against Apicurio Registry
  (``tests/schema_registry_server.py``, fetched with Maven into the cache on first use): 5 bytes of
  header and the Avro body per message, the schema registered once per topic.

Figures per run:

* records/s from the first line in the sink file to the last (start-up not in it), as
  ``throughput.py`` counts;
* CPU per record: user + system time of the worker's whole process tree (the worker, Spark's JVM,
  the Python processes hosting the tasks), from the moment the input appears to the last sink line,
  divided by the records. The worker starts with no input file; once both tasks are RUNNING and the
  tree is idle, the input file (written beforehand) is renamed into place, so start-up is not in it;
* the sink files of every run are the same bytes (checked), so both settings did the same work.

The median over ``--rounds`` (3) of each, with the spread. Writes ``avro.json``, ``avro.md`` and
``avro.png`` to ``--out`` (default docs/performance/). Run it alone: the machine's other load is in
every figure. Nothing here fails on a figure.

    tox -e bench -- avro.py                              # 1M records, 3 rounds
    tox -e bench -- avro.py --records 20000 --rounds 1   # a quick check that everything runs
    tox -e bench -- avro.py --settings avro              # one setting only
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engines import (
    FILE_SINK,
    FILE_SOURCE,
    EngineRun,
    KafkaBroker,
    LineCounter,
    Progress,
    create_topic,
    fresh_topic,
    tree_cpu,
    wait_idle,
    wait_running,
)
from report import bar_chart, summarize, table
from run_all import measured_commit
from struct_lines import TRANSFORM, install, write_input

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from tests.schema_registry_server import ApicurioRegistry  # noqa: E402

RECORDS = 1_000_000
OUT = HERE.parent / "docs" / "performance"
JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter"
AVRO_CONVERTER = "io.confluent.connect.avro.AvroConverter"
CASE = "6-field struct, 1 task each way"
#: The settings compared, as (key, label); the ratio in the table is Avro / JSON.
COLUMNS = (("json", "JsonConverter, schemas on"), ("avro", "AvroConverter"))
#: The figures of the table: (key, label, unit, higher is better).
FIGURES = [
    ("records_per_s", "records/s, first to last sink line", "/s", True),
    ("cpu_us_per_record", "worker CPU per record (whole process tree)", "µs", False),
]


def converters(setting: str, registry_url: str) -> dict[str, str]:
    """The worker's key and value converter keys for `setting` (``json`` or ``avro``)."""
    if setting == "json":
        return {
            "key.converter": JSON_CONVERTER,
            "value.converter": JSON_CONVERTER,
            "key.converter.schemas.enable": "true",
            "value.converter.schemas.enable": "true",
        }
    return {
        "key.converter": AVRO_CONVERTER,
        "value.converter": AVRO_CONVERTER,
        "key.converter.schema.registry.url": registry_url,
        "value.converter.schema.registry.url": registry_url,
    }


class Bench:
    """One broker, one registry, the input file and the rounds' raw figures."""

    def __init__(
        self, broker: KafkaBroker, registry: ApicurioRegistry, records: int, folder: Path, plugins: Path
    ) -> None:
        self.broker = broker
        self.registry = registry
        self.records = records
        self.folder = folder
        self.env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(plugins), os.environ.get("PYTHONPATH")]))}
        self.input = folder / "input.csv"
        write_input(self.input, records)
        self.raw: dict[str, dict[str, dict[str, list[float]]]] = {}
        self.sink_digest: str | None = None
        self.timeout = max(900.0, records / 500)

    def run(self, setting: str, progress: Progress) -> None:
        """One run of the pipeline with `setting`'s converters; keeps its figures."""
        folder = self.folder / f"{setting}-{time.monotonic_ns()}"
        folder.mkdir()
        source, sink = folder / "source.csv", folder / "sink.txt"
        topic = fresh_topic(f"avro-bench-{setting}")
        create_topic(self.broker, topic, 1)
        connectors: list[Mapping[str, str]] = [
            {
                "name": "source",
                "connector.class": FILE_SOURCE,
                "tasks.max": "1",
                "file": str(source),
                "topic": topic,
                "transforms": "struct",
                "transforms.struct.type": TRANSFORM,
            },
            {
                "name": "sink",
                "connector.class": FILE_SINK,
                "tasks.max": "1",
                "file": str(sink),
                "topics": topic,
            },
        ]
        props = converters(setting, self.registry.url)
        with EngineRun("kconnect", self.broker, folder, props, connectors, env=self.env) as run:
            run.wait_rest()
            wait_running(run, ["source", "sink"])
            assert run.process is not None
            root = run.process.pid
            wait_idle(root)
            os.link(self.input, source)  # the whole input appears at once; the original stays for later runs
            cpu_before, placed = tree_cpu(root), time.monotonic()
            first = self.watch(run, sink, progress)
            cpu = tree_cpu(root) - cpu_before
            last = time.monotonic()
        figures = {
            "records_per_s": self.records / max(last - first, 1e-6),
            "cpu_us_per_record": cpu / self.records * 1e6,
            "input_to_last_line_s": last - placed,
        }
        self.check_sink(sink, setting)
        progress(
            f"  {setting}: {figures['records_per_s']:,.0f} records/s, "
            f"{figures['cpu_us_per_record']:.1f} µs CPU per record"
        )
        for key, value in figures.items():
            self.raw.setdefault(CASE, {}).setdefault(setting, {}).setdefault(key, []).append(value)

    def watch(self, run: EngineRun, sink: Path, progress: Progress) -> float:
        """Poll the sink file until it has every record; the time of the first line seen."""
        first: float | None = None
        last_report = time.monotonic()
        lines_in = LineCounter(sink)
        while True:
            done = lines_in()
            now = time.monotonic()
            if done and first is None:
                first = now
            if done >= self.records:
                assert first is not None
                return first
            run.alive()
            if now - run.started > self.timeout:
                raise RuntimeError(f"{done:,} of {self.records:,} records after {self.timeout:.0f} s")
            if now - last_report > 5:
                progress(f"  {done:,} / {self.records:,} records in the sink")
                last_report = now
            time.sleep(0.05)

    def check_sink(self, sink: Path, setting: str) -> None:
        """Every run's sink file must hold the same bytes (both settings wrote the same Structs)."""
        digest = hashlib.sha256(sink.read_bytes()).hexdigest()
        if self.sink_digest is None:
            self.sink_digest = digest
        elif digest != self.sink_digest:
            raise RuntimeError(f"{setting}: the sink file {sink} differs from the first run's")


def write_report(report: dict[str, Any], out: Path) -> None:
    """``avro.json``, ``avro.md`` (the table) and ``avro.png``."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "avro.json").write_text(json.dumps(report, indent=2) + "\n")
    title = f"Avro and JSON with schemas, file -> Kafka -> file, {report['records']:,} records"
    lines = [
        f"### {title}",
        "",
        f"*Commit {report['commit']}, {report['measured']}, {report['rounds']} rounds; median (min-max).*",
        "",
        table(report["summary"], FIGURES, "case", COLUMNS),
        f"![{title}](avro.png)",
        "",
    ]
    bar_chart(
        report["summary"],
        [("records_per_s", "records/s"), ("cpu_us_per_record", "worker CPU per record, µs")],
        title,
        out / "avro.png",
        COLUMNS,
    )
    (out / "avro.md").write_text("\n".join(lines))


def main() -> int:
    """Start a broker and a registry, run the rounds, write the report."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--records", type=int, default=RECORDS)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--settings", default="json,avro", help="which of json,avro to run")
    args = parser.parse_args()
    settings = [s for s, _ in COLUMNS if s in args.settings.split(",")]
    started = time.monotonic()

    def progress(message: str) -> None:
        print(f"[{time.monotonic() - started:7.0f} s] {message}", flush=True)

    with (
        tempfile.TemporaryDirectory(prefix="kconnect-avro-") as tmp,
        KafkaBroker(heap="1g") as broker,
        ApicurioRegistry() as registry,
    ):
        folder = Path(tmp)
        plugins = install(folder / "plugins")
        progress(f"writing {args.records:,} input lines; registry at {registry.url}")
        bench = Bench(broker, registry, args.records, folder, plugins)
        for r in range(args.rounds):
            for setting in settings:
                progress(f"round {r + 1}/{args.rounds}: {setting}")
                bench.run(setting, progress)
    report = {
        "records": args.records,
        "rounds": args.rounds,
        "commit": measured_commit(),
        "measured": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "summary": summarize(bench.raw),
    }
    write_report(report, args.out)
    print(json.dumps(report["summary"], indent=2))
    progress(f"done: {args.out / 'avro.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
