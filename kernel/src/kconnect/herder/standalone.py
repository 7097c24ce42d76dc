"""The standalone herder: the `Herder` front door of one worker.

One asyncio task (`kconnect.herder.owner.Owner`) holds the reducer state
(`kconnect.herder.machine`). A REST call checks and validates its input, then puts a command on
the owner's queue and awaits the answer, at most `REQUEST_TIMEOUT_S`; the executor's reports
(`kconnect.herder.listener`) and connector contexts put events on the same queue. The owner folds
each event into the state and carries out the effects first-in-first-out (`EffectRunner`).
Connector code runs in its own threads (`kconnect.herder.connectors`), never on the owner. Reads
answer from the current immutable state, whatever the owner is doing.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kconnect.errors import AlreadyExistsError, BadRequestError, NotFoundError
from kconnect.executor import Executor
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
from kconnect.herder.connectors import ConnectorInstances
from kconnect.herder.effects import EffectRunner
from kconnect.herder.health import worker_health
from kconnect.herder.listener import HerderTaskListener
from kconnect.herder.model import ConnectorTaskId, ConnectorType, TargetState
from kconnect.herder.offsets import AiokafkaAdmin, ConnectorOffsetsStore, KafkaAdmin, not_stopped_message
from kconnect.herder.owner import REQUEST_TIMEOUT_S, Owner
from kconnect.herder.state import ConnectorRecord, HerderState, restart_plan
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
        request_timeout_s: float = REQUEST_TIMEOUT_S,
    ) -> None:
        self.worker_id = worker_config.worker_id
        self._executor = executor
        self._config_store = config_store
        self._status_store = status_store
        self._offset_store = offset_store
        self._admin = admin
        self._validator = ConnectorValidator(plugins, worker_config.props)
        self._connectors = ConnectorInstances(
            plugins,
            self._post_threadsafe,
            shutdown_timeout_s=worker_config.task_shutdown_graceful_timeout_ms / 1000,
        )
        effects = EffectRunner(worker_config, plugins, executor, self._connectors, config_store, status_store)
        self._owner = Owner(HerderState(self.worker_id), effects.run, request_timeout_s)
        self._listener = HerderTaskListener(self._owner.post, offset_store, status_store)
        self._offsets = ConnectorOffsetsStore(offset_store, admin)
        self._started = False
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
        await self._offset_store.start()
        await self._config_store.start()
        self._owner.start()
        self._started = True
        await self._executor.start(self._listener)
        snapshot = self._config_store.snapshot()
        for name in snapshot.connectors():
            config = snapshot.connector_configs[name]
            loaded = ev.ConnectorLoaded(
                name, config, snapshot.target_state(name), snapshot.task_configs.get(name, ())
            )
            await self._owner.call(functools.partial(self._owner.command, loaded))
        self._healthy = True
        log.info("Herder started with %d connectors", len(snapshot.connectors()))

    async def stop(self) -> None:
        """Stop every task gracefully (offsets committed) and every connector; configs stay stored."""
        if not self._started:
            return
        self._started = False
        await self._owner.call(lambda: self._owner.command(ev.ShutdownRequested()))
        await self._connectors.stop_all()
        await self._executor.stop()
        self._owner.stop()
        await self._config_store.stop()
        await self._offset_store.stop()
        log.info("Herder stopped")

    def health(self) -> WorkerHealth:
        """Starting until the stores are loaded and the executor can run tasks, then healthy;
        unhealthy when the executor could not start, with its reason."""
        return worker_health(self._executor, self._healthy)

    async def kafka_cluster_id(self) -> str:
        """The broker's cluster id (asked once, then cached)."""
        if self._cluster_id is None:
            self._cluster_id = await self._admin().cluster_id()
        return self._cluster_id

    # --- the owner's entry points -----------------------------------------------------------------------

    @property
    def _state(self) -> HerderState:
        return self._owner.state

    def _post_threadsafe(self, event: ev.Event) -> None:
        self._owner.post_threadsafe(event)

    async def _write(self, event: ev.Event, check: Callable[[], object] = lambda: None) -> None:
        """Run `check` then fold `event` in on the owner task; answer within the request timeout."""

        async def write() -> None:
            check()
            await self._owner.command(event)

        await self._owner.call(write, self._owner.deadline())

    # --- reads -------------------------------------------------------------------------------------------

    def _record(self, name: str, message: str | None = None) -> ConnectorRecord:
        record = self._state.connectors.get(name)
        if record is None:
            raise NotFoundError(message or f"Connector {name} not found")
        return record

    def _type(self, record: ConnectorRecord) -> ConnectorType:
        return self._validator.connector_type(record.config)

    def _versions(self, record: ConnectorRecord) -> views.Versions:
        return views.versions(record, self._validator.plugin, self._validator.task_version)

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
        """Validate, then create or replace the connector (validation errors come before existence).

        Answers once the connector has started and produced its task configs (or failed), with its
        tasks, as Kafka's standalone herder does; RequestTimeoutError after `REQUEST_TIMEOUT_S`
        (validation included: a connector's `validate` is user code too).
        A config-store write that fails raises its StoreError and changes nothing.
        """
        config = dict(config)
        if NAME_CONFIG in config and config[NAME_CONFIG] != name:
            raise BadRequestError(
                f"Connector name configuration ({config[NAME_CONFIG]}) doesn't match connector name "
                f"in the URL ({name})"
            )
        config[NAME_CONFIG] = name
        deadline = self._owner.deadline()
        await self._owner.wait(asyncio.ensure_future(self._validator.check(config)), deadline)

        async def put() -> tuple[bool, asyncio.Future[None] | None]:
            created = name not in self._state.connectors
            if not created and not allow_replace:
                raise AlreadyExistsError(f"Connector {name} already exists")
            initial = initial_state if created else None
            await self._owner.command(ev.ConnectorConfigured(name, config, initial))
            return created, self._owner.settled(name)

        created, settled = await self._owner.call(put, deadline)
        return PutResult(created, await self._info_when_settled(name, settled, deadline))

    async def patch_connector_config(self, name: str, patch: Mapping[str, str | None]) -> ConnectorInfo:
        """Merge `patch` (None removes a key) into the config, validate the result and apply it.

        Validation runs off the owner task, so the merge is checked again on it: if another write
        changed the config meanwhile, the patch is merged into that config and validated again, so
        no concurrent update is lost.
        """
        deadline = self._owner.deadline()
        while True:
            base = dict(self._record(name).config)
            merged = _merged(base, patch)
            await self._owner.wait(asyncio.ensure_future(self._validator.check(merged)), deadline)

            async def put(
                base: dict[str, str] = base, merged: dict[str, str] = merged
            ) -> tuple[bool, asyncio.Future[None] | None]:
                if dict(self._record(name).config) != base:
                    return False, None
                await self._owner.command(ev.ConnectorConfigured(name, merged))
                return True, self._owner.settled(name)

            applied, settled = await self._owner.call(put, deadline)
            if applied:
                return await self._info_when_settled(name, settled, deadline)
            log.info("Connector %s changed while a PATCH was validated; merging again", name)

    async def _info_when_settled(
        self, name: str, settled: asyncio.Future[None] | None, deadline: float
    ) -> ConnectorInfo:
        if settled is not None:
            await self._owner.wait(settled, deadline)
        record = self._record(name)
        return views.connector_info(record, self._type(record))

    async def delete_connector(self, name: str) -> ConnectorInfo:
        """Forget the connector (store first), then stop it and its tasks; NotFoundError if unknown."""

        async def delete() -> ConnectorInfo:
            record = self._record(name)
            info = views.connector_info(record, self._type(record))
            await self._owner.command(ev.ConnectorRemoved(name))
            return info

        return await self._owner.call(delete, self._owner.deadline())

    # --- lifecycle requests ------------------------------------------------------------------------------

    async def _set_target(self, name: str, target: TargetState) -> None:
        await self._write(
            ev.TargetStateSet(name, target), lambda: self._record(name, f"Unknown connector {name}")
        )

    async def pause_connector(self, name: str) -> None:
        """Target state PAUSED: the connector and its tasks pause (idempotent)."""
        await self._set_target(name, TargetState.PAUSED)

    async def resume_connector(self, name: str) -> None:
        """Target state STARTED: the connector starts and its tasks resume or are regenerated (idempotent)."""
        await self._set_target(name, TargetState.STARTED)

    async def stop_connector(self, name: str) -> None:
        """Target state STOPPED: task configs removed and target written, then tasks and connector stopped."""
        await self._set_target(name, TargetState.STOPPED)

    async def restart_connector(self, request: RestartRequest) -> ConnectorStateInfo:
        """Restart per KIP-745; returns the status before the restart with RESTARTING where it applies."""

        async def restart() -> ConnectorStateInfo:
            record = self._record(request.connector, f"Unknown connector: {request.connector}")
            plan = restart_plan(record, request.include_tasks, request.only_failed)
            snapshot = views.connector_status(record, self._type(record), plan, self._versions(record))
            await self._owner.command(
                ev.RestartRequested(request.connector, request.include_tasks, request.only_failed)
            )
            return snapshot

        return await self._owner.call(restart, self._owner.deadline())

    async def restart_task(self, task: ConnectorTaskId) -> None:
        """Stop and start one task."""

        def check() -> None:
            record = self._record(task.connector, f"Unknown connector: {task.connector}")
            if not 0 <= task.task < len(record.tasks):
                raise NotFoundError(f"Unknown task: {task}")

        await self._write(ev.TaskRestartRequested(task), check)

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

        return await self._owner.call(alter, self._owner.deadline())

    async def reset_offsets(self, name: str) -> str:
        """Remove every offset of a STOPPED connector after its `alter_offsets` accepts it."""

        async def reset() -> str:
            record = self._stopped(name)
            plugin = self._validator.plugin(record.config)
            return await self._offsets.reset_all(name, record.config, plugin.cls, self._is_sink(record))

        return await self._owner.call(reset, self._owner.deadline())

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


def _merged(config: Mapping[str, str], patch: Mapping[str, str | None]) -> dict[str, str]:
    """`config` with `patch` applied: a None value removes the key."""
    merged = dict(config)
    for key, value in patch.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = value
    return merged
