"""The stores: memory and file twins, round trips, atomic writes and corrupt files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kconnect.model import ConnectorTaskId, State, StateInfo, TargetState, TaskStateInfo
from kconnect.storage import (
    FileConfigBackingStore,
    FileOffsetBackingStore,
    MemoryConfigBackingStore,
    MemoryOffsetBackingStore,
    MemoryStatusBackingStore,
    StoreError,
    atomic_file,
)

P1 = {"filename": "/tmp/a.txt"}
P2 = {"filename": "/tmp/b.txt"}


@pytest.fixture(params=["memory", "file"])
def offset_store(request: pytest.FixtureRequest, tmp_path: Path) -> MemoryOffsetBackingStore:
    return (
        MemoryOffsetBackingStore()
        if request.param == "memory"
        else FileOffsetBackingStore(tmp_path / "o.json")
    )


@pytest.fixture(params=["memory", "file"])
def config_store(request: pytest.FixtureRequest, tmp_path: Path) -> MemoryConfigBackingStore:
    return (
        MemoryConfigBackingStore()
        if request.param == "memory"
        else FileConfigBackingStore(tmp_path / "c.json")
    )


async def test_offsets_set_get_partitions_remove(offset_store: MemoryOffsetBackingStore) -> None:
    await offset_store.start()
    await offset_store.set("c", [(P1, {"position": 1}), (P2, {"position": 2})])
    await offset_store.set("other", [(P1, {"position": 9})])
    assert await offset_store.get("c", [P2, P1, {"x": 1}]) == [{"position": 2}, {"position": 1}, None]
    assert sorted(map(json.dumps, await offset_store.partitions("c"))) == sorted(map(json.dumps, [P1, P2]))
    await offset_store.set("c", [(P1, None)])
    assert await offset_store.get("c", [P1, P2]) == [None, {"position": 2}]
    await offset_store.remove("c")
    assert await offset_store.partitions("c") == []
    assert await offset_store.get("other", [P1]) == [{"position": 9}]


async def test_offset_file_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "offsets.json"
    store = FileOffsetBackingStore(path)
    await store.start()
    await store.set("c", [(P1, {"position": 42})])
    again = FileOffsetBackingStore(path)
    await again.start()
    assert await again.get("c", [P1]) == [{"position": 42}]
    assert json.loads(path.read_text()) == {"c": {'{"filename":"/tmp/a.txt"}': {"position": 42}}}


async def test_partition_keys_ignore_key_order(offset_store: MemoryOffsetBackingStore) -> None:
    await offset_store.start()
    await offset_store.set("c", [({"a": 1, "b": 2}, {"o": 1})])
    assert await offset_store.get("c", [{"b": 2, "a": 1}]) == [{"o": 1}]


async def test_crash_between_write_and_replace_keeps_committed_offsets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "offsets.json"
    store = FileOffsetBackingStore(path)
    await store.start()
    await store.set("c", [(P1, {"position": 1})])
    before = path.read_bytes()

    def crash(source: Path, target: Path) -> None:
        raise KeyboardInterrupt("power cut")

    monkeypatch.setattr(atomic_file, "replace", crash)
    with pytest.raises(KeyboardInterrupt):
        await store.set("c", [(P1, {"position": 2})])
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["offsets.json"]  # no temp file left behind
    assert await store.get("c", [P1]) == [{"position": 1}]  # memory did not run ahead of the file
    reloaded = FileOffsetBackingStore(path)
    await reloaded.start()
    assert await reloaded.get("c", [P1]) == [{"position": 1}]


async def test_write_failure_is_a_store_error_naming_the_file(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    store = FileOffsetBackingStore(blocker / "offsets.json")
    await store.start()
    blocker.write_text("x")
    with pytest.raises(StoreError, match=r"not-a-dir/offsets\.json"):
        await store.set("c", [(P1, {"position": 1})])
    assert await store.get("c", [P1]) == [None]


async def test_rename_onto_a_directory_fails_naming_the_file_and_leaves_no_temp_file(tmp_path: Path) -> None:
    path = tmp_path / "offsets.json"
    store = FileOffsetBackingStore(path)
    await store.start()
    await store.set("c", [(P1, {"position": 1})])
    path.unlink()
    (path / "in-the-way").mkdir(parents=True)  # the target of the atomic rename is now a directory
    with pytest.raises(StoreError, match=r"offsets\.json: cannot write: Is a directory"):
        await store.set("c", [(P1, {"position": 2})])
    assert await store.get("c", [P1]) == [{"position": 1}]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["offsets.json"]


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", '{"c": {"p": 5}}'])
async def test_corrupt_offset_file_names_the_file(tmp_path: Path, content: str) -> None:
    path = tmp_path / "offsets.json"
    path.write_text(content)
    with pytest.raises(StoreError, match=r"offsets\.json.*corrupt"):
        await FileOffsetBackingStore(path).start()


@pytest.mark.parametrize("content", ["{", '{"connectors": 3}', '{"connectors": {"c": {"config": {"a": 1}}}}'])
async def test_corrupt_config_file_names_the_file(tmp_path: Path, content: str) -> None:
    path = tmp_path / "configs.json"
    path.write_text(content)
    with pytest.raises(StoreError, match=r"configs\.json.*corrupt"):
        await FileConfigBackingStore(path).start()


async def test_config_store_operations(config_store: MemoryConfigBackingStore) -> None:
    await config_store.start()
    await config_store.put_connector_config("c", {"name": "c"})
    first = config_store.snapshot()
    assert first.contains("c") and first.target_state("c") is TargetState.STARTED
    await config_store.put_task_configs("c", [{"t": "0"}, {"t": "1"}])
    await config_store.put_target_state("c", TargetState.PAUSED)
    await config_store.put_connector_config("d", {"name": "d"}, TargetState.STOPPED)
    snap = config_store.snapshot()
    assert not first.task_configs  # snapshots are immutable values
    assert snap.connectors() == ["c", "d"]
    assert snap.tasks("c") == [ConnectorTaskId("c", 0), ConnectorTaskId("c", 1)]
    assert snap.task_config(ConnectorTaskId("c", 1)) == {"t": "1"}
    assert snap.task_config(ConnectorTaskId("c", 2)) is None
    assert snap.target_state("c") is TargetState.PAUSED and snap.target_state("d") is TargetState.STOPPED
    await config_store.put_connector_config("c", {"name": "c", "x": "1"})
    assert config_store.snapshot().target_state("c") is TargetState.PAUSED  # an update keeps the target
    await config_store.put_task_configs("c", [])
    assert config_store.snapshot().task_count("c") == 0
    await config_store.remove_connector_config("c")
    assert config_store.snapshot().connectors() == ["d"]


async def test_config_file_round_trip_keeps_target_and_tasks(tmp_path: Path) -> None:
    path = tmp_path / "configs.json"
    store = FileConfigBackingStore(path)
    await store.start()
    await store.put_connector_config("c", {"name": "c"}, TargetState.PAUSED)
    await store.put_task_configs("c", [{"t": "0"}])
    again = FileConfigBackingStore(path)
    await again.start()
    assert again.snapshot() == store.snapshot()


async def test_config_crash_keeps_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "configs.json"
    store = FileConfigBackingStore(path)
    await store.start()
    await store.put_connector_config("c", {"name": "c"})
    monkeypatch.setattr(atomic_file, "replace", lambda s, t: (_ for _ in ()).throw(OSError(5, "I/O error")))
    with pytest.raises(StoreError):
        await store.put_target_state("c", TargetState.STOPPED)
    assert store.snapshot().target_state("c") is TargetState.STARTED
    reloaded = FileConfigBackingStore(path)
    await reloaded.start()
    assert reloaded.snapshot().target_state("c") is TargetState.STARTED


def test_status_store() -> None:
    store = MemoryStatusBackingStore()
    t0 = ConnectorTaskId("c", 0)
    store.put_connector("c", StateInfo(State.RUNNING, "w"))
    store.put_task(t0, TaskStateInfo(State.FAILED, "w", "trace", id=0))
    store.put_topic("c", "b")
    store.put_topic("c", "a")
    assert store.get_connector("c") == StateInfo(State.RUNNING, "w")
    assert store.get_task(t0) is not None and store.get_task(t0).trace == "trace"  # type: ignore[union-attr]
    assert store.topics("c") == ["a", "b"]
    store.reset_topics("c")
    assert store.topics("c") == []
    store.put_topic("c", "a")
    store.remove("c")
    assert store.get_connector("c") is None and store.get_task(t0) is None and store.topics("c") == []
