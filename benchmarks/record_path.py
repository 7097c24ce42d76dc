"""The Python data path's own cost per record, in one process, without a broker or Spark.

What a source task host does per line of the file pipeline besides the producer's I/O
(FileStreamSource's ``poll``, the source loop's ``prepare_all`` through JsonConverter with schemas
off, and ``SubmittedRecords.submit``; ``source+poll_batch``: ``poll_batch``, ``prepare_batch`` and
one ``submit`` per batch), and what a sink task host does per message besides the
consumer's I/O (``SinkRecordBuilder.batch`` from aiokafka ``ConsumerRecord``s of the source's
bytes). These are the loops `cpu_split.py --py-spy` shows holding the interpreter lock. Two more
sink rows add FileStreamSink writing each fetch to /dev/null: ``sink+put`` (records, `put`) and
``sink+put_batch`` (``SinkRecordBuilder.columns``, a `SinkBatch` to `put_batch`).

Two measures:

- CPU µs per record (``time.process_time``, the best of ``--rounds``): quick, but it moves with
  whatever else runs on the machine;
- ``--instructions``: each half runs under valgrind's callgrind at two sizes and the difference of
  the instruction counts over the difference of records is printed: start-up cancels out, and
  the count does not depend on the machine's load (needs ``valgrind``; about a minute a run).

``--against REV`` measures the kernel and the file and converter plugins of a git revision as well
(a temporary worktree put first on ``PYTHONPATH``), so a change is measured against its parent:

    tox -e bench -- record_path.py
    tox -e bench -- record_path.py --instructions --against 34bf418
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from revision import add_worktree, remove_worktree

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
#: Source folders the revision under test supplies (`--against`).
SOURCES = ("kernel/src", "plugins/file/src", "plugins/converters/src")
LINE_BYTES = 100
BATCH = 2000
VALGRIND = ("valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null")


def _plugins() -> Any:
    from kconnect.runtime.task_plugins import TaskPlugins
    from kconnect_converters.header_converter import SimpleHeaderConverter
    from kconnect_converters.json_converter import JsonConverter

    def converter(is_key: bool) -> JsonConverter:
        made = JsonConverter()
        made.configure({"schemas.enable": "false"}, is_key)
        return made

    return TaskPlugins(converter(True), converter(False), SimpleHeaderConverter(), [])


def source_half(path: Path, delivery: str = "poll") -> tuple[float, int, list[bytes]]:
    """poll -> prepare -> submit over the whole file: CPU seconds, records, the first values' bytes.

    `delivery` ``poll_batch`` polls batches (`SourceBatch`) and converts them column by column."""
    from kconnect.runtime.error_handling import ErrorHandler, ErrorPolicy
    from kconnect.runtime.source_records import SourceRecordPreparer
    from kconnect.runtime.submitted_records import SubmittedRecords
    from kconnect_file.source import FileStreamSourceTask

    class NoOffsets:
        def offset(self, partition: Any) -> None:
            return None

    preparer = SourceRecordPreparer(_plugins(), ErrorHandler("source-0", ErrorPolicy()))
    # Revisions before prepare_all prepared record by record.
    prepare_all = getattr(preparer, "prepare_all", None) or (lambda rs: [preparer.prepare(r) for r in rs])
    task = FileStreamSourceTask()
    task.initialize(SimpleNamespace(offset_storage_reader=NoOffsets()))  # type: ignore[arg-type]
    task.start({"file": str(path), "topic": "t", "batch.size": str(BATCH)})
    submitted, records, values = SubmittedRecords(), 0, []
    started = time.process_time()
    if delivery == "poll_batch":
        while batches := task.poll_batch():
            for batch in batches:
                ready = preparer.prepare_batch(batch)
                submitted.submit(batch.source_partition, batch.source_offset, len(ready.values))
                values += ready.values[: BATCH - len(values)]
                records += len(batch)
    else:
        while polled := task.poll():
            prepared = prepare_all(polled)
            for record, ready in zip(polled, prepared, strict=True):
                submitted.submit(record.source_partition, record.source_offset)
                if len(values) < BATCH:
                    values.append(ready[2])
            records += len(polled)
    spent = time.process_time() - started
    task.stop()
    return spent, records, values


def sink_half(values: list[bytes], count: int, delivery: str = "") -> float:
    """`count` consumed messages of `values` through SinkRecordBuilder.batch: CPU seconds.

    `delivery` adds FileStreamSink writing each fetch to /dev/null: ``put`` (after ``batch``, as
    before) or ``put_batch`` (after ``columns``: `SinkBatch`, no record object per message)."""
    from aiokafka.structs import ConsumerRecord
    from kconnect.runtime.error_handling import ErrorHandler, ErrorPolicy
    from kconnect.runtime.sink_records import SinkRecordBuilder
    from kconnect.task import TopicPartition
    from kconnect_file.sink import FileStreamSinkTask

    builder = SinkRecordBuilder(_plugins(), ErrorHandler("sink-0", ErrorPolicy()))
    tp = TopicPartition("t", 0)
    messages = [
        ConsumerRecord(
            "t", 0, i, 1_700_000_000_000 + i, 0, None, values[i % len(values)], None, 0, LINE_BYTES, ()
        )
        for i in range(count)
    ]
    fetches = [{tp: messages[i : i + BATCH]} for i in range(0, count, BATCH)]
    task = FileStreamSinkTask()
    task.start({"file": os.devnull})
    build = builder.columns if delivery == "put_batch" else builder.batch
    deliver = getattr(task, delivery) if delivery else lambda records: None
    started = time.process_time()
    for fetched in fetches:
        deliver(build(fetched).records)
    spent = time.process_time() - started
    task.stop()
    return spent


#: Each source half measured, and how (`source_half`'s `delivery`).
SOURCE_HALVES = {"source": "poll", "source+poll_batch": "poll_batch"}
#: Each sink half measured, and how (`sink_half`'s `delivery`).
SINK_HALVES = {"sink": "", "sink+put": "put", "sink+put_batch": "put_batch"}
HALVES = {**SOURCE_HALVES, **SINK_HALVES}


def write_input(path: Path, count: int) -> None:
    """`count` lines of 100 bytes, newline included."""
    with path.open("w") as out:
        for i in range(count):
            out.write(f"{i:010d} " + "x" * (LINE_BYTES - 12) + "\n")


def cpu(records: int, rounds: int) -> dict[str, float]:
    """Best-of-`rounds` CPU µs per record of each half, in this process."""
    with tempfile.TemporaryDirectory(prefix="kconnect-record-path-") as tmp:
        path = Path(tmp) / "in.txt"
        write_input(path, records)
        best = dict.fromkeys(HALVES, float("inf"))
        for _ in range(rounds):
            for half, delivery in SOURCE_HALVES.items():
                if _supported(delivery):
                    spent, moved, values = source_half(path, delivery)
                    best[half] = min(best[half], spent / moved * 1e6)
            for half, delivery in SINK_HALVES.items():
                if _supported(delivery):
                    best[half] = min(best[half], sink_half(values, records, delivery) / records * 1e6)
    return {half: figure for half, figure in best.items() if figure != float("inf")}


def _supported(delivery: str) -> bool:
    """Whether the revision under test has this delivery (``put_batch`` came with `SinkBatch`,
    ``poll_batch`` with `SourceBatch`)."""
    from kconnect.runtime.sink_records import SinkRecordBuilder
    from kconnect.runtime.source_records import SourceRecordPreparer

    if delivery == "put_batch":
        return hasattr(SinkRecordBuilder, "columns")
    if delivery == "poll_batch":
        return hasattr(SourceRecordPreparer, "prepare_batch")
    return True


def _one_half(half: str, records: int) -> None:
    """Run one half once (what callgrind counts): the sink half reads the source half's values."""
    with tempfile.TemporaryDirectory(prefix="kconnect-record-path-") as tmp:
        path = Path(tmp) / "in.txt"
        write_input(path, records if half in SOURCE_HALVES else BATCH)
        _, _, values = source_half(path, SOURCE_HALVES.get(half, "poll"))
        if half in SINK_HALVES:
            sink_half(values, records, SINK_HALVES[half])


def instructions(half: str, env: dict[str, str], small: int = 10_000, large: int = 30_000) -> float:
    """Instructions per record of `half`: callgrind's counts at two sizes, differenced."""
    counts = []
    for records in (small, large):
        done = subprocess.run(
            [*VALGRIND, sys.executable, __file__, "--one-half", half, "--records", str(records)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        collected = [line for line in done.stderr.splitlines() if "Collected" in line]
        counts.append(int(collected[-1].split()[-1]))
    return (counts[1] - counts[0]) / (large - small)


def _revision_has(worktree: Path, delivery: str) -> bool:
    """Whether the revision checked out in `worktree` has this delivery (see `_supported`)."""
    runtime = worktree / "kernel/src/kconnect/runtime"
    if delivery == "put_batch":
        return "def columns" in (runtime / "sink_records.py").read_text()
    if delivery == "poll_batch":
        return "def prepare_batch" in (runtime / "source_records.py").read_text()
    return True


def _revision_env(revision: str | None, worktree: Path) -> dict[str, str]:
    env = dict(os.environ)
    if revision is not None:
        env["PYTHONPATH"] = add_worktree(revision, worktree, SOURCES)
    return env


def main() -> int:
    """Measure the working tree (and `--against` a revision) and print a row per half."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--records", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--instructions", action="store_true", help="count instructions with callgrind")
    parser.add_argument("--against", metavar="REV", help="a git revision to measure as well")
    parser.add_argument("--one-half", choices=tuple(HALVES), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one_half:
        _one_half(args.one_half, args.records)
        return 0
    with tempfile.TemporaryDirectory(prefix="kconnect-record-path-rev-") as tmp:
        worktree = Path(tmp) / "rev"
        try:
            for label, revision in (("working tree", None), (args.against, args.against)):
                if label is None:
                    continue
                env = _revision_env(revision, worktree)
                if args.instructions:
                    figures = {
                        half: instructions(half, env)
                        for half, delivery in HALVES.items()
                        if revision is None or _revision_has(worktree, delivery)
                    }
                    unit = "instructions per record"
                else:
                    call = f"record_path.cpu({args.records}, {args.rounds})"
                    code = f"import json, record_path; print(json.dumps({call}))"
                    done = subprocess.run(
                        [sys.executable, "-c", code],
                        env=env,
                        cwd=HERE,
                        capture_output=True,
                        text=True,
                        check=True,
                    )
                    figures, unit = json.loads(done.stdout), "CPU µs per record, best of rounds"
                shown = ", ".join(f"{half} {figure:,.2f}" for half, figure in figures.items())
                print(f"{label}: {shown} ({unit})")
        finally:
            if args.against:
                remove_worktree(worktree)
    return 0


if __name__ == "__main__":
    sys.exit(main())
