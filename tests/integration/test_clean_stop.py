"""A stop the user asks for is clean (issue 36): SIGTERM or SIGINT, to the worker or to its whole
process group (systemd's default stop signals the group; Ctrl-C in a terminal signals it with
SIGINT), ends the tasks, commits their offsets, stops Spark and logs no ERROR and no traceback.

Each case runs a FileStreamSource -> Kafka -> FileStreamSink pipeline of `LINES` lines on a
standalone worker leading a process group of its own, whose offsets are committed only by the stop
(``offset.flush.interval.ms`` of 10 minutes, ``offset.flush.records=0``).
``KCONNECT_CLEAN_STOP_LINES=1000000`` runs the full size the issue names; CI runs 50,000, which
proves the same: the stop comes after the last line, with every offset still to commit and a Spark
job per task running.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import uuid
from pathlib import Path

import pytest
from aiokafka import AIOKafkaConsumer, TopicPartition

from tests.worker_process import WorkerProcess, count_lines, descendants, write_properties

pytestmark = pytest.mark.integration

LINES = int(os.environ.get("KCONNECT_CLEAN_STOP_LINES", "50000"))
#: Longer than any case runs: the periodic commit never fires, so only the stop commits.
FLUSH_INTERVAL_MS = 600_000
#: What a clean stop's log must not hold, from the signal on.
NOT_CLEAN = ("ERROR", "Traceback", "Exception")


async def _committed(bootstrap: str, group: str, topic: str) -> int | None:
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, group_id=group, enable_auto_commit=False)
    await consumer.start()
    try:
        return await consumer.committed(TopicPartition(topic, 0))
    finally:
        await consumer.stop()


def _source_position(offsets: Path) -> int | None:
    if not offsets.exists():
        return None
    stored = json.loads(offsets.read_text(encoding="utf-8")).get("file-source", {})
    return next((int(offset["position"]) for offset in stored.values()), None)


def _running(pid: int) -> bool:
    """Whether `pid` still runs (a zombie left for a parent that does not reap it has ended)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _start(tmp_path: Path, bootstrap: str, source: Path, sink: Path, topic: str) -> WorkerProcess:
    connectors = [
        write_properties(
            tmp_path / "source.properties",
            {
                "name": "file-source",
                "connector.class": "FileStreamSource",
                "file": str(source),
                "topic": topic,
            },
        ),
        write_properties(
            tmp_path / "sink.properties",
            {"name": "file-sink", "connector.class": "FileStreamSink", "file": str(sink), "topics": topic},
        ),
    ]
    props = {
        "bootstrap.servers": bootstrap,
        "offset.storage.file.filename": str(tmp_path / "connect.offsets"),
        "offset.flush.interval.ms": str(FLUSH_INTERVAL_MS),
        "offset.flush.records": "0",  # kconnect's commit by count, off: as in Kafka
    }
    return WorkerProcess(tmp_path, props, connectors, own_process_group=True).start()


@pytest.mark.parametrize("target", ["group", "worker"])
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stop_by_signal_commits_offsets_stops_spark_and_logs_no_error(
    kafka_bootstrap: str, tmp_path: Path, signum: signal.Signals, target: str
) -> None:
    topic = f"clean-stop-{uuid.uuid4().hex[:8]}"
    source, sink, offsets = tmp_path / "source.txt", tmp_path / "sink.txt", tmp_path / "connect.offsets"
    source.write_text("".join(f"line {i:07d} of a pipeline stopped by a signal\n" for i in range(LINES)))
    worker = _start(tmp_path, kafka_bootstrap, source, sink, topic)
    assert worker.process is not None
    worker.wait_for(f"{LINES:,} lines in the sink file", lambda: count_lines(sink) >= LINES, timeout=600)
    # Nothing committed yet: what is committed below, the stop committed.
    assert _source_position(offsets) is None
    assert asyncio.run(_committed(kafka_bootstrap, "connect-file-sink", topic)) in (None, 0)
    spark = descendants(worker.process.pid)
    assert spark, "the worker runs Spark's JVM and Python workers as its descendants"
    log_at_stop = worker.log_path.stat().st_size

    if target == "group":
        os.killpg(worker.process.pid, signum)
    else:
        worker.process.send_signal(signum)
    worker.interrupted = True
    assert worker.stop(timeout=120) == 0

    stop_log = worker.log_path.read_bytes()[log_at_stop:].decode(errors="replace")
    assert "Stopping kconnect worker" in stop_log
    for word in NOT_CLEAN:
        assert word not in stop_log, f"{word} in the log of a stop the user asked for:\n{stop_log}"
    assert _source_position(offsets) == source.stat().st_size
    assert asyncio.run(_committed(kafka_bootstrap, "connect-file-sink", topic)) == LINES
    assert sink.read_bytes() == source.read_bytes()
    worker.wait_for(
        "Spark's JVM and Python workers to end with the worker",
        lambda: not [pid for pid in spark if _running(pid)],
        timeout=30,
    )
