"""The Spark JVM's class-data archive (`kconnect_spark.class_archive`) on real workers and a real Spark.

A worker that finds no archive builds one in the background once its Spark is up; the next worker
starts its Spark JVM with it (``-XX:SharedArchiveFile``) and runs tasks as before. With
``executor.spark.class.archive=false`` nothing is built or used.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.integration.harness import wait_until
from tests.integration.test_task_failures import source, wait_task_state
from tests.worker_process import WorkerProcess

pytestmark = pytest.mark.integration


def _command_lines(pid: int) -> list[str]:
    """The command lines of `pid` and all its descendants."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        try:
            found.append((Path("/proc") / str(current) / "cmdline").read_text().replace("\0", " "))
        except OSError:
            continue
        todo.extend(children.get(current, []))
    return found


def _spark_jvm(worker: WorkerProcess) -> str:
    """The command line of the worker's own Spark JVM (not that of an archive build it started)."""
    assert worker.process is not None
    jvms = [
        c
        for c in _command_lines(worker.process.pid)
        if "org.apache.spark.deploy.SparkSubmit" in c and "ArchiveClassesAtExit" not in c
    ]
    assert len(jvms) == 1, jvms
    return jvms[0]


def _running_task(worker: WorkerProcess, tmp: Path, topic: str) -> None:
    (tmp / "in.txt").write_text("a line\n")
    source(worker, "source", tmp / "in.txt", topic)
    wait_task_state(worker, "source", "RUNNING", 180)


def test_the_first_worker_builds_the_archive_and_the_next_starts_spark_with_it(
    start_worker: Any, tmp_path: Path, unique_topic: str
) -> None:
    cache = tmp_path / "cache"
    env = {"XDG_CACHE_HOME": str(cache)}
    first = start_worker(env=env)
    _running_task(first, tmp_path, unique_topic)
    assert "SharedArchiveFile" not in _spark_jvm(first)
    wait_until("the archive", lambda: any((cache / "kconnect").glob("spark-*.jsa")), first, 300)
    wait_until("the build to end", lambda: not any((cache / "kconnect").glob("*.lock")), first, 60)
    (archive,) = (cache / "kconnect").glob("spark-*.jsa")
    assert archive.stat().st_size > 10_000_000
    assert not list((cache / "kconnect").glob("*.partial")), "a partial archive was left behind"
    first.stop()

    second = start_worker(env=env)
    (tmp_path / "second").mkdir()
    _running_task(second, tmp_path / "second", unique_topic)
    assert f"-XX:SharedArchiveFile={archive}" in _spark_jvm(second)
    assert "Building the Spark class-data archive" not in second.log_path.read_text()


def test_with_the_archive_off_nothing_is_built_or_used(
    start_worker: Any, tmp_path: Path, unique_topic: str
) -> None:
    cache = tmp_path / "cache"
    worker = start_worker({"executor.spark.class.archive": "false"}, env={"XDG_CACHE_HOME": str(cache)})
    _running_task(worker, tmp_path, unique_topic)
    time.sleep(3)
    assert "SharedArchiveFile" not in _spark_jvm(worker)
    assert not cache.exists() or not any(cache.rglob("*")), list(cache.rglob("*"))
