"""FileStreamSourceTask: lines of a real file as records, batch.size per poll, byte offsets, resume."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from kconnect.config import ConfigException
from kconnect.connector import ExactlyOnceSupport
from kconnect_file.source import FileStreamSourceConnector, FileStreamSourceTask


class _Offsets:
    def __init__(self, committed: Mapping[str, Any] | None) -> None:
        self.committed = committed

    def offset(self, partition: Mapping[str, Any]) -> Mapping[str, Any] | None:
        return self.committed

    def offsets(self, partitions: Sequence[Mapping[str, Any]]) -> list[Any]:
        return [(p, self.committed) for p in partitions]


class _Context:
    def __init__(self, committed: Mapping[str, Any] | None) -> None:
        self.configs: Mapping[str, str] = {}
        self.offset_storage_reader = _Offsets(committed)


def _task(path: Path, committed: Mapping[str, Any] | None = None, batch: int = 2000) -> FileStreamSourceTask:
    task = FileStreamSourceTask()
    task.initialize(_Context(committed))
    task.start({"file": str(path), "topic": "t", "batch.size": str(batch)})
    return task


def _values_and_positions(task: FileStreamSourceTask) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    while records := task.poll():
        out += [(r.value, r.source_offset["position"]) for r in records if r.source_offset]
    return out


def test_each_poll_returns_at_most_batch_size_lines_with_byte_offsets(tmp_path: Path) -> None:
    path = tmp_path / "in.txt"
    path.write_bytes("a\nbé\r\nc\n".encode())
    task = _task(path, batch=2)
    first = task.poll()
    assert first is not None and [r.value for r in first] == ["a", "bé"]
    assert first[0].source_partition == {"filename": str(path)}
    assert [r.source_offset for r in first] == [{"position": 2}, {"position": 7}]
    assert _values_and_positions(task) == [("c", 9)]
    task.stop()


def test_a_half_written_last_line_is_emitted_once_complete(tmp_path: Path) -> None:
    path = tmp_path / "in.txt"
    path.write_bytes(b"one\ntw")
    task = _task(path)
    assert _values_and_positions(task) == [("one", 4)]
    with path.open("ab") as f:
        f.write(b"o\n")
    assert _values_and_positions(task) == [("two", 8)]
    task.stop()


def test_restart_resumes_after_the_committed_position(tmp_path: Path) -> None:
    path = tmp_path / "in.txt"
    path.write_bytes(b"first\nsecond\nthird\n")
    task = _task(path, committed={"position": 6})
    assert _values_and_positions(task) == [("second", 13), ("third", 19)]
    task.stop()


def test_many_lines_in_one_read_all_arrive_in_order(tmp_path: Path) -> None:
    path = tmp_path / "in.txt"
    count = 200_000
    path.write_bytes(b"".join(b"line %d\n" % i for i in range(count)))
    got = _values_and_positions(_task(path))
    assert [v for v, _ in got] == [f"line {i}" for i in range(count)]
    assert got[-1][1] == path.stat().st_size


def test_poll_batch_gives_polls_lines_as_one_batch_with_the_position_after_the_last(tmp_path: Path) -> None:
    path = tmp_path / "in.txt"
    path.write_bytes("a\nbé\r\nc\nhalf".encode())
    by_records = _values_and_positions(_task(path, batch=2))
    task = _task(path, batch=2)
    batches = []
    while polled := task.poll_batch():
        batches += polled
    assert [(b.values, b.source_offset) for b in batches] == [
        (["a", "bé"], {"position": 7}),
        (["c"], {"position": 9}),
    ]
    assert all(b.topic == "t" and b.source_partition == {"filename": str(path)} for b in batches)
    # The same lines as poll's records, and each batch's offset is its last record's.
    assert [v for b in batches for v in b.values] == [v for v, _ in by_records]
    assert [b.source_offset["position"] for b in batches if b.source_offset] == [
        by_records[1][1],
        by_records[2][1],
    ]
    task.stop()


def test_exactly_once_is_supported_for_a_file_and_not_for_stdin_as_kafkas_connector_answers() -> None:
    connector = FileStreamSourceConnector()
    assert (
        connector.exactly_once_support({"topic": "t", "file": "/tmp/in.txt"}) is ExactlyOnceSupport.SUPPORTED
    )
    assert connector.exactly_once_support({"topic": "t"}) is ExactlyOnceSupport.UNSUPPORTED
    with pytest.raises(ConfigException, match='Missing required configuration "topic"'):
        connector.exactly_once_support({"file": "/tmp/in.txt"})
