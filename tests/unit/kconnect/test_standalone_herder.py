"""The standalone herder's front door, with real stores and plugin host and a recording executor."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import pytest
from kconnect import ConfigDef, SourceConnector, SourceTask, hookimpl
from kconnect.errors import AlreadyExistsError, BadRequestError, NotFoundError
from kconnect.executor import TaskListener, TaskSpec
from kconnect.herder.api import ConnectorOffset, RestartRequest
from kconnect.herder.model import ConnectorTaskId, ConnectorType, State, TargetState
from kconnect.herder.standalone import StandaloneHerder
from kconnect.plugin_host import PluginHost
from kconnect.storage import (
    FileConfigBackingStore,
    FileOffsetBackingStore,
    MemoryConfigBackingStore,
    MemoryOffsetBackingStore,
    MemoryStatusBackingStore,
)
from kconnect.worker_config import WorkerConfig


class TinyTask(SourceTask):
    def start(self, config: Mapping[str, str]) -> None:
        pass

    def poll(self) -> None:
        return None

    def stop(self) -> None:
        pass


class TinySource(SourceConnector):
    config_def = ConfigDef().define(
        "topic", type="STRING", importance="HIGH", documentation="Where to write."
    )
    events: ClassVar[list[str]] = []
    fail_start: ClassVar[bool] = False

    def start(self, config: Mapping[str, str]) -> None:
        TinySource.events.append("start")
        if TinySource.fail_start:
            raise RuntimeError("cannot start")
        self.config = dict(config)

    def task_class(self) -> type[TinyTask]:
        return TinyTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{"topic": self.config["topic"], "index": str(i)} for i in range(max_tasks)]

    def stop(self) -> None:
        TinySource.events.append("stop")

    def alter_offsets(self, config: Mapping[str, str], offsets: Mapping[Any, Any]) -> bool:
        return True


class TinyPlugin:
    @hookimpl
    def register_connectors(self, registry: Any) -> None:
        registry.add(TinySource, aliases=["Tiny"])


class RecordingExecutor:
    """Records calls and reports back as a well-behaved executor would."""

    name = "recording"

    def __init__(self) -> None:
        self.listener: TaskListener | None = None
        self.calls: list[tuple[str, Any]] = []
        self.specs: dict[ConnectorTaskId, TaskSpec] = {}
        self.up = True
        self.error: str | None = None

    async def start(self, listener: TaskListener) -> None:
        self.listener = listener

    def ready(self) -> bool:
        return self.up

    def startup_error(self) -> str | None:
        return self.error

    def start_task(self, spec: TaskSpec) -> None:
        assert self.listener is not None
        self.calls.append(("start", spec.id))
        self.specs[spec.id] = spec
        if spec.target_state is TargetState.PAUSED:
            self.listener.on_paused(spec.id, spec.generation)
        else:
            self.listener.on_running(spec.id, spec.generation)

    def set_target_state(self, task: ConnectorTaskId, state: TargetState) -> None:
        assert self.listener is not None
        self.calls.append((state.value, task))
        gen = self.specs[task].generation
        (self.listener.on_paused if state is TargetState.PAUSED else self.listener.on_running)(task, gen)

    def reset_active_topics(self, connector: str) -> None:
        self.calls.append(("reset_topics", connector))

    async def stop_task(self, task: ConnectorTaskId, timeout_s: float) -> None:
        assert self.listener is not None
        self.calls.append(("stop", task))
        self.listener.on_stopped(task, self.specs[task].generation)

    async def stop(self) -> None:
        self.calls.append(("shutdown", None))

    def fail(self, task: ConnectorTaskId, trace: str) -> None:
        assert self.listener is not None
        self.listener.on_failed(task, self.specs[task].generation, trace)


class FakeAdmin:
    async def cluster_id(self) -> str:
        return "cluster-1"

    async def list_offsets(self, group: str) -> dict[tuple[str, int], int]:
        return {}

    async def alter_offsets(self, group: str, offsets: Mapping[tuple[str, int], int]) -> None:
        pass

    async def delete_group(self, group: str) -> None:
        pass


NAME = "tiny"
CONFIG = {"connector.class": "Tiny", "tasks.max": "2", "topic": "t"}
T0, T1 = ConnectorTaskId(NAME, 0), ConnectorTaskId(NAME, 1)


@pytest.fixture(scope="module")
def plugins() -> PluginHost:
    return PluginHost.load(
        extra_plugins=[TinyPlugin()], disabled=["file", "converters", "spark", "basic_auth"]
    )


def make_herder(
    plugins: PluginHost, tmp_path: Path | None = None
) -> tuple[StandaloneHerder, RecordingExecutor]:
    executor = RecordingExecutor()
    worker = WorkerConfig.from_props({"listeners": "http://localhost:8083"})
    herder = StandaloneHerder(
        worker,
        plugins,
        executor,
        FileConfigBackingStore(tmp_path / "configs.json") if tmp_path else MemoryConfigBackingStore(),
        MemoryStatusBackingStore(),
        FileOffsetBackingStore(tmp_path / "offsets.json") if tmp_path else MemoryOffsetBackingStore(),
        FakeAdmin,
    )
    return herder, executor


def listener(executor: RecordingExecutor) -> TaskListener:
    """The TaskListener the herder handed its executor."""
    assert executor.listener is not None
    return executor.listener


async def reaches(
    herder: StandaloneHerder, expected: tuple[State, list[State]], name: str = NAME, timeout: float = 5.0
) -> None:
    """Wait until the connector's status shows `expected` (connector state, task states)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while (got := await states(herder, name)) != expected:
        assert loop.time() < deadline, f"{name} shows {got}, expected {expected}"
        await asyncio.sleep(0.01)


@pytest.fixture
async def herder(plugins: PluginHost) -> Any:
    TinySource.events.clear()
    TinySource.fail_start = False
    herder, executor = make_herder(plugins)
    assert herder.health().status == "starting"
    await herder.start()
    assert herder.health().status == "healthy"
    yield herder, executor
    await herder.stop()


async def states(herder: StandaloneHerder, name: str = NAME) -> tuple[State, list[State]]:
    status = await herder.connector_status(name)
    return status.connector.state, [t.state for t in status.tasks]


async def test_create_runs_connector_and_tasks(herder: Any) -> None:
    h, executor = herder
    result = await h.put_connector_config(NAME, CONFIG, allow_replace=False)
    assert result.created and result.info.type is ConnectorType.SOURCE
    assert result.info.tasks == [T0, T1]
    assert result.info.config["name"] == NAME
    await reaches(h, (State.RUNNING, [State.RUNNING, State.RUNNING]))
    tasks = await h.task_configs(NAME)
    assert tasks[0].config["task.class"].endswith("TinyTask")
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
    assert "/connector-plugins/Tiny/config/validate" in str(info.value)
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
    TinySource.fail_start = True
    await h.put_connector_config(NAME, CONFIG, allow_replace=False)
    status = await h.connector_status(NAME)
    assert status.connector.state is State.FAILED
    assert status.connector.trace is not None and "cannot start" in status.connector.trace
    TinySource.fail_start = False
    await h.restart_connector(RestartRequest(NAME))
    await reaches(h, (State.RUNNING, [State.RUNNING, State.RUNNING]))


async def test_delete(herder: Any) -> None:
    h, executor = herder
    await h.put_connector_config(NAME, CONFIG, allow_replace=False)
    info = await h.delete_connector(NAME)
    assert info.name == NAME
    assert ("stop", T0) in executor.calls and TinySource.events[-1] == "stop"
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
    assert TinySource.events[-1] == "stop"


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
