"""The standalone herder: the `Herder` front door of one worker, and the executor's `TaskListener`.

One asyncio task (the owner) holds the reducer state (`kconnect.herder.machine`). A REST call
checks and validates its input, then puts a command on the owner's queue and awaits its future;
executor callbacks and connector contexts put events on the same queue. The owner folds each
event into the state and carries out the effects in order (`EffectRunner`), folding in the events
they produce before taking the next item. Reads answer from the current immutable state.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import pkgutil
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeVar

from kconnect.errors import AlreadyExistsError, BadRequestError, NotFoundError
from kconnect.executor import Executor, SourceOffset, SourcePartition
from kconnect.herder import events as ev
from kconnect.herder import views
from kconnect.herder.api import (
    ClusterView,
    ConnectorInfo,
    ConnectorOffset,
    ConnectorOffsets,
    ConnectorStateInfo,
    PutResult,
    RestartRequest,
    TaskInfo,
    TaskStateInfo,
    WorkerHealth,
)
from kconnect.herder.connectors import TASK_CLASS_CONFIG, ConnectorInstances
from kconnect.herder.effects import EffectRunner
from kconnect.herder.machine import ConnectorRecord, HerderState, apply, restart_plan
from kconnect.herder.model import ConnectorTaskId, ConnectorType, TargetState
from kconnect.herder.offsets import AiokafkaAdmin, ConnectorOffsetsStore, KafkaAdmin, not_stopped_message
from kconnect.herder.validation import NAME_CONFIG, ConnectorValidator
from kconnect.plugin_host import PluginHost
from kconnect.storage import (
    ConfigBackingStore,
    FileConfigBackingStore,
    FileOffsetBackingStore,
    MemoryConfigBackingStore,
    MemoryOffsetBackingStore,
    MemoryStatusBackingStore,
    OffsetBackingStore,
    StatusBackingStore,
)
from kconnect.worker_config import WorkerConfig

log = logging.getLogger(__name__)

T = TypeVar("T")

HEALTHY_MESSAGE = "Worker has completed startup and is ready to handle requests."
STARTING_MESSAGE = "Worker is still starting up."
UNHEALTHY_MESSAGE = "The worker's executor failed to start"


class StandaloneHerder:
    """The herder of a standalone worker (Kafka's StandaloneHerder), created by the worker at start-up."""

    def __init__(
        self,
        worker_config: WorkerConfig,
        plugins: PluginHost,
        executor: Executor,
        config_store: ConfigBackingStore,
        status_store: StatusBackingStore,
        offset_store: OffsetBackingStore,
        admin: Callable[[], KafkaAdmin],
    ) -> None:
        self.worker_id = worker_config.worker_id
        self._executor = executor
        self._config_store = config_store
        self._status_store = status_store
        self._offset_store = offset_store
        self._admin = admin
        self._validator = ConnectorValidator(plugins)
        self._connectors = ConnectorInstances(plugins, self._post_threadsafe)
        self._effects = EffectRunner(
            worker_config, plugins, executor, self._connectors, config_store, status_store
        )
        self._offsets = ConnectorOffsetsStore(offset_store, admin)
        self._state = HerderState(self.worker_id)
        self._queue: asyncio.Queue[tuple[Callable[[], Awaitable[Any]], asyncio.Future[Any] | None]] = (
            asyncio.Queue()
        )
        self._owner: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._healthy = False
        self._cluster_id: str | None = None

    @classmethod
    def create(cls, worker_config: WorkerConfig, plugins: PluginHost, executor: Executor) -> StandaloneHerder:
        """A herder with stores from the worker config: files when their keys are set, memory otherwise."""
        offsets_file, configs_file = worker_config.offset_storage_file, worker_config.config_storage_file
        return cls(
            worker_config,
            plugins,
            executor,
            FileConfigBackingStore(configs_file) if configs_file else MemoryConfigBackingStore(),
            MemoryStatusBackingStore(),
            FileOffsetBackingStore(offsets_file) if offsets_file else MemoryOffsetBackingStore(),
            lambda: AiokafkaAdmin(worker_config),
        )

    # --- lifecycle ---------------------------------------------------------------------------------------

    async def start(self) -> None:
        """Load the stores, start the owner task and the executor, then start every stored connector."""
        self._loop = asyncio.get_running_loop()
        await self._offset_store.start()
        await self._config_store.start()
        self._owner = asyncio.create_task(self._run(), name="kconnect-herder")
        self._owner.add_done_callback(_fail_loudly)
        await self._executor.start(self)
        snapshot = self._config_store.snapshot()
        for name in snapshot.connectors():
            config = snapshot.connector_configs[name]
            loaded = ev.ConnectorLoaded(
                name, config, snapshot.target_state(name), snapshot.task_configs.get(name, ())
            )
            await self._submit(functools.partial(self._dispatch, loaded))
        self._healthy = True
        log.info("Herder started with %d connectors", len(snapshot.connectors()))

    async def stop(self) -> None:
        """Stop every task gracefully (offsets committed) and every connector; configs stay stored."""
        if self._owner is None:
            return
        await self._submit(lambda: self._dispatch(ev.ShutdownRequested()))
        await self._connectors.stop_all()
        await self._executor.stop()
        self._owner.remove_done_callback(_fail_loudly)
        self._owner.cancel()
        self._owner = None
        await self._config_store.stop()
        await self._offset_store.stop()
        log.info("Herder stopped")

    def health(self) -> WorkerHealth:
        """Starting until the stores are loaded and the executor can run tasks, then healthy.

        Unhealthy when the executor could not start (e.g. Spark failed), with its reason.
        """
        error = self._executor.startup_error()
        if error is not None:
            return WorkerHealth("unhealthy", f"{UNHEALTHY_MESSAGE}: {error}")
        if self._healthy and self._executor.ready():
            return WorkerHealth("healthy", HEALTHY_MESSAGE)
        if self._healthy:
            return WorkerHealth(
                "starting", f"{STARTING_MESSAGE} Waiting for the {self._executor.name} executor."
            )
        return WorkerHealth("starting", STARTING_MESSAGE)

    async def kafka_cluster_id(self) -> str:
        """The broker's cluster id (asked once, then cached)."""
        if self._cluster_id is None:
            self._cluster_id = await self._admin().cluster_id()
        return self._cluster_id

    # --- the owner task ----------------------------------------------------------------------------------

    async def _run(self) -> None:
        while True:
            work, future = await self._queue.get()
            try:
                result = await work()
            except Exception as exc:
                if future is None:
                    log.error("Herder event failed", exc_info=True)
                elif not future.done():
                    future.set_exception(exc)
                continue
            if future is not None and not future.done():
                future.set_result(result)

    async def _submit(self, work: Callable[[], Awaitable[T]]) -> T:
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((work, future))
        return await future

    def _post(self, event: ev.Event) -> None:
        self._queue.put_nowait((lambda: self._dispatch(event), None))

    def _post_threadsafe(self, event: ev.Event) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._post, event)

    async def _dispatch(self, event: ev.Event) -> None:
        """Fold `event` in and carry out its effects, depth first (owner task only)."""
        self._state, effects = apply(self._state, event)
        for effect in effects:
            for follow_up in await self._effects.run(effect):
                await self._dispatch(follow_up)

    # --- reads -------------------------------------------------------------------------------------------

    def _record(self, name: str, message: str | None = None) -> ConnectorRecord:
        record = self._state.connectors.get(name)
        if record is None:
            raise NotFoundError(message or f"Connector {name} not found")
        return record

    def _type(self, record: ConnectorRecord) -> ConnectorType:
        return self._validator.connector_type(record.config)

    def _versions(self, record: ConnectorRecord) -> views.Versions:
        """The connector plugin's version and each task class's (Kafka 4.1's status ``version``)."""
        try:
            connector = _defined(self._validator.plugin(record.config).version)
        except Exception:
            return views.NO_VERSIONS
        tasks = [_task_version(t.config.get(TASK_CLASS_CONFIG, "")) or connector for t in record.tasks]
        return views.Versions(connector, tasks)

    async def connectors(self) -> list[str]:
        """Names of all connectors, sorted."""
        return sorted(self._state.connectors)

    async def connector_info(self, name: str) -> ConnectorInfo:
        """Config, task ids and type of one connector."""
        record = self._record(name)
        return views.connector_info(record, self._type(record))

    async def connector_config(self, name: str) -> dict[str, str]:
        """The connector's config as given."""
        return dict(self._record(name).config)

    async def connector_status(self, name: str) -> ConnectorStateInfo:
        """Observed state of the connector and its tasks."""
        record = self._record(name, f"No status found for connector {name}")
        return views.connector_status(record, self._type(record), versions=self._versions(record))

    async def task_configs(self, name: str) -> list[TaskInfo]:
        """Ids and configs of the connector's tasks."""
        return views.task_infos(self._record(name))

    async def task_status(self, task: ConnectorTaskId) -> TaskStateInfo:
        """Observed state of one task."""
        record = self._state.connectors.get(task.connector)
        if record is None or not 0 <= task.task < len(record.tasks):
            raise NotFoundError(f"No status found for task {task}")
        return views.task_status(record, task.task, self._versions(record))

    def cluster_view(self) -> ClusterView:
        """A read-only snapshot for REST extensions."""
        connectors = {name: dict(r.config) for name, r in self._state.connectors.items()}
        return ClusterView(connectors, self._cluster_id)

    # --- config writes -----------------------------------------------------------------------------------

    async def put_connector_config(
        self,
        name: str,
        config: Mapping[str, str],
        *,
        allow_replace: bool,
        initial_state: TargetState | None = None,
    ) -> PutResult:
        """Validate, then create or replace the connector (validation errors come before existence)."""
        config = dict(config)
        if NAME_CONFIG in config and config[NAME_CONFIG] != name:
            raise BadRequestError(
                f"Connector name configuration ({config[NAME_CONFIG]}) doesn't match connector name "
                f"in the URL ({name})"
            )
        config[NAME_CONFIG] = name
        await self._validator.check(config)

        async def put() -> PutResult:
            created = name not in self._state.connectors
            if not created and not allow_replace:
                raise AlreadyExistsError(f"Connector {name} already exists")
            await self._dispatch(ev.ConnectorConfigured(name, config, initial_state if created else None))
            record = self._record(name)
            return PutResult(created, views.connector_info(record, self._type(record)))

        return await self._submit(put)

    async def patch_connector_config(self, name: str, patch: Mapping[str, str | None]) -> ConnectorInfo:
        """Merge `patch` (None removes a key) into the config, validate the result and apply it."""
        merged = dict(self._record(name).config)
        for key, value in patch.items():
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = value
        await self._validator.check(merged)

        async def put() -> ConnectorInfo:
            self._record(name)
            await self._dispatch(ev.ConnectorConfigured(name, merged))
            record = self._record(name)
            return views.connector_info(record, self._type(record))

        return await self._submit(put)

    async def delete_connector(self, name: str) -> ConnectorInfo:
        """Stop the connector and its tasks and forget it; NotFoundError if unknown."""

        async def delete() -> ConnectorInfo:
            record = self._record(name)
            info = views.connector_info(record, self._type(record))
            await self._dispatch(ev.ConnectorRemoved(name))
            return info

        return await self._submit(delete)

    # --- lifecycle requests ------------------------------------------------------------------------------

    async def _set_target(self, name: str, target: TargetState) -> None:
        async def set_target() -> None:
            self._record(name, f"Unknown connector {name}")
            await self._dispatch(ev.TargetStateSet(name, target))

        await self._submit(set_target)

    async def pause_connector(self, name: str) -> None:
        """Target state PAUSED: the connector and its tasks pause (idempotent)."""
        await self._set_target(name, TargetState.PAUSED)

    async def resume_connector(self, name: str) -> None:
        """Target state STARTED: the connector starts and its tasks resume or are regenerated (idempotent)."""
        await self._set_target(name, TargetState.STARTED)

    async def stop_connector(self, name: str) -> None:
        """Target state STOPPED: tasks stopped and their configs removed, then the connector (idempotent)."""
        await self._set_target(name, TargetState.STOPPED)

    async def restart_connector(self, request: RestartRequest) -> ConnectorStateInfo:
        """Restart per KIP-745; returns the status before the restart with RESTARTING where it applies."""

        async def restart() -> ConnectorStateInfo:
            record = self._record(request.connector, f"Unknown connector: {request.connector}")
            plan = restart_plan(record, request.include_tasks, request.only_failed)
            snapshot = views.connector_status(record, self._type(record), plan, self._versions(record))
            await self._dispatch(
                ev.RestartRequested(request.connector, request.include_tasks, request.only_failed)
            )
            return snapshot

        return await self._submit(restart)

    async def restart_task(self, task: ConnectorTaskId) -> None:
        """Stop and start one task."""

        async def restart() -> None:
            record = self._record(task.connector, f"Unknown connector: {task.connector}")
            if not 0 <= task.task < len(record.tasks):
                raise NotFoundError(f"Unknown task: {task}")
            await self._dispatch(ev.TaskRestartRequested(task))

        await self._submit(restart)

    # --- offsets (KIP-875) -------------------------------------------------------------------------------

    def _is_sink(self, record: ConnectorRecord) -> bool:
        return self._type(record) is ConnectorType.SINK

    async def connector_offsets(self, name: str) -> ConnectorOffsets:
        """Committed offsets, in any state."""
        record = self._record(name)
        return await self._offsets.read(name, self._is_sink(record))

    async def alter_offsets(self, name: str, offsets: Sequence[ConnectorOffset]) -> str:
        """Alter a STOPPED connector's offsets after its `alter_offsets` accepts them."""

        async def alter() -> str:
            record = self._stopped(name)
            plugin = self._validator.plugin(record.config)
            return await self._offsets.alter(name, record.config, plugin.cls, self._is_sink(record), offsets)

        return await self._submit(alter)

    async def reset_offsets(self, name: str) -> str:
        """Remove every offset of a STOPPED connector after its `alter_offsets` accepts it."""

        async def reset() -> str:
            record = self._stopped(name)
            plugin = self._validator.plugin(record.config)
            return await self._offsets.reset_all(name, record.config, plugin.cls, self._is_sink(record))

        return await self._submit(reset)

    def _stopped(self, name: str) -> ConnectorRecord:
        record = self._record(name)
        if record.target is not TargetState.STOPPED or record.tasks:
            raise BadRequestError(not_stopped_message(name))
        return record

    # --- topics (KIP-558) --------------------------------------------------------------------------------

    async def active_topics(self, name: str) -> list[str]:
        """Topics the connector used since the last reset (no existence check, as in Kafka)."""
        return self._status_store.topics(name)

    async def reset_active_topics(self, name: str) -> None:
        """Forget the connector's active topics; its running tasks report them again on their next use."""
        self._status_store.reset_topics(name)
        self._executor.reset_active_topics(name)

    # --- plugins and validation --------------------------------------------------------------------------

    async def validate_connector_config(self, config: Mapping[str, str]) -> Any:
        """Kafka's ConfigInfos for this config."""
        return await self._validator.validate(config)

    def plugins(self, *, connectors_only: bool) -> list[Any]:
        """Installed plugins, sinks then sources then the other kinds."""
        return list(self._validator.plugins(connectors_only))

    def plugin_config(self, plugin: str) -> list[Any]:
        """The plugin's config keys, then the framework's for connectors."""
        return list(self._validator.plugin_config(plugin))

    # --- TaskListener: the executor's reports ------------------------------------------------------------

    def on_running(self, task: ConnectorTaskId, generation: int) -> None:
        """The task started or resumed."""
        self._post(ev.TaskRunning(task, generation))

    def on_paused(self, task: ConnectorTaskId, generation: int) -> None:
        """The task paused."""
        self._post(ev.TaskPaused(task, generation))

    def on_failed(self, task: ConnectorTaskId, generation: int, trace: str) -> None:
        """The task failed."""
        self._post(ev.TaskFailed(task, generation, trace))

    def on_stopped(self, task: ConnectorTaskId, generation: int) -> None:
        """The task stopped."""
        self._post(ev.TaskStopped(task, generation))

    async def on_commit_source_offsets(
        self, task: ConnectorTaskId, offsets: Sequence[tuple[SourcePartition, SourceOffset | None]]
    ) -> None:
        """Store a task's source offsets durably (one atomic batch)."""
        await self._offset_store.set(task.connector, offsets)

    async def read_source_offsets(
        self, task: ConnectorTaskId, partitions: Sequence[SourcePartition]
    ) -> list[SourceOffset | None]:
        """The committed offsets of these partitions of the task's connector."""
        return await self._offset_store.get(task.connector, partitions)

    def on_topic_used(self, task: ConnectorTaskId, topic: str) -> None:
        """Record an active topic (KIP-558)."""
        self._status_store.put_topic(task.connector, topic)


def _defined(version: str | None) -> str | None:
    return None if version in (None, "", "undefined") else version


@functools.lru_cache(maxsize=256)
def _task_version(task_class: str) -> str | None:
    """The ``version()`` of the task class named by a task config's ``task.class``, None if unknown."""
    try:
        version = pkgutil.resolve_name(task_class).version
        return _defined(str(version() if callable(version) else version))
    except Exception:
        return None


def _fail_loudly(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.critical("The herder's owner task died", exc_info=task.exception())
