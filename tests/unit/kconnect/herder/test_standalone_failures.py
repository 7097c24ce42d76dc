"""The standalone herder when things go wrong: store writes that fail, connectors that hang,
concurrent updates, and connector-level config changes (KAFKA-9228).

Real StandaloneHerder, real plugin host and real file stores; only the executor is a recorder.
"""

from __future__ import annotations

import asyncio
import shutil
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from kconnect.errors import RequestTimeoutError
from kconnect.herder.standalone import StandaloneHerder
from kconnect.model import ConnectorTaskId, RestartRequest, State
from kconnect.plugin_host import PluginHost
from kconnect.storage import StoreError

from tests.connectors import HangingSource, SwitchableSource
from tests.unit.kconnect.herder.herder_fakes import (
    CONFIG,
    NAME,
    T0,
    T1,
    RecordingExecutor,
    listener,
    load_plugins,
    reaches,
    running_herder,
)

R, F, U = State.RUNNING, State.FAILED, State.UNASSIGNED
TIMEOUT_S = 0.5  # the herder's request timeout in these tests (Kafka's is 90 s)


@pytest.fixture(scope="module")
def plugins() -> PluginHost:
    return load_plugins()


@pytest.fixture
async def herder(
    plugins: PluginHost, tmp_path: Path
) -> AsyncIterator[tuple[StandaloneHerder, RecordingExecutor]]:
    async with running_herder(plugins, tmp_path, request_timeout_s=TIMEOUT_S) as started:
        yield started


def break_stores(tmp_path: Path) -> None:
    """Make the stores' directory a plain file, so every write fails (as root, chmod would not)."""
    state = tmp_path / "state"
    shutil.rmtree(state, ignore_errors=True)
    state.write_text("not a directory", encoding="utf-8")


def repair_stores(tmp_path: Path) -> None:
    (tmp_path / "state").unlink()
    (tmp_path / "state").mkdir()


# --- store writes that fail ------------------------------------------------------------------------


async def test_create_whose_config_write_fails_answers_the_error_and_creates_nothing(
    herder: tuple[StandaloneHerder, RecordingExecutor], tmp_path: Path
) -> None:
    h, executor = herder
    break_stores(tmp_path)
    with pytest.raises(StoreError, match=r"state/configs\.json: cannot write"):
        await h.put_connector_config(NAME, CONFIG, allow_replace=False)
    assert await h.connectors() == []
    assert SwitchableSource.events == [] and executor.calls == []  # nothing was started
    repair_stores(tmp_path)
    await h.put_connector_config(NAME, CONFIG, allow_replace=False)
    await reaches(h, (R, [R, R]))


async def test_update_whose_config_write_fails_keeps_the_old_config_running(
    herder: tuple[StandaloneHerder, RecordingExecutor], tmp_path: Path
) -> None:
    h, executor = herder
    await h.put_connector_config(NAME, CONFIG, allow_replace=False)
    calls, events = list(executor.calls), list(SwitchableSource.events)
    break_stores(tmp_path)
    with pytest.raises(StoreError, match=r"configs\.json"):
        await h.put_connector_config(NAME, {**CONFIG, "topic": "new"}, allow_replace=True)
    with pytest.raises(StoreError, match=r"configs\.json"):
        await h.patch_connector_config(NAME, {"topic": "new"})
    assert (await h.connector_config(NAME))["topic"] == "t"
    assert (executor.calls, SwitchableSource.events) == (calls, events)  # no restart of anything


async def test_pause_stop_and_delete_whose_write_fails_change_nothing(
    herder: tuple[StandaloneHerder, RecordingExecutor], tmp_path: Path
) -> None:
    h, executor = herder
    await h.put_connector_config(NAME, CONFIG, allow_replace=False)
    await reaches(h, (R, [R, R]))
    calls = list(executor.calls)
    break_stores(tmp_path)
    for write in (h.pause_connector, h.stop_connector, h.delete_connector):
        with pytest.raises(StoreError, match=r"configs\.json: cannot write"):
            await write(NAME)
    await reaches(h, (R, [R, R]))
    assert executor.calls == calls


async def test_task_configs_that_cannot_be_stored_fail_the_connector_with_a_trace(
    herder: tuple[StandaloneHerder, RecordingExecutor], tmp_path: Path
) -> None:
    h, executor = herder
    await h.put_connector_config(NAME, CONFIG, allow_replace=False)
    break_stores(tmp_path)
    SwitchableSource.task_suffix = "-v2"  # the restarted connector gives new task configs
    await h.restart_connector(RestartRequest(NAME))
    await reaches(h, (F, [R, R]))  # the old tasks keep running with their stored configs
    status = await h.connector_status(NAME)
    assert status.connector.trace is not None
    assert "could not store the connector's task configs" in status.connector.trace
    assert "configs.json: cannot write" in status.connector.trace
    assert [t.config["index"] for t in await h.task_configs(NAME)] == ["0", "1"]
    repair_stores(tmp_path)
    await h.restart_connector(RestartRequest(NAME))
    # RUNNING with the old tasks shows before the restarted connector's new task configs replace
    # them: wait for the new ones, then for their tasks to run.
    deadline = asyncio.get_running_loop().time() + 5
    while [t.config["index"] for t in await h.task_configs(NAME)] != ["0-v2", "1-v2"]:
        assert asyncio.get_running_loop().time() < deadline, await h.task_configs(NAME)
        await asyncio.sleep(0.01)
    await reaches(h, (R, [R, R]))
    assert executor.specs[T1].task_config["index"] == "1-v2"


async def test_source_offsets_that_cannot_be_stored_raise_naming_the_task_and_file(
    herder: tuple[StandaloneHerder, RecordingExecutor], tmp_path: Path
) -> None:
    _, executor = herder
    await listener(executor).on_commit_source_offsets(T0, [({"file": "a"}, {"pos": 1})])
    break_stores(tmp_path)
    with pytest.raises(StoreError) as raised:
        await listener(executor).on_commit_source_offsets(T0, [({"file": "a"}, {"pos": 2})])
    message = str(raised.value)
    assert message.startswith(f"Could not store the source offsets of task {T0}: ")
    assert "state/offsets.json: cannot write" in message
    assert await listener(executor).read_source_offsets(T0, [{"file": "a"}]) == [{"pos": 1}]
    repair_stores(tmp_path)
    await listener(executor).on_commit_source_offsets(T0, [({"file": "a"}, {"pos": 2})])
    assert '"pos": 2' in (tmp_path / "state" / "offsets.json").read_text(encoding="utf-8")


# --- concurrent updates ----------------------------------------------------------------------------


async def test_concurrent_patches_of_different_keys_both_land(plugins: PluginHost) -> None:
    async with running_herder(plugins) as (h, _):
        await h.put_connector_config(NAME, CONFIG, allow_replace=False)
        SwitchableSource.slow_validation_s = 0.3  # the first PATCH validates slowly; the second overtakes it
        slow = asyncio.create_task(h.patch_connector_config(NAME, {"slow": "1"}))
        await asyncio.sleep(0.1)
        await h.patch_connector_config(NAME, {"fast": "2"})
        assert not slow.done()
        info = await slow
        assert (info.config.get("slow"), info.config.get("fast")) == ("1", "2")
        config = await h.connector_config(NAME)
        assert (config.get("slow"), config.get("fast")) == ("1", "2")


# --- KAFKA-9228: connector-level changes reach the tasks -------------------------------------------


async def test_converter_change_restarts_tasks_although_task_configs_are_the_same(
    herder: tuple[StandaloneHerder, RecordingExecutor],
) -> None:
    h, executor = herder
    await h.put_connector_config(NAME, CONFIG, allow_replace=False)
    first = executor.specs[T0]
    changed = {**CONFIG, "value.converter": "org.apache.kafka.connect.storage.StringConverter"}
    await h.put_connector_config(NAME, changed, allow_replace=True)
    await reaches(h, (R, [R, R]))
    restarted = executor.specs[T0]
    assert restarted.task_config == first.task_config  # the connector gave the same task configs
    assert restarted.generation != first.generation
    assert restarted.connector_config["value.converter"] == changed["value.converter"]
    assert executor.calls[-4:] == [("stop", T0), ("stop", T1), ("start", T0), ("start", T1)]


# --- connectors that hang ----------------------------------------------------------------------------


HANGING = "hanging"
HANGING_CONFIG = {"connector.class": "Hanging", "tasks.max": "1", "topic": "t"}


async def test_a_hanging_start_times_the_write_out_and_blocks_nothing_else(
    herder: tuple[StandaloneHerder, RecordingExecutor],
) -> None:
    h, _ = herder
    began = time.monotonic()
    with pytest.raises(RequestTimeoutError, match=r"^Request timed out$"):
        await h.put_connector_config(HANGING, HANGING_CONFIG, allow_replace=False)
    assert TIMEOUT_S <= time.monotonic() - began < TIMEOUT_S + 1.0
    # Reads answer; the connector is created and shows UNASSIGNED while its start runs.
    assert await h.connectors() == [HANGING]
    assert (await h.connector_status(HANGING)).connector.state is U
    # Writes answer at once, and other connectors work.
    began = time.monotonic()
    await h.put_connector_config(NAME, CONFIG, allow_replace=False)
    await reaches(h, (R, [R, R]))
    await h.pause_connector(NAME)
    await h.resume_connector(NAME)
    await reaches(h, (R, [R, R]))
    await h.delete_connector(HANGING)
    assert time.monotonic() - began < TIMEOUT_S
    assert await h.connectors() == [NAME]


async def test_a_hanging_start_that_raises_later_shows_failed_with_its_trace(
    herder: tuple[StandaloneHerder, RecordingExecutor],
) -> None:
    h, _ = herder
    HangingSource.error = "database unreachable after a long wait"
    with pytest.raises(RequestTimeoutError):
        await h.put_connector_config(HANGING, HANGING_CONFIG, allow_replace=False)
    HangingSource.release.set()
    await reaches(h, (F, []), HANGING)
    trace = (await h.connector_status(HANGING)).connector.trace
    assert trace is not None and "RuntimeError: database unreachable after a long wait" in trace


async def test_a_hanging_task_configs_times_out_and_the_tasks_come_when_it_returns(
    herder: tuple[StandaloneHerder, RecordingExecutor],
) -> None:
    h, _ = herder
    HangingSource.hang_in = "task_configs"
    with pytest.raises(RequestTimeoutError, match=r"^Request timed out$"):
        await h.put_connector_config(HANGING, HANGING_CONFIG, allow_replace=False)
    await reaches(h, (R, []), HANGING)  # started; no task configs yet
    HangingSource.release.set()
    await reaches(h, (R, [R]), HANGING)
    assert (await h.connector_info(HANGING)).tasks == [ConnectorTaskId(HANGING, 0)]


async def test_a_slow_validate_times_the_write_out(
    herder: tuple[StandaloneHerder, RecordingExecutor],
) -> None:
    h, _ = herder
    SwitchableSource.slow_validation_s = 3 * TIMEOUT_S
    began = time.monotonic()
    with pytest.raises(RequestTimeoutError, match=r"^Request timed out$"):
        await h.put_connector_config(NAME, {**CONFIG, "slow": "1"}, allow_replace=False)
    assert time.monotonic() - began < 2 * TIMEOUT_S
    assert await h.connectors() == []  # timed out before anything was written
