"""The storage sink's engine on local disk: file names, rotation, and exactly once across crashes.

The task is driven as the sink loop drives it (open, put, pre_commit, close) by `Driver`, which
plays the framework's part: it records what the task asks of its context (seek, pause, resume) and
delivers records from a list standing for the Kafka partition, from the position the task sought.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from kconnect import SinkRecord, TopicPartition
from kconnect.data.schema import SchemaBuilder
from kconnect.data.struct import Struct
from kconnect.errors import ConnectError, DataError
from kconnect_storage.connectors import StorageSinkTask
from kconnect_storage.stores import StoreError

TOPIC = "orders"
TP = TopicPartition(TOPIC, 0)
V1 = SchemaBuilder.struct().name("order").version(1).field("id", SchemaBuilder.int64().build()).build()
V2 = (
    SchemaBuilder.struct()
    .name("order")
    .version(2)
    .field("id", SchemaBuilder.int64().build())
    .field("note", SchemaBuilder.string().optional().default_value("none").build())
    .build()
)


def record(offset: int, schema: Any = V1, partition: int = 0) -> SinkRecord:
    value = Struct(schema).put("id", offset)
    if schema is V2:
        value.put("note", f"n{offset}")
    return SinkRecord(
        topic=TOPIC, kafka_partition=partition, value_schema=schema, value=value, kafka_offset=offset
    )


class Context:
    """What the framework offers the task, recording the task's requests."""

    def __init__(self, config: Mapping[str, str]) -> None:
        self._configs = dict(config)
        self.seeks: dict[TopicPartition, int] = {}
        self.paused: set[TopicPartition] = set()

    @property
    def configs(self) -> Mapping[str, str]:
        return self._configs

    def errant_record_reporter(self) -> None:
        return None

    def assignment(self) -> set[TopicPartition]:
        return {TP}

    def offset(self, offsets: Mapping[TopicPartition, int]) -> None:
        self.seeks.update(offsets)

    def timeout(self, timeout_ms: int) -> None:
        pass

    def pause(self, *partitions: TopicPartition) -> None:
        self.paused.update(partitions)

    def resume(self, *partitions: TopicPartition) -> None:
        self.paused.difference_update(partitions)

    def request_commit(self) -> None:
        pass


def config(root: Path, **extra: str) -> dict[str, str]:
    return {
        "storage.url": str(root),
        "format.class": "io.confluent.connect.s3.format.parquet.ParquetFormat",
        "flush.size": "10",
        **extra,
    }


def start(root: Path, **extra: str) -> tuple[StorageSinkTask, Context]:
    settings = config(root, **extra)
    task = StorageSinkTask()
    context = Context(settings)
    task.initialize(context)  # type: ignore[arg-type]
    task.start(settings)
    task.open({TP})
    return task, context


def committed(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*.parquet") if "+tmp" not in p.parts)


def ids_in_files(root: Path) -> list[int]:
    ids: list[int] = []
    for name in committed(root):
        ids += pq.read_table(root / name).column("id").to_pylist()
    return sorted(ids)


def test_flush_size_commits_files_named_by_topic_partition_and_offsets(tmp_path: Path) -> None:
    task, context = start(tmp_path)
    assert context.seeks == {}, "no files yet: the consumer's own position stands"
    task.put([record(o) for o in range(25)])
    assert committed(tmp_path) == [
        "topics/orders/partition=0/orders+0+0000000000+0000000009.parquet",
        "topics/orders/partition=0/orders+0+0000000010+0000000019.parquet",
    ]
    assert ids_in_files(tmp_path) == list(range(20))
    assert task.pre_commit({TP: 25}) == {TP: 20}, "the group may only move past committed files"
    task.stop()


def test_a_crash_with_an_open_file_resumes_after_the_last_committed_file_writing_nothing_twice(
    tmp_path: Path,
) -> None:
    crashed, _ = start(tmp_path)
    crashed.put([record(o) for o in range(25)])  # 20..24 are in a staged file when it "crashes"
    staged = [p for p in tmp_path.rglob("*") if p.is_file() and "+tmp" in p.parts]
    assert staged, "the open file is staged under +tmp, invisible to readers"

    task, context = start(tmp_path)
    assert context.seeks == {TP: 20}
    assert not [p for p in tmp_path.rglob("*") if p.is_file() and "+tmp" in p.parts], "orphans thrown away"
    # Kafka may deliver from the group's (older) offset before the seek takes effect.
    task.put([record(o) for o in range(12, 40)])
    assert ids_in_files(tmp_path) == list(range(40))
    task.stop()


class FailingAfterLogWrite:
    """A real local store that dies (raises) right after the commit-log entry is written."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.armed = True

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    def write_whole(self, path: str, data: bytes) -> None:
        self.store.write_whole(path, data)
        if self.armed:
            raise StoreError("the store went away after the commit log entry was written")


def test_a_crash_between_the_commit_log_entry_and_publication_is_replayed_at_recovery(tmp_path: Path) -> None:
    task, context = start(
        tmp_path,
        **{
            "partitioner.class": "io.confluent.connect.storage.partitioner.FieldPartitioner",
            "partition.field.name": "id",
        },
    )
    task.parts.commit_log.store = FailingAfterLogWrite(task.parts.store)  # type: ignore[assignment]
    # flush.size=10 across ten directories (id=0..id=9): the commit fails after its entry is written.
    task.put([record(o) for o in range(10)])
    assert committed(tmp_path) == [], "nothing published yet"
    assert TP in context.paused, "the partition waits for the store"
    entry = json.loads((tmp_path / "logs/orders/0/commit.json").read_bytes())
    assert len(entry["files"]) == 10

    recovered, context = start(
        tmp_path,
        **{
            "partitioner.class": "io.confluent.connect.storage.partitioner.FieldPartitioner",
            "partition.field.name": "id",
        },
    )
    assert context.seeks == {TP: 10}
    assert len(committed(tmp_path)) == 10 and ids_in_files(tmp_path) == list(range(10))
    assert not (tmp_path / "logs/orders/0/commit.json").exists()
    recovered.stop()


def test_a_store_error_pauses_the_partition_retries_and_then_fails_naming_the_store(tmp_path: Path) -> None:
    task, context = start(tmp_path, **{"retry.backoff.ms": "0", "max.retries": "2"})
    task.put([record(o) for o in range(5)])

    def broken_stage(directory: str, prefix: str) -> Any:
        raise StoreError(f"Could not create a file in {directory} on file://{tmp_path}: disk on fire")

    store = task.parts.store
    healthy_stage = store.stage
    store.stage = broken_stage  # type: ignore[method-assign]
    task.put([record(o) for o in range(5, 15)])  # rotation at 10, then a new file: stage fails
    assert TP in context.paused and context.seeks == {}
    task.put([])  # retry: recovery works (listing), so the partition is sought back and resumed
    assert context.seeks == {TP: 10} and TP not in context.paused
    store.stage = healthy_stage  # type: ignore[method-assign]
    task.put([record(o) for o in range(10, 20)])
    assert ids_in_files(tmp_path) == list(range(20))

    store.stage = broken_stage  # type: ignore[method-assign]
    store.list_files = lambda directory: (_ for _ in ()).throw(StoreError("listing failed: disk on fire"))  # type: ignore[method-assign]
    task.put([record(20)])
    with pytest.raises(ConnectError, match="after 2 retries: listing failed: disk on fire"):
        for _ in range(5):
            task.put([])


def test_schema_change_with_none_compatibility_commits_the_open_files(tmp_path: Path) -> None:
    task, _ = start(tmp_path)
    task.put([record(0), record(1), record(2, V2), record(3, V2), record(4)])
    task.put([record(o) for o in range(5, 14)])
    assert committed(tmp_path) == [
        "topics/orders/partition=0/orders+0+0000000000+0000000001.parquet",
        "topics/orders/partition=0/orders+0+0000000002+0000000003.parquet",
        "topics/orders/partition=0/orders+0+0000000004+0000000013.parquet",
    ]
    task.stop()


def test_backward_compatibility_projects_older_records_onto_the_newer_schema(tmp_path: Path) -> None:
    task, _ = start(tmp_path, **{"schema.compatibility": "BACKWARD"})
    task.put([record(0), record(1, V2), record(2), record(3, V2)])
    task.put([record(o, V2) for o in range(4, 11)])
    files = committed(tmp_path)
    assert files == [
        "topics/orders/partition=0/orders+0+0000000000+0000000000.parquet",
        "topics/orders/partition=0/orders+0+0000000001+0000000010.parquet",
    ]
    notes = pq.read_table(tmp_path / files[1]).column("note").to_pylist()
    assert notes[:3] == ["n1", "none", "n3"], "the V1 record took V2's default"
    task.stop()


def test_a_record_renamed_to_another_topic_by_a_transformation_is_refused_naming_why(tmp_path: Path) -> None:
    task, _ = start(tmp_path)
    renamed = record(0).new_record(topic="elsewhere", original_topic=TOPIC, original_kafka_partition=0)
    with pytest.raises(DataError, match="renamed to topic 'elsewhere' by a transformation"):
        task.put([renamed])
    task.stop()


def test_a_store_unreachable_at_open_pauses_the_partition_until_recovery_works(tmp_path: Path) -> None:
    first, _ = start(tmp_path)
    first.put([record(o) for o in range(12)])
    first.stop()
    settings = config(tmp_path, **{"retry.backoff.ms": "0"})
    task = StorageSinkTask()
    context = Context(settings)
    task.initialize(context)  # type: ignore[arg-type]
    task.start(settings)
    store = task.parts.store
    listing = store.list_files
    store.list_files = lambda directory: (_ for _ in ()).throw(StoreError("namenode away"))  # type: ignore[method-assign]
    task.open({TP})
    assert TP in context.paused and context.seeks == {}
    task.put([record(11)])  # fetched before the pause took effect: read again after recovery
    store.list_files = listing  # type: ignore[method-assign]
    task.put([])
    assert context.seeks == {TP: 10} and TP not in context.paused
    task.put([record(o) for o in range(10, 20)])
    assert ids_in_files(tmp_path) == list(range(20))
    task.stop()


def test_recovery_throws_away_a_commit_log_entry_a_crash_left_half_written(tmp_path: Path) -> None:
    leftover = tmp_path / "topics/+tmp/logs/orders/0/commit.json.0b47c0de.tmp"
    leftover.parent.mkdir(parents=True)
    leftover.write_text('{"files": [')
    task, context = start(tmp_path)
    assert not leftover.exists()
    assert context.seeks == {}
    task.stop()
