"""The standalone herder's front door, with real stores and plugin host and a recording executor."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from kconnect.errors import AlreadyExistsError, BadRequestError, NotFoundError, RequestTimeoutError
from kconnect.herder.standalone import StandaloneHerder
from kconnect.model import ConnectorOffset, ConnectorTaskId, ConnectorType, RestartRequest, State, TargetState
from kconnect.plugin_host import PluginHost

from tests.connectors import SwitchableSource
from tests.unit.kconnect.herder.herder_fakes import (
    CONFIG,
    NAME,
    T0,
    T1,
    RecordingExecutor,
    listener,
    load_plugins,
    make_herder,
    reaches,
    running_herder,
)


@pytest.fixture(scope="module")
def plugins() -> PluginHost:
    return load_plugins()


@pytest.fixture
async def herder(plugins: PluginHost) -> AsyncIterator[tuple[StandaloneHerder, RecordingExecutor]]:
    async with running_herder(plugins) as started:
        yield started


async def test_create_runs_connector_and_tasks(herder: Any) -> None:
    h, executor = herder
    result = await h.put_connector_config(NAME, CONFIG, allow_replace=False)
    assert result.created and result.info.type is ConnectorType.SOURCE
    assert result.info.tasks == [T0, T1]
    assert result.info.config["name"] == NAME
    await reaches(h, (State.RUNNING, [State.RUNNING, State.RUNNING]))
    tasks = await h.task_configs(NAME)
    assert tasks[0].config["task.class"].endswith("IdleSourceTask")
    assert executor.specs[T0].kind == "source" and executor.specs[T0].task_config["index"] == "0"
    assert await h.connectors() == [NAME]


async def test_duplicate_and_replace(herder: Any) -> None:
    h, _ = herder
    await h.put_connector_config(NAME, CONFIG, allow_replace=False)
    with pytest.raises(AlreadyExistsError, match=f"Connector {NAME} already exists"):
        await h.put_connector_config(NAME, CONFIG, allow_replace=False)
    result = await h.put_connector_config(NAME, {**CONFIG, "tasks.max": "1"}, allow_replace=True)
    assert not result.created and result.info.tasks == [T0]


async def test_invalid_config_and_name_mismatch(herder: Any) -> None:
    h, _ = herder
    with pytest.raises(BadRequestError, match=r"contains the following 2 error\(s\)") as info:
        await h.put_connector_config(NAME, {**CONFIG, "tasks.max": "zero"}, allow_replace=False)
    assert "/connector-plugins/Switchable/config/validate" in str(info.value)
    with pytest.raises(BadRequestError, match=r"doesn't match connector name in the URL \(tiny\)"):
        await h.put_connector_config(NAME, {**CONFIG, "name": "other"}, allow_replace=False)
    with pytest.raises(BadRequestError, match="contains no connector type"):
        await h.put_connector_config(NAME, {"topic": "t"}, allow_replace=False)
    assert await h.connectors() == []


async def test_pause_resume_stop(herder: Any) -> None:
    h, _ = herder
    await h.put_connector_config(NAME, CONFIG, allow_replace=False)
    await h.pause_connector(NAME)
    await h.pause_connector(NAME)
    await reaches(h, (State.PAUSED, [State.PAUSED, State.PAUSED]))
    await h.resume_connector(NAME)
    await reaches(h, (State.RUNNING, [State.RUNNING, State.RUNNING]))
    await h.stop_connector(NAME)
    await reaches(h, (State.STOPPED, []))
    assert (await h.connector_info(NAME)).tasks == []
    await h.pause_connector(NAME)
    await reaches(h, (State.PAUSED, []))
    await h.resume_connector(NAME)
    await reaches(h, (State.RUNNING, [State.RUNNING, State.RUNNING]))
    with pytest.raises(NotFoundError, match="Unknown connector nope"):
        await h.stop_connector("nope")


async def test_task_failure_and_restarts(herder: Any) -> None:
    h, executor = herder
    await h.put_connector_config(NAME, CONFIG, allow_replace=False)
    executor.fail(T1, "Traceback: boom")
    await reaches(h, (State.RUNNING, [State.RUNNING, State.FAILED]))
    assert (await h.task_status(T1)).trace == "Traceback: boom"
    snapshot = await h.restart_connector(RestartRequest(NAME, only_failed=True, include_tasks=True))
    assert snapshot.connector.state is State.RUNNING
    assert [t.state for t in snapshot.tasks] == [State.RUNNING, State.RESTARTING]
    await reaches(h, (State.RUNNING, [State.RUNNING, State.RUNNING]))
    assert executor.calls[-2:] == [("stop", T1), ("start", T1)]
    await h.restart_task(T0)
    assert executor.calls[-2:] == [("stop", T0), ("start", T0)]
    with pytest.raises(NotFoundError, match="Unknown task: tiny-5"):
        await h.restart_task(ConnectorTaskId(NAME, 5))
    with pytest.raises(NotFoundError, match="Unknown connector: nope"):
        await h.restart_connector(RestartRequest("nope"))


async def test_connector_start_failure(herder: Any) -> None:
    h, _ = herder
    SwitchableSource.fail_start = True
    await h.put_connector_config(NAME, CONFIG, allow_replace=False)
    status = await h.connector_status(NAME)
    assert status.connector.state is State.FAILED
    assert status.connector.trace is not None and "cannot start" in status.connector.trace
    SwitchableSource.fail_start = False
    await h.restart_connector(RestartRequest(NAME))
    await reaches(h, (State.RUNNING, [State.RUNNING, State.RUNNING]))


async def test_delete(herder: Any) -> None:
    h, executor = herder
    await h.put_connector_config(NAME, CONFIG, allow_replace=False)
    info = await h.delete_connector(NAME)
    assert info.name == NAME
    assert ("stop", T0) in executor.calls and SwitchableSource.events[-1] == "stop"
    with pytest.raises(NotFoundError, match=f"Connector {NAME} not found"):
        await h.connector_info(NAME)
    with pytest.raises(NotFoundError, match=f"No status found for connector {NAME}"):
        await h.connector_status(NAME)
    with pytest.raises(NotFoundError):
        await h.delete_connector(NAME)


async def test_patch(herder: Any) -> None:
    h, _ = herder
    await h.put_connector_config(NAME, CONFIG, allow_replace=False)
    info = await h.patch_connector_config(NAME, {"tasks.max": "1", "extra": "x"})
    assert info.config["extra"] == "x" and info.tasks == [T0]
    info = await h.patch_connector_config(NAME, {"extra": None})
    assert "extra" not in info.config
    with pytest.raises(NotFoundError):
        await h.patch_connector_config("nope", {})


async def test_source_offsets_only_while_stopped(herder: Any) -> None:
    h, executor = herder
    await h.put_connector_config(NAME, CONFIG, allow_replace=False)
    await listener(executor).on_commit_source_offsets(T0, [({"file": "a"}, {"pos": 3})])
    offsets = await h.connector_offsets(NAME)
    assert [(o.partition, o.offset) for o in offsets.offsets] == [({"file": "a"}, {"pos": 3})]
    change = [ConnectorOffset({"file": "a"}, {"pos": 7})]
    with pytest.raises(BadRequestError, match="must be in the STOPPED state"):
        await h.alter_offsets(NAME, change)
    await h.stop_connector(NAME)
    assert (
        await h.alter_offsets(NAME, change) == "The offsets for this connector have been altered successfully"
    )
    assert await listener(executor).read_source_offsets(T0, [{"file": "a"}]) == [{"pos": 7}]
    assert await h.reset_offsets(NAME) == "The offsets for this connector have been reset successfully"
    assert (await h.connector_offsets(NAME)).offsets == []


async def test_active_topics_and_cluster_id(herder: Any) -> None:
    h, executor = herder
    listener(executor).on_topic_used(T0, "b")
    listener(executor).on_topic_used(T0, "a")
    assert await h.active_topics(NAME) == ["a", "b"]
    await h.reset_active_topics(NAME)
    assert await h.active_topics(NAME) == []
    assert executor.calls[-1] == ("reset_topics", NAME)  # running tasks report their topics again
    assert await h.kafka_cluster_id() == "cluster-1"


async def test_shutdown_stops_tasks_and_connectors(plugins: PluginHost) -> None:
    h, executor = make_herder(plugins)
    await h.start()
    await h.put_connector_config(NAME, CONFIG, allow_replace=False)
    await h.stop()
    assert ("stop", T0) in executor.calls and ("stop", T1) in executor.calls
    assert executor.calls[-1] == ("shutdown", None)
    assert SwitchableSource.events[-1] == "stop"


async def test_state_survives_a_restart_with_the_file_stores(plugins: PluginHost, tmp_path: Path) -> None:
    h, executor = make_herder(plugins, tmp_path)
    await h.start()
    await h.put_connector_config(NAME, CONFIG, allow_replace=False)
    await h.put_connector_config(
        "stopped", {**CONFIG}, allow_replace=False, initial_state=TargetState.STOPPED
    )
    await h.pause_connector(NAME)
    await listener(executor).on_commit_source_offsets(T0, [({"file": "a"}, {"pos": 3})])
    await h.stop()

    again, executor = make_herder(plugins, tmp_path)
    await again.start()
    assert await again.connectors() == ["stopped", NAME]
    await reaches(again, (State.PAUSED, [State.PAUSED, State.PAUSED]))
    assert executor.specs[T0].target_state is TargetState.PAUSED
    assert (await again.connector_status("stopped")).connector.state is State.STOPPED
    assert await listener(executor).read_source_offsets(T0, [{"file": "a"}]) == [{"pos": 3}]
    await again.resume_connector(NAME)
    await reaches(again, (State.RUNNING, [State.RUNNING, State.RUNNING]))
    await again.stop()


async def test_health_follows_the_executor(herder: Any) -> None:
    worker, executor = herder
    executor.up = False
    health = worker.health()
    assert (health.status, health.message) == (
        "starting",
        "Worker is still starting up. Waiting for the recording executor.",
    )
    executor.error = "Spark failed to start: JavaGatewayError: no java"
    health = worker.health()
    assert health.status == "unhealthy"
    assert health.message == (
        "The worker's executor failed to start: Spark failed to start: JavaGatewayError: no java"
    )
    executor.up, executor.error = True, None
    assert worker.health().status == "healthy"


async def test_reads_during_start_up_wait_for_the_stored_connectors(
    plugins: PluginHost, tmp_path: Path
) -> None:
    """A read before the stored connectors are loaded waits for them instead of answering none."""
    async with running_herder(plugins, tmp_path) as (h, _):
        await h.put_connector_config(NAME, CONFIG, allow_replace=False)
    restarted, _ = make_herder(plugins, tmp_path, request_timeout_s=5)
    early = asyncio.ensure_future(restarted.connectors())
    await asyncio.sleep(0.1)
    assert not early.done(), "a read answered before the stored connectors were loaded"
    await restarted.start()
    try:
        assert await asyncio.wait_for(early, 5) == [NAME]
    finally:
        await restarted.stop()


async def test_a_read_that_waits_too_long_for_start_up_times_out(plugins: PluginHost) -> None:
    never_started, _ = make_herder(plugins, request_timeout_s=0.2)
    with pytest.raises(RequestTimeoutError, match="Request timed out"):
        await never_started.connector_status(NAME)


async def test_exactly_once_keys_of_a_source_are_logged_once_per_load_and_change(
    plugins: PluginHost, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="kconnect.config.unused_keys")
    h, _ = make_herder(plugins, tmp_path)
    await h.start()
    eos = {**CONFIG, "exactly.once.support": "required", "offsets.storage.topic": "o"}
    await h.put_connector_config(NAME, eos, allow_replace=False)
    await h.patch_connector_config(NAME, {"offsets.storage.topic": None})
    await h.patch_connector_config(NAME, {"exactly.once.support": "requested"})  # nothing left to log
    await h.patch_connector_config(NAME, {"transaction.boundary": "interval"})
    await h.stop()
    again, _ = make_herder(plugins, tmp_path)
    await again.start()  # the stored config is loaded: logged again
    await again.stop()
    logged = [r.getMessage() for r in caplog.records if r.name == "kconnect.config.unused_keys"]
    assert [line.split(", accepted")[0] for line in logged] == [
        f"Source connector {NAME} sets exactly.once.support=required, offsets.storage.topic=o",
        f"Source connector {NAME} sets exactly.once.support=required",
        f"Source connector {NAME} sets transaction.boundary=interval",
        f"Source connector {NAME} sets transaction.boundary=interval",
    ]
