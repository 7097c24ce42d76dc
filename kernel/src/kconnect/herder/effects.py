"""Carrying out the reducer's effects: one small adapter call per effect, dispatched from a table.

A task's stored configs hold config-provider references; `_start_task` resolves them, so only the
executor's TaskSpec carries the values (docs/secrets.md).

The herder's owner task calls `EffectRunner.run` for each effect in order and awaits it, so a
task's stop has finished before the next start. An effect may answer with events (a task that
could not be handed to the executor failed); the owner folds them in after the remaining effects
of the same event (first in, first out). Connector effects return at once: the connector's code
runs in its own thread and reports later (`kconnect.herder.connectors`). A store write that fails
raises (its StoreError names the file); the owner decides what that means (`kconnect.herder.owner`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from kconnect.config.connector_keys import CONNECTOR_CLASS_CONFIG, CONNECTOR_VERSION_CONFIG
from kconnect.executor import Executor, TaskSpec
from kconnect.herder import events as ev
from kconnect.herder.connectors import TASK_CLASS_CONFIG, ConnectorInstances
from kconnect.herder.loggers import Loggers
from kconnect.model import ConnectorTaskId, StateInfo, TaskStateInfo
from kconnect.plugin_host import PluginHost, PluginType
from kconnect.storage.base import ConfigBackingStore, StatusBackingStore
from kconnect.worker_config import WorkerConfig

log = logging.getLogger(__name__)


class EffectRunner:
    """Maps each effect type to the adapter that carries it out."""

    def __init__(
        self,
        worker_config: WorkerConfig,
        plugins: PluginHost,
        executor: Executor,
        connectors: ConnectorInstances,
        config_store: ConfigBackingStore,
        status_store: StatusBackingStore,
        loggers: Loggers,
        on_status: Callable[[str | ConnectorTaskId, ev.Observed], None] = lambda _instance, _status: None,
    ) -> None:
        """`on_status` is told of each status written, after the write (the restart scheduler)."""
        self._worker = worker_config
        self._plugins = plugins
        self._executor = executor
        self._connectors = connectors
        self._configs = config_store
        self._statuses = status_store
        self._loggers = loggers
        self._on_status = on_status
        self._table: dict[type[Any], Callable[[Any], Awaitable[list[ev.Event]]]] = {
            ev.StartConnector: connectors.start,
            ev.StopConnector: connectors.stop,
            ev.GenerateTaskConfigs: connectors.task_configs,
            ev.StartTask: self._start_task,
            ev.SetTaskTargetState: self._set_task_target,
            ev.StopTask: self._stop_task,
            ev.SetLoggerLevel: self._set_logger_level,
            ev.PersistConfig: self._persist_config,
            ev.PersistTargetState: self._persist_target,
            ev.PersistTaskConfigs: self._persist_task_configs,
            ev.RemoveConfig: self._remove_config,
            ev.PutConnectorStatus: self._put_connector_status,
            ev.PutTaskStatus: self._put_task_status,
            ev.RemoveTaskStatus: self._remove_task_status,
            ev.RemoveStatus: self._remove_status,
        }

    async def run(self, effect: ev.Effect) -> list[ev.Event]:
        """Carry out one effect; return the events it produced."""
        return await self._table[type(effect)](effect)

    # --- executor ------------------------------------------------------------------------------------

    async def _start_task(self, effect: ev.StartTask) -> list[ev.Event]:
        """Resolve the task's configs (config providers; in a thread, as a provider may read files)
        and hand the task to the executor; TaskFailed, its trace scrubbed of secrets, if either fails."""
        transformer = self._connectors.transformer
        try:
            resolve = (effect.id.connector, effect.connector_config, effect.task_config)
            if transformer.enabled:
                connector_config, task_config = await asyncio.to_thread(transformer.resolve_task, *resolve)
            else:
                connector_config, task_config = transformer.resolve_task(*resolve)
            connector_class = connector_config.get(CONNECTOR_CLASS_CONFIG, "")
            version = connector_config.get(CONNECTOR_VERSION_CONFIG)
            plugin = self._plugins.connector(connector_class, version)
            spec = TaskSpec(
                id=effect.id,
                kind="sink" if plugin.type is PluginType.SINK else "source",
                task_class=task_config.get(TASK_CLASS_CONFIG, ""),
                connector_config=connector_config,
                task_config=task_config,
                worker=self._worker.settings,
                target_state=effect.target,
                generation=effect.generation,
                runtime=self._plugins.task_runtime(connector_class, version),
            )
            self._executor.start_task(spec)
        except Exception as exc:
            trace = transformer.scrub(effect.id.connector, f"Failed to start task {effect.id}: {exc!r}") or ""
            log.error("%s", trace)
            return [ev.TaskFailed(effect.id, effect.generation, trace)]
        log.info(
            "Task %s handed to the %s executor (%s)", effect.id, self._executor.name, effect.target.value
        )
        return []

    async def _set_task_target(self, effect: ev.SetTaskTargetState) -> list[ev.Event]:
        self._executor.set_target_state(effect.id, effect.target)
        return []

    async def _stop_task(self, effect: ev.StopTask) -> list[ev.Event]:
        timeout_s = self._worker.task_shutdown_graceful_timeout_ms / 1000
        try:
            await self._executor.stop_task(effect.id, timeout_s)
        except Exception:
            log.error("Failed to stop task %s", effect.id, exc_info=True)
        return []

    # --- the worker's loggers -------------------------------------------------------------------------

    async def _set_logger_level(self, effect: ev.SetLoggerLevel) -> list[ev.Event]:
        self._loggers.set_level_named(effect.namespace, effect.level)
        return []

    # --- config store --------------------------------------------------------------------------------

    async def _persist_config(self, effect: ev.PersistConfig) -> list[ev.Event]:
        await self._configs.put_connector_config(effect.name, effect.config, effect.target)
        return []

    async def _persist_target(self, effect: ev.PersistTargetState) -> list[ev.Event]:
        await self._configs.put_target_state(effect.name, effect.target)
        return []

    async def _persist_task_configs(self, effect: ev.PersistTaskConfigs) -> list[ev.Event]:
        await self._configs.put_task_configs(effect.name, effect.configs)
        return []

    async def _remove_config(self, effect: ev.RemoveConfig) -> list[ev.Event]:
        await self._configs.remove_connector_config(effect.name)
        return []

    # --- status store --------------------------------------------------------------------------------

    async def _put_connector_status(self, effect: ev.PutConnectorStatus) -> list[ev.Event]:
        status = effect.status
        self._statuses.put_connector(effect.name, StateInfo(status.state, status.worker_id, status.trace))
        self._on_status(effect.name, status)
        return []

    async def _put_task_status(self, effect: ev.PutTaskStatus) -> list[ev.Event]:
        status = effect.status
        self._statuses.put_task(
            effect.id, TaskStateInfo(status.state, status.worker_id, status.trace, id=effect.id.task)
        )
        self._on_status(effect.id, status)
        return []

    async def _remove_task_status(self, effect: ev.RemoveTaskStatus) -> list[ev.Event]:
        self._statuses.remove_task(effect.id)
        return []

    async def _remove_status(self, effect: ev.RemoveStatus) -> list[ev.Event]:
        self._statuses.remove(effect.name)
        return []
