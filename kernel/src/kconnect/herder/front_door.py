"""What every herder's front door shares: the owner task, its adapters, and the reads REST makes.

`HerderFrontDoor` is the common part of `StandaloneHerder` and `DistributedHerder`: it builds the
owner task (`kconnect.herder.owner`) over the reducer, the connector instances and the effect
runner, and answers the reads that are the same in both modes (configs and task configs from the
reducer's state, plugins and validation, active topics, committed offsets). Each mode adds its
own lifecycle, its writes and its status reads: a standalone worker knows every status itself, a
distributed one reads the statuses other workers wrote from the status topic.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from typing import Any

from kconnect.cluster import ClusterView
from kconnect.config.auto_restart_keys import AutoRestartPolicy
from kconnect.config.extension_keys import task_stall_restart
from kconnect.config.worker_keys import ExactlyOnceSourceSupport
from kconnect.errors import BadRequestError, NotFoundError, RequestTimeoutError
from kconnect.executor import Executor, Placement
from kconnect.herder import events as ev
from kconnect.herder import views
from kconnect.herder.api import WorkerHealth
from kconnect.herder.connectors import ConnectorInstances, hiding_secrets
from kconnect.herder.effects import EffectRunner
from kconnect.herder.health import worker_health
from kconnect.herder.listener import HerderTaskListener
from kconnect.herder.loggers import Loggers
from kconnect.herder.offsets import (
    ConnectorOffsetsStore,
    KafkaAdmin,
    TransactionalOffsetWriter,
    not_stopped_message,
)
from kconnect.herder.owner import REQUEST_TIMEOUT_S, TIMEOUT_MESSAGE, Owner
from kconnect.herder.restart_scheduler import RestartScheduler
from kconnect.herder.state import ConnectorRecord, HerderState
from kconnect.herder.validation import ConnectorValidator
from kconnect.kafka.clients import sink_group_id
from kconnect.model import (
    AutoRestarts,
    ConnectorAutoRestarts,
    ConnectorInfo,
    ConnectorOffsets,
    ConnectorTaskId,
    ConnectorType,
    TargetState,
    TaskInfo,
)
from kconnect.plugin_host import PluginHost
from kconnect.runtime.exactly_once import task_transactional_id
from kconnect.storage import ConfigBackingStore, OffsetBackingStore, StatusBackingStore
from kconnect.worker_config import WorkerConfig
from kconnect.worker_providers import worker_config_transformer

log = logging.getLogger(__name__)


class HerderFrontDoor:
    """The owner task and the mode-independent reads; subclassed once per mode, never deeper."""

    def __init__(
        self,
        worker_config: WorkerConfig,
        plugins: PluginHost,
        executor: Executor,
        config_store: ConfigBackingStore,
        status_store: StatusBackingStore,
        offset_store: OffsetBackingStore,
        admin: Callable[[Mapping[str, str]], KafkaAdmin],
        request_timeout_s: float = REQUEST_TIMEOUT_S,
        initial: HerderState | None = None,
        exactly_once: ExactlyOnceSourceSupport | None = None,
        offset_transactions: TransactionalOffsetWriter | None = None,
    ) -> None:
        """`exactly_once`: a distributed worker's ``exactly.once.source.support``, which validation
        checks source configs against; None in standalone mode, which does not check them (Kafka).
        `offset_transactions`: under exactly-once support, writes altered or reset source offsets in
        a transaction (KIP-875 as Kafka does it)."""
        self.worker_id = worker_config.worker_id
        self._worker_config = worker_config
        self._executor = executor
        self._config_store = config_store
        self._status_store = status_store
        self._offset_store = offset_store
        self._admin = admin
        # The worker's config providers (docs/secrets.md): a value that expires restarts its connector.
        self._transformer = worker_config_transformer(
            worker_config.props, plugins, lambda name: self._connectors.request_restart(name)
        )
        self._validator = ConnectorValidator.for_worker(
            worker_config, plugins, executor, self._transformer, exactly_once
        )
        self._connectors = ConnectorInstances(
            plugins,
            self._post_threadsafe,
            shutdown_timeout_s=worker_config.task_shutdown_graceful_timeout_ms / 1000,
            transformer=self._transformer,
            offsets=offset_store,
        )
        self.loggers = Loggers()
        """This worker's logger levels (`/admin/loggers`; cluster-wide levels read in distributed mode)."""
        self.restarts = RestartScheduler(
            status_store, self._config_of, lambda event: self._owner.post(event), runs_here=self._runs_here
        )
        """Automatic restarts (docs/reliability.md); `schedule_restart` asks for one for any reason."""
        effects = EffectRunner(
            worker_config,
            plugins,
            executor,
            self._connectors,
            config_store,
            status_store,
            self.loggers,
            on_status=lambda instance, status: self.restarts.on_status(instance, status.state, status.trace),
        )
        self._owner = Owner(initial or HerderState(self.worker_id), effects.run, request_timeout_s)
        self._listener = HerderTaskListener(
            hiding_secrets(self._owner.post, self._transformer),
            offset_store,
            status_store,
            on_stall=self._restart_stalled,
        )
        group_id = worker_config.props.get("group.id", "")
        self._offsets = ConnectorOffsetsStore(
            offset_store,
            lambda config: admin(self._resolved(config)),
            self._sink_group,
            offset_transactions,
            # Kafka writes them with task 0's producer: its start fences that task's zombie too.
            lambda connector: task_transactional_id(group_id, connector, 0),
        )
        self._started = False
        self._loaded = asyncio.Event()
        self._healthy = False
        self._cluster_id: str | None = None

    def health(self) -> WorkerHealth:
        """Starting until the stores are loaded and the executor can run tasks, then healthy;
        unhealthy when the executor could not start, with its reason."""
        return worker_health(self._executor, self._healthy)

    def placement(self) -> Placement:
        """This worker's executor's report of where its tasks run."""
        return self._executor.placement()

    async def kafka_cluster_id(self) -> str:
        """The broker's cluster id (asked once, then cached)."""
        if self._cluster_id is None:
            self._cluster_id = await self._admin({}).cluster_id()
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

    async def _until_loaded(self) -> None:
        """Wait until the stored connectors are folded in (a read during start-up would show none);
        RequestTimeoutError after the request timeout, as Kafka's requests queued behind its start."""
        if self._loaded.is_set():
            return
        try:
            await asyncio.wait_for(self._loaded.wait(), self._owner.request_timeout_s)
        except asyncio.TimeoutError:
            raise RequestTimeoutError(TIMEOUT_MESSAGE) from None

    def _restart_stalled(self, task: ConnectorTaskId, trace: str | None) -> None:
        """A task of this worker stalled (`trace`) or moves again (None): schedule its automatic restart,
        or drop it, if its connector asks for it (``task.stall.restart=true``; the automatic restarts
        must be on too)."""
        if not task_stall_restart(self._config_of(task.connector)):
            return
        if trace is None:
            self.restarts.cancel_restart(task)
        else:
            self.restarts.schedule_restart(task, trace)

    def _runs_here(self, instance: str | ConnectorTaskId) -> bool:
        if isinstance(instance, str):
            return self._state.owns_connector(instance)
        return self._state.owns_task(instance)

    def _config_of(self, name: str) -> Mapping[str, str] | None:
        record = self._state.connectors.get(name)
        return None if record is None else record.config

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
        await self._until_loaded()
        return sorted(self._state.connectors)

    async def connector_info(self, name: str) -> ConnectorInfo:
        """Config, task ids and type of one connector."""
        await self._until_loaded()
        record = self._record(name)
        return views.connector_info(record, self._type(record))

    async def connector_config(self, name: str) -> dict[str, str]:
        """The connector's config as given."""
        await self._until_loaded()
        return dict(self._record(name).config)

    async def task_configs(self, name: str) -> list[TaskInfo]:
        """Ids and configs of the connector's tasks."""
        await self._until_loaded()
        return views.task_infos(self._record(name))

    async def auto_restarts(self, name: str) -> ConnectorAutoRestarts:
        """Where the connector's automatic restarts stand, whoever runs its instances (status store)."""
        await self._until_loaded()
        return self._auto_restarts(self._record(name))

    def _auto_restarts(self, record: ConnectorRecord) -> ConnectorAutoRestarts:
        policy = AutoRestartPolicy.of(record.config)
        none = AutoRestarts()
        return ConnectorAutoRestarts(
            record.name,
            policy.enabled,
            policy.max_attempts,
            policy.backoff_ms,
            policy.backoff_max_ms,
            self.restarts.get(record.name) or none,
            {task.task: self.restarts.get(task) or none for task in record.task_ids()},
        )

    def cluster_view(self) -> ClusterView:
        """A read-only snapshot for REST extensions."""
        connectors = {name: dict(r.config) for name, r in self._state.connectors.items()}
        return ClusterView(
            connectors,
            self._cluster_id,
            dict(self._listener.task_metrics),
            self.worker_id,
            self.placement(),
            dict(self._listener.task_stalls),
            self._all_auto_restarts(),
        )

    def _all_auto_restarts(self) -> dict[str, ConnectorAutoRestarts]:
        """The automatic restarts of every connector that enables them or has a schedule."""
        found = {name: self._auto_restarts(record) for name, record in self._state.connectors.items()}
        none = AutoRestarts()
        return {
            name: restarts
            for name, restarts in found.items()
            if restarts.enabled
            or restarts.connector != none
            or any(t != none for t in restarts.tasks.values())
        }

    # --- config writes: what both modes check first ------------------------------------------------------

    async def _validate(self, config: Mapping[str, str], deadline: float) -> None:
        """Raise the validation error of `config`; the connector's own `validate` is user code, so
        RequestTimeoutError once `deadline` (loop time) has passed."""
        await self._owner.wait(asyncio.ensure_future(self._validator.check(config)), deadline)

    # --- offsets (KIP-875): reads ------------------------------------------------------------------------

    def _is_sink(self, record: ConnectorRecord) -> bool:
        return self._type(record) is ConnectorType.SINK

    async def connector_offsets(self, name: str) -> ConnectorOffsets:
        """Committed offsets, in any state."""
        await self._until_loaded()
        record = self._record(name)
        return await self._offsets.read(name, self._is_sink(record), record.config)

    def _resolved(self, config: Mapping[str, str]) -> dict[str, str]:
        """A connector's config as its tasks see it: config provider references resolved."""
        return {key: value for key, value in self._transformer.transform(config).items() if value is not None}

    def _sink_group(self, name: str, config: Mapping[str, str]) -> str:
        """The consumer group a sink's tasks join: from its config as they see it, providers resolved."""
        return sink_group_id(self._worker_config.props, name, self._resolved(config))

    def _stopped(self, name: str) -> ConnectorRecord:
        record = self._record(name)
        if record.target is not TargetState.STOPPED or record.tasks:
            raise BadRequestError(not_stopped_message(name))
        return record

    # --- topics (KIP-558) --------------------------------------------------------------------------------

    async def active_topics(self, name: str) -> list[str]:
        """Topics the connector used since the last reset (no existence check, as in Kafka)."""
        await self._until_loaded()
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

    def plugin_config(self, plugin: str, version: str | None = None) -> list[Any]:
        """The plugin's (`version`'s) config keys, then the framework's for connectors."""
        return list(self._validator.plugin_config(plugin, version))


def merged(config: Mapping[str, str], patch: Mapping[str, str | None]) -> dict[str, str]:
    """`config` with `patch` applied: a None value removes the key (PATCH /connectors/{name}/config)."""
    result = dict(config)
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = value
    return result
