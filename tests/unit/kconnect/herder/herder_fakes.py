"""The standalone herder's unit-test parts: a plugin with switchable connectors, a recording executor,
herder helpers.

Real plugin host, real stores (memory or file), the real StandaloneHerder; only the executor and
the Kafka admin are fakes, because no task runs here.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

from kconnect import ConfigDef, hookimpl
from kconnect.config.configdef import ConfigType, Importance
from kconnect.executor import Placement, TaskHost, TaskListener, TaskSpec
from kconnect.herder.owner import REQUEST_TIMEOUT_S
from kconnect.herder.standalone import StandaloneHerder
from kconnect.model import ConnectorTaskId, State, TargetState
from kconnect.plugin_host import PluginHost
from kconnect.storage import (
    FileConfigBackingStore,
    FileOffsetBackingStore,
    MemoryConfigBackingStore,
    MemoryOffsetBackingStore,
    MemoryStatusBackingStore,
)
from kconnect.worker_config import WorkerConfig

from tests.connectors import HangingSource, SwitchableSource


class SwitchablePlugin:
    """Registers `SwitchableSource` as ``Switchable`` and `HangingSource` as ``Hanging``."""

    @hookimpl
    def register_connectors(self, registry: Any) -> None:
        registry.add(SwitchableSource, aliases=["Switchable"])
        registry.add(HangingSource, aliases=["Hanging"])


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

    def connector_config_def(self) -> ConfigDef:
        """One executor key, so validation of executor keys can be tested."""
        return ConfigDef().define(
            "executor.test.flag", type=ConfigType.BOOLEAN, importance=Importance.LOW, default=False
        )

    def placement(self) -> Placement:
        """Every started task on one host."""
        return Placement(self.name, 1, 10, (TaskHost(1, "RUNNING", 10, False, tuple(self.specs)),))

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
    def __init__(self, connector: Mapping[str, str] | None = None) -> None:
        self.connector = connector

    async def cluster_id(self) -> str:
        return "cluster-1"

    async def list_offsets(self, group: str) -> dict[tuple[str, int], int]:
        return {}

    async def alter_offsets(self, group: str, offsets: Mapping[tuple[str, int], int]) -> None:
        pass

    async def delete_group(self, group: str) -> None:
        pass


NAME = "tiny"
CONFIG = {"connector.class": "Switchable", "tasks.max": "2", "topic": "t"}
T0, T1 = ConnectorTaskId(NAME, 0), ConnectorTaskId(NAME, 1)


def load_plugins() -> PluginHost:
    """A plugin host with the switchable connectors and the bundled converters."""
    return PluginHost.load(extra_plugins=[SwitchablePlugin()], disabled=["file", "spark", "basic_auth"])


def make_herder(
    plugins: PluginHost, tmp_path: Path | None = None, request_timeout_s: float = REQUEST_TIMEOUT_S
) -> tuple[StandaloneHerder, RecordingExecutor]:
    """A herder with memory stores, or file stores in `tmp_path/state/`, and a recording executor."""
    executor = RecordingExecutor()
    worker = WorkerConfig.from_props({"listeners": "http://localhost:8083"})
    state = tmp_path / "state" if tmp_path else None
    herder = StandaloneHerder(
        worker,
        plugins,
        executor,
        FileConfigBackingStore(state / "configs.json") if state else MemoryConfigBackingStore(),
        MemoryStatusBackingStore(),
        FileOffsetBackingStore(state / "offsets.json") if state else MemoryOffsetBackingStore(),
        FakeAdmin,
        request_timeout_s,
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


@contextlib.asynccontextmanager
async def running_herder(
    plugins: PluginHost, tmp_path: Path | None = None, request_timeout_s: float = REQUEST_TIMEOUT_S
) -> AsyncIterator[tuple[StandaloneHerder, RecordingExecutor]]:
    """A started herder (connectors reset to well-behaved), stopped at the end."""
    HangingSource.reset()
    herder, executor = make_herder(plugins, tmp_path, request_timeout_s)
    assert herder.health().status == "starting"
    await herder.start()
    assert herder.health().status == "healthy"
    try:
        yield herder, executor
    finally:
        HangingSource.release.set()
        await herder.stop()


async def states(herder: StandaloneHerder, name: str = NAME) -> tuple[State, list[State]]:
    """The connector's state and its tasks' states, as status shows them."""
    status = await herder.connector_status(name)
    return status.connector.state, [t.state for t in status.tasks]
