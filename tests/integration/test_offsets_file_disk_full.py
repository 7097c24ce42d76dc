"""Disk full under a standalone worker's offsets file (``offset.storage.file.filename``).

The offsets file lives on a tmpfs of 256 KiB that the test mounts (we run as root here and in CI; a
test that cannot mount fails, it does not skip). A FileStreamSource commits its offsets there; the
test fills the tmpfs and appends lines. The task must end FAILED with a trace naming the reason, the
offsets file must still parse and hold the last offsets written before the disk filled, and once
space is freed a KIP-745 restart must resume from them with no line lost (duplicates are what
at-least-once allows).
"""

from __future__ import annotations

import asyncio
import errno
import json
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer

from tests.integration.harness import lines
from tests.worker_process import WorkerProcess

pytestmark = pytest.mark.integration

STRING = "org.apache.kafka.connect.storage.StringConverter"
FIRST, TOTAL = 1000, 2000


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    """A 256 KiB tmpfs mounted for this test, unmounted after it."""
    mount = tmp_path / "tiny-disk"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount)], check=True)
    try:
        yield mount
    finally:
        subprocess.run(["umount", "--lazy", str(mount)], check=True)


def fill(directory: Path) -> Path:
    """Write a file into `directory` until the file system has no byte left; returns it."""
    filler = directory / "filler"
    with filler.open("wb", buffering=0) as out:
        try:
            while True:
                out.write(b"\0" * 4096)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC, exc
    return filler


def stored_position(offsets_file: Path) -> int | None:
    """The FileStreamSource's committed byte position in the offsets file, None if it has none yet."""
    if not offsets_file.exists():
        return None
    table = json.loads(offsets_file.read_text(encoding="utf-8"))
    stored = table.get("source", {})
    return next((int(offset["position"]) for offset in stored.values()), None)


def task_state(worker: WorkerProcess) -> dict[str, Any]:
    """The status of the source's one task."""
    return dict(worker.status("source")["tasks"][0])


def test_a_full_disk_fails_the_source_keeps_its_offsets_file_and_a_restart_loses_nothing(
    start_worker: Callable[..., WorkerProcess],
    tiny_disk: Path,
    tmp_path: Path,
    unique_topic: str,
    kafka_bootstrap: str,
) -> None:
    offsets_file = tiny_disk / "connect.offsets"
    source_file = tmp_path / "in.txt"
    source_file.write_text(lines(0, FIRST), encoding="utf-8")
    worker = start_worker({"offset.storage.file.filename": str(offsets_file), "value.converter": STRING})
    try:
        config = {"connector.class": "FileStreamSource", "file": str(source_file), "topic": unique_topic}
        response = worker.request("POST", "/connectors", {"name": "source", "config": config})
        assert response.status_code == 201, response.text
        first_size = source_file.stat().st_size
        worker.wait_for("the first lines' offset stored", lambda: stored_position(offsets_file) == first_size)
        last_good = offsets_file.read_bytes()

        filler = fill(tiny_disk)
        with source_file.open("a", encoding="utf-8") as out:
            out.write(lines(FIRST, TOTAL))
        worker.wait_for("the source task FAILED", lambda: task_state(worker)["state"] == "FAILED")

        trace = task_state(worker)["trace"]
        assert "No space left on device" in trace, trace
        assert str(offsets_file) in trace, trace
        assert offsets_file.read_bytes() == last_good
        assert stored_position(offsets_file) == first_size
        assert not [p.name for p in tiny_disk.iterdir() if p.name not in {"filler", offsets_file.name}]

        filler.unlink()
        response = worker.request("POST", "/connectors/source/restart?includeTasks=true&onlyFailed=true")
        assert response.status_code == 202, response.text
        worker.wait_for_state("source", "RUNNING", tasks=1)
        total_size = source_file.stat().st_size
        worker.wait_for("every line's offset stored", lambda: stored_position(offsets_file) == total_size)
    finally:
        worker.stop()

    expected = {f"line {i}" for i in range(TOTAL)}
    assert asyncio.run(delivered_lines(kafka_bootstrap, unique_topic, expected)) == expected


async def delivered_lines(bootstrap: str, topic: str, expected: set[str]) -> set[str]:
    """The distinct values of `topic`, read from the start until they hold `expected` or 60 s pass."""
    consumer = AIOKafkaConsumer(topic, bootstrap_servers=bootstrap, auto_offset_reset="earliest")
    await consumer.start()
    try:
        seen: set[str] = set()
        deadline = time.monotonic() + 60
        while not expected <= seen and time.monotonic() < deadline:
            batch = await consumer.getmany(timeout_ms=500)
            seen.update(m.value.decode() for part in batch.values() for m in part if m.value is not None)
        return seen
    finally:
        await consumer.stop()
