"""The standalone herder: the `Herder` front door of one worker.

One asyncio task (`kconnect.herder.owner.Owner`) holds the reducer state
(`kconnect.herder.machine`). A REST call checks and validates its input, then puts a command on
the owner's queue and awaits the answer, at most `REQUEST_TIMEOUT_S`; the executor's reports
(`kconnect.herder.listener`) and connector contexts put events on the same queue. The owner folds
each event into the state and carries out the effects first-in-first-out (`EffectRunner`).
Connector code runs in its own threads (`kconnect.herder.connectors`), never on the owner. Reads
answer from the current immutable state, whatever the owner is doing (`kconnect.herder.front_door`).
A source connector's exactly-once keys, which standalone mode accepts without acting on them, are
logged here, at the edge, each time a config is loaded or applied (`_warn_exactly_once_keys`).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Mapping, Sequence

from kconnect.config.connector_keys import with_connector_name
from kconnect.config.unused_keys import log_standalone_exactly_once_keys
from kconnect.errors import AlreadyExistsError, NotFoundError
from kconnect.executor import Executor
from kconnect.herder import events as ev
from kconnect.herder import views
from kconnect.herder.api import PutResult
from kconnect.herder.config_events import loaded_event
from kconnect.herder.front_door import HerderFrontDoor, merged
from kconnect.herder.offsets import AiokafkaAdmin
from kconnect.herder.state import restart_plan
from kconnect.model import (
    ConnectorInfo,
    ConnectorOffset,
    ConnectorStateInfo,
    ConnectorTaskId,
    ConnectorType,
    RestartRequest,
    TargetState,
    TaskStateInfo,
)
from kconnect.plugin_host import PluginHost
from kconnect.storage import (
    FileConfigBackingStore,
    FileOffsetBackingStore,
    MemoryConfigBackingStore,
    MemoryOffsetBackingStore,
    MemoryStatusBackingStore,
)
from kconnect.worker_config import WorkerConfig

log = logging.getLogger(__name__)


class StandaloneHerder(HerderFrontDoor):
    """The herder of a standalone worker (Kafka's StandaloneHerder), created by the worker at start-up."""

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
            lambda connector: AiokafkaAdmin(worker_config, connector),
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
        loaded = loaded_event(snapshot)
        await self._owner.call(functools.partial(self._owner.command, loaded))
        for load in loaded.connectors:
            await self._warn_exactly_once_keys(load.name, load.config)
        self._loaded.set()
        self._healthy = True
        log.info("Herder started with %d connectors", len(snapshot.connectors()))

    async def stop(self) -> None:
        """Stop every task gracefully (offsets committed) and every connector; configs stay stored."""
        if not self._started:
            return
        self._started = False
        self.restarts.close()
        await self._owner.call(lambda: self._owner.command(ev.ShutdownRequested()))
        await self._connectors.stop_all()
        await self._executor.stop()
        self._owner.stop()
        await self._config_store.stop()
        await self._offset_store.stop()
        log.info("Herder stopped")

    # --- status reads: this worker runs everything, so the reducer's state is the truth ---------------

    async def connector_status(self, name: str) -> ConnectorStateInfo:
        """Observed state of the connector and its tasks."""
        await self._until_loaded()
        record = self._record(name, f"No status found for connector {name}")
        return views.connector_status(record, self._type(record), versions=self._versions(record))

    async def task_status(self, task: ConnectorTaskId) -> TaskStateInfo:
        """Observed state of one task."""
        await self._until_loaded()
        record = self._state.connectors.get(task.connector)
        if record is None or not 0 <= task.task < len(record.tasks):
            raise NotFoundError(f"No status found for task {task}")
        return views.task_status(record, task.task, self._versions(record))

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
        config = with_connector_name(config, name)
        deadline = self._owner.deadline()
        await self._validate(config, deadline)

        async def put() -> tuple[bool, asyncio.Future[None] | None]:
            created = name not in self._state.connectors
            if not created and not allow_replace:
                raise AlreadyExistsError(f"Connector {name} already exists")
            initial = initial_state if created else None
            await self._owner.command(ev.ConnectorConfigured(name, config, initial))
            return created, self._owner.settled(name)

        created, settled = await self._owner.call(put, deadline)
        await self._warn_exactly_once_keys(name, config)
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
            patched = merged(base, patch)
            await self._validate(patched, deadline)

            async def put(
                base: dict[str, str] = base, patched: dict[str, str] = patched
            ) -> tuple[bool, asyncio.Future[None] | None]:
                if dict(self._record(name).config) != base:
                    return False, None
                await self._owner.command(ev.ConnectorConfigured(name, patched))
                return True, self._owner.settled(name)

            applied, settled = await self._owner.call(put, deadline)
            if applied:
                await self._warn_exactly_once_keys(name, patched)
                return await self._info_when_settled(name, settled, deadline)
            log.info("Connector %s changed while a PATCH was validated; merging again", name)

    async def _warn_exactly_once_keys(self, name: str, config: Mapping[str, str]) -> None:
        """Log the keys of source connector `name` that standalone mode accepts and does not act on
        (`kconnect.config.unused_keys.standalone_exactly_once_keys`); called once per config loaded or
        applied. Values are read as the tasks see them, config provider references resolved."""
        if self._validator.connector_type(config) is not ConnectorType.SOURCE:
            return
        seen = config
        if self._transformer.enabled:
            try:
                seen = await asyncio.to_thread(self._resolved, config)
            except Exception:  # the connector reports a provider that fails; the line still names the keys
                log.debug("Could not resolve the config of connector %s", name, exc_info=True)
        log_standalone_exactly_once_keys(name, seen)

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
            await self._owner.command(request)
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

    async def set_cluster_logger_level(self, namespace: str, level: str) -> None:
        """scope=cluster on a standalone worker: this worker is the whole cluster (as Kafka's)."""
        self.loggers.set_level_named(namespace, level)
