"""The distributed herder: the `Herder` front door of one worker of a Connect cluster.

Three edges feed the one owner task (`kconnect.herder.owner`) of this worker, and the reducer
(`kconnect.herder.machine`) decides:

* the **config topic** (`KafkaConfigBackingStore`): every change any worker wrote is read back by
  every worker and folded in (`kconnect.herder.config_events`), so every worker knows every
  connector; a change of the connectors or tasks to share asks the group for a rebalance;
* the **group** (`GroupMember`): each assignment is folded in as `AssignmentChanged`, and the
  reducer starts and stops exactly what this worker now owns; the member waits for that before it
  rejoins, so no instance runs on two workers under the cooperative protocols;
* the **executor** and connector instances, as in standalone mode.

Writes follow Kafka's rules. The leader writes connector configs, task configs, STOPPED (with its
empty task configs), restart requests and offset changes, one write at a time; another worker
raises `NotLeaderError` with the leader's URL and the REST layer forwards the request there
(`kconnect_rest.forwarding`); during a rebalance no leader is known and the answer is 409
(`kconnect.herder.leadership` keeps who leads, gates the leader's writes and its session keys). Pause,
resume and cluster-wide logger levels (KIP-976) are written by whichever worker is asked. Task
configs that a connector generates on a follower reach the leader through `LeaderRequests` (signed
internal REST calls). Reads answer from this worker's state; statuses come from the status topic,
where each instance's owner writes.

The herder builds none of this: `DistributedHerder.create` builds the stores, the group member and
leadership from the worker config and hands them in.
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import Callable, Mapping, Sequence

from kconnect.config.connector_keys import with_connector_name
from kconnect.distributed.assignor import ConfiguredWork
from kconnect.distributed.group_member import GroupMember
from kconnect.distributed.membership import MembershipEvent, MembershipLost, RebalanceStarted
from kconnect.distributed.protocol import EMPTY, ConnectorsAndTasks
from kconnect.distributed.request_signing import InterWorkerKeyConfig
from kconnect.errors import AlreadyExistsError, BadRequestError, NotFoundError, NotLeaderError
from kconnect.executor import Executor
from kconnect.herder import events as ev
from kconnect.herder import views
from kconnect.herder.api import LeaderRequests, PutResult
from kconnect.herder.config_events import loaded_event, rebalance_reason
from kconnect.herder.front_door import HerderFrontDoor, merged
from kconnect.herder.leadership import Leadership
from kconnect.herder.offsets import AiokafkaAdmin, KafkaAdmin
from kconnect.herder.state import ConnectorRecord, HerderState, Owned, restart_plan
from kconnect.herder.task_config_route import LeaderRoutedConfigStore
from kconnect.herder.zombie_fencing import ZombieFencing
from kconnect.kafka.clients import connection_kwargs
from kconnect.model import (
    ConnectorInfo,
    ConnectorOffset,
    ConnectorStateInfo,
    ConnectorTaskId,
    RestartRequest,
    SessionKey,
    StateInfo,
    TargetState,
    TaskStateInfo,
)
from kconnect.plugin_host import PluginHost
from kconnect.storage import KafkaConfigBackingStore, KafkaStatusBackingStore
from kconnect.storage.config_changes import ConfigChange
from kconnect.storage.connector_offsets import ConnectorOffsetStores
from kconnect.worker_config import WorkerConfig

log = logging.getLogger(__name__)


class DistributedHerder(HerderFrontDoor):
    """The herder of a distributed worker (``kconnect distributed``), created by the worker at start-up
    with `create`."""

    @classmethod
    def create(
        cls,
        worker_config: WorkerConfig,
        plugins: PluginHost,
        executor: Executor,
        leader_requests: LeaderRequests,
        url: str,
    ) -> DistributedHerder:
        """A herder with its collaborators built from the worker config: the stores of the three
        internal topics, leadership, the group member (advertising `url`), and the config store that
        sends a follower's task configs to the leader through `leader_requests`."""
        configs = KafkaConfigBackingStore(worker_config.props, worker_config.config_storage())
        leadership = Leadership(
            InterWorkerKeyConfig.from_props(worker_config.props, worker_config.source),
            lambda: configs.session_key,
            configs.put_session_key,
            configs.read_to_end,
        )
        member = GroupMember(
            bootstrap_servers=worker_config.bootstrap_servers,
            config=worker_config.group_config(),
            url=url,
            configured=functools.partial(_configured, configs),
            on_event=leadership.on_membership,
            client_options=connection_kwargs(worker_config.props),
        )
        statuses = KafkaStatusBackingStore(
            worker_config.props,
            worker_config.status_storage(),
            generation=lambda: max(member.generation, 0),
        )
        routed = LeaderRoutedConfigStore(
            configs,
            leader_requests,
            lambda: leadership.state.leader_url,
            lambda: leadership.state.is_leader,
            fencing=ZombieFencing(worker_config.props, plugins),
        )
        return cls(
            worker_config,
            plugins,
            executor,
            configs=configs,
            routed=routed,
            statuses=statuses,
            offsets=ConnectorOffsetStores(
                worker_config.props,
                worker_config.offset_storage(),
                lambda connector: configs.snapshot().connector_config(connector),
            ),
            admin=lambda connector: AiokafkaAdmin(worker_config, connector),
            member=member,
            leadership=leadership,
            url=url,
        )

    def __init__(
        self,
        worker_config: WorkerConfig,
        plugins: PluginHost,
        executor: Executor,
        *,
        configs: KafkaConfigBackingStore,
        routed: LeaderRoutedConfigStore,
        statuses: KafkaStatusBackingStore,
        offsets: ConnectorOffsetStores,
        admin: Callable[[Mapping[str, str]], KafkaAdmin],
        member: GroupMember,
        leadership: Leadership,
        url: str,
    ) -> None:
        exactly_once = worker_config.group_config().exactly_once_source_support
        self._exactly_once = exactly_once
        super().__init__(
            worker_config,
            plugins,
            executor,
            routed,
            statuses,
            offsets,
            admin,
            initial=HerderState(worker_config.worker_id, owned=Owned()),
            exactly_once=exactly_once,
            offset_transactions=offsets if exactly_once.enabled else None,
        )
        self._configs = configs
        self._routed = routed
        self._statuses = statuses
        self._member = member
        self._leadership = leadership
        self._url = url
        self._seen = configs.snapshot()
        leadership.attach(self._on_membership, self._caught_up)
        routed.set_failure_listener(self._task_configs_lost)

    # --- lifecycle ---------------------------------------------------------------------------------------

    async def start(self) -> None:
        """Read the three topics to the end, fold in every connector, start the executor, join the group."""
        await self._offset_store.start()
        await self._statuses.start()
        await self._configs.start()
        self._owner.start()
        self._started = True
        loaded = loaded_event(self._configs.snapshot())
        await self._owner.call(functools.partial(self._owner.command, loaded))
        self._seen = self._configs.snapshot()
        self._configs.set_update_listener(self._on_config_update)
        self._loaded.set()
        await self._executor.start(self._listener)
        await self._member.start()
        self._healthy = True
        group = self._worker_config.group_config().group_id
        log.info(
            "Distributed herder started: group %s, %d connectors, advertised URL %s",
            group, len(self._configs.snapshot().connectors()), self._url,
        )  # fmt: skip

    async def stop(self) -> None:
        """Stop every task (offsets committed) and connector, leave the group, flush statuses."""
        if not self._started:
            return
        self._started = False
        self._leadership.close()
        self.restarts.close()
        await self._owner.call(lambda: self._owner.command(ev.ShutdownRequested()))
        await self._connectors.stop_all()
        await self._routed.close()
        await self._member.leave()
        await self._executor.stop()
        self._owner.stop()
        with contextlib.suppress(Exception):
            await self._statuses.flush()
        for store in (self._configs, self._statuses, self._offset_store):
            await store.stop()
        log.info("Distributed herder stopped")

    # --- the group ---------------------------------------------------------------------------------------

    async def _run(self, work: ConnectorsAndTasks) -> None:
        """Fold in that this worker runs exactly `work` now (the owner stops and starts the difference).

        An effect that fails is logged, not raised: the member must go on (a raising handler would
        make it leave the group); the instance it concerns shows its failure in status."""
        event = ev.AssignmentChanged(frozenset(work.connectors), frozenset(work.tasks))
        try:
            await self._owner.call(lambda: self._owner.command(event))
        except Exception:
            log.error("Carrying out the assignment %s failed", work, exc_info=True)

    async def _on_membership(self, event: MembershipEvent) -> None:
        """Carry out a membership event's work; `Leadership.on_membership` calls this, in order, after
        noting the event (a failed assignment never comes here). The member rejoins only after it returns."""
        if isinstance(event, RebalanceStarted):
            if not event.revoked.is_empty():
                await self._run(self._member.running.minus(event.revoked))
        elif isinstance(event, MembershipLost):
            log.warning("This worker left the group (%s); its tasks stop until it rejoins", event.reason)
            await self._run(EMPTY)
        else:
            await self._run(event.assigned)

    def _on_config_update(self, change: ConfigChange) -> None:
        """Called by the config store, on the loop, for each change read after start (must not block)."""
        self._owner.post(change)
        snapshot = self._configs.snapshot()
        reason = rebalance_reason(self._seen, snapshot)
        self._seen = snapshot
        if reason is not None:
            log.info("Requesting a rebalance: %s", reason)
            # Writes queued at the leader go first: a burst of them costs one rebalance.
            self._leadership.after_queued_writes(lambda: self._member.request_rejoin(reason))

    def _task_configs_lost(self, connector: str, reason: str) -> None:
        record = self._state.connectors.get(connector)
        if record is not None and record.instance:
            self._owner.post(ev.ConnectorFailed(connector, record.instance, reason))

    # --- session keys (KIP-507): the leader writes them (`Leadership`), every worker reads them ----------

    def internal_request_key(self) -> SessionKey | None:
        """The newest session key read from the config topic (internal requests are signed with it)."""
        return self._configs.session_key

    def internal_requests_signed(self) -> bool:
        """Whether internal requests must be signed: the group runs the ``sessioned`` protocol."""
        return self._leadership.state.signing

    # --- leader-only writes ------------------------------------------------------------------------------

    async def _caught_up(self) -> None:
        async def nothing() -> None:
            return None

        await self._owner.call(nothing, self._owner.deadline())

    async def put_connector_config(
        self,
        name: str,
        config: Mapping[str, str],
        *,
        allow_replace: bool,
        initial_state: TargetState | None = None,
    ) -> PutResult:
        """Validate, then write the connector's config to the config topic (leader only); answers once
        every worker can read it, with the tasks it has so far (none for a new connector, as Kafka).

        As Kafka's, the worker the request reached validates it before it forwards it to the leader
        (which validates it again): with its own ``exactly.once.source.support`` during an upgrade."""
        config = with_connector_name(config, name)
        await self._validate(config, self._owner.deadline())
        async with self._leadership.as_leader("create or update a connector"):
            created = not self._configs.snapshot().contains(name)
            if not created and not allow_replace:
                raise AlreadyExistsError(f"Connector {name} already exists")
            await self._configs.put_connector_config(name, config, initial_state if created else None)
        return PutResult(created, self._written_info(name, config))

    async def patch_connector_config(self, name: str, patch: Mapping[str, str | None]) -> ConnectorInfo:
        """Merge `patch` into the stored config, validate and write it (leader only, one write at a time)."""
        async with self._leadership.as_leader("patch a connector's config"):
            stored = self._configs.snapshot().connector_config(name)
            if stored is None:
                raise NotFoundError(f"Connector {name} not found")
            patched = merged(stored, patch)
            await self._validate(patched, self._owner.deadline())
            await self._configs.put_connector_config(name, patched)
        return self._written_info(name, patched)

    def _written_info(self, name: str, config: Mapping[str, str]) -> ConnectorInfo:
        snapshot = self._configs.snapshot()
        return ConnectorInfo(name, dict(config), snapshot.tasks(name), self._validator.connector_type(config))

    async def delete_connector(self, name: str) -> ConnectorInfo:
        """Remove the connector from the config topic (leader only); every worker then stops its part."""
        async with self._leadership.as_leader("delete a connector"):
            record = self._record(name)
            info = views.connector_info(record, self._type(record))
            await self._configs.remove_connector_config(name)
        return info

    async def stop_connector(self, name: str) -> None:
        """STOPPED (leader only): empty task configs first, then the target state, as Kafka writes them."""
        async with self._leadership.as_leader("stop a connector"):
            self._record(name, f"Unknown connector {name}")
            await self._configs.put_task_configs(name, [])
            await self._configs.put_target_state(name, TargetState.STOPPED)

    async def restart_connector(self, request: RestartRequest) -> ConnectorStateInfo:
        """Write a KIP-745 restart request (leader only); the owner of each instance restarts it.

        Returns the status before the restart, RESTARTING where the request applies."""
        async with self._leadership.as_leader("restart a connector"):
            record = self._record(request.connector, f"Unknown connector: {request.connector}")
            status = await self.connector_status(request.connector)
            observed = views.with_observed(record, status)
            plan = restart_plan(observed, request.include_tasks, request.only_failed)
            await self._configs.put_restart_request(request)
        return views.connector_status(observed, self._type(record), plan, self._versions(record))

    async def restart_task(self, task: ConnectorTaskId) -> None:
        """Restart a task this worker runs; otherwise forward to the leader, which forwards to the owner."""
        record = self._record(task.connector, f"Unknown connector: {task.connector}")
        if not 0 <= task.task < len(record.tasks):
            raise NotFoundError(f"Unknown task: {task}")
        await self._leadership.settled()
        if self._state.owns_task(task):
            await self._write(ev.TaskRestartRequested(task))
            return
        raise NotLeaderError(
            "Cannot restart task since it is not assigned to this member",
            self._leadership.state.task_url(task),
        )

    async def put_task_configs(self, connector: str, configs: Sequence[Mapping[str, str]]) -> None:
        """Write task configs a connector generated on some worker (leader only; internal endpoint),
        after the zombie fencing the leader's own writes get (`LeaderRoutedConfigStore`)."""
        async with self._leadership.as_leader("write task configs"):
            if not self._configs.snapshot().contains(connector):
                raise NotFoundError(f"Connector {connector} not found")
            await self._routed.put_task_configs(connector, configs)

    async def fence_zombies(self, connector: str) -> None:
        """Fence the source connector's current task generation, then write its task count record
        (leader only; internal ``PUT /connectors/{name}/fence``, Kafka's fenceZombieSourceTasks)."""
        async with self._leadership.as_leader("perform zombie fencing"):
            record = self._record(connector)
            if self._is_sink(record):
                raise BadRequestError(f"Connector {connector} is not a source connector")
            await self._routed.fence_zombies(connector)

    async def alter_offsets(self, name: str, offsets: Sequence[ConnectorOffset]) -> str:
        """Alter a STOPPED connector's offsets (leader only) after its `alter_offsets` accepts them."""
        async with self._leadership.as_leader("alter a connector's offsets"):
            record = self._stopped(name)
            plugin = self._validator.plugin(record.config)
            await self._fence_before_offsets(name, record)
            return await self._offsets.alter(name, record.config, plugin.cls, self._is_sink(record), offsets)

    async def reset_offsets(self, name: str) -> str:
        """Remove every offset of a STOPPED connector (leader only)."""
        async with self._leadership.as_leader("reset a connector's offsets"):
            record = self._stopped(name)
            plugin = self._validator.plugin(record.config)
            await self._fence_before_offsets(name, record)
            return await self._offsets.reset_all(name, record.config, plugin.cls, self._is_sink(record))

    async def _fence_before_offsets(self, name: str, record: ConnectorRecord) -> None:
        """Under exactly-once support, fence a source connector's last generation before its offsets
        change (Kafka's round of zombie fencing before modifying offsets), then check it is still
        STOPPED: the fencing round awaited the broker, and a resume may have come meanwhile."""
        if self._is_sink(record) or not self._exactly_once.enabled:
            return
        await self._routed.fence_before_offsets(name)
        self._stopped(name)

    # --- writes any worker makes -------------------------------------------------------------------------

    async def _put_target(self, name: str, target: TargetState) -> None:
        self._record(name, f"Unknown connector {name}")
        await self._configs.put_target_state(name, target)
        await self._caught_up()

    async def pause_connector(self, name: str) -> None:
        """Target state PAUSED, written to the config topic by this worker; every owner pauses its part."""
        await self._put_target(name, TargetState.PAUSED)

    async def resume_connector(self, name: str) -> None:
        """Target state STARTED, written to the config topic by this worker."""
        await self._put_target(name, TargetState.STARTED)

    async def set_cluster_logger_level(self, namespace: str, level: str) -> None:
        """KIP-976: write ``logger-cluster-<namespace>`` to the config topic; every worker that reads it,
        this one included, sets the level (a worker that starts later ignores it, as Kafka's).

        Answers once this worker has read the record back and set the level (Kafka answers after
        the write alone), so the next GET here shows it."""
        await self._configs.put_logger_level(namespace, level)
        await self._caught_up()

    # --- status reads: from the status topic, where each instance's owner writes ------------------------

    async def connector_status(self, name: str) -> ConnectorStateInfo:
        """The connector's and its tasks' latest statuses, whoever runs them."""
        await self._until_loaded()
        record = self._record(name, f"No status found for connector {name}")
        connector = self._statuses.get_connector(name)
        if connector is None:
            raise NotFoundError(f"No status found for connector {name}")
        versions = self._versions(record)
        tasks = [self._task_state(t, versions.task(t.task)) for t in record.task_ids()]
        state = StateInfo(connector.state, connector.worker_id, connector.trace, versions.connector)
        return ConnectorStateInfo(name, state, [t for t in tasks if t is not None], self._type(record))

    def _task_state(self, task: ConnectorTaskId, version: str | None) -> TaskStateInfo | None:
        found = self._statuses.get_task(task)
        if found is None:
            return None
        return TaskStateInfo(found.state, found.worker_id, found.trace, version, id=task.task)

    async def task_status(self, task: ConnectorTaskId) -> TaskStateInfo:
        """One task's latest status, whoever runs it."""
        await self._until_loaded()
        record = self._state.connectors.get(task.connector)
        found = None
        if record is not None and 0 <= task.task < len(record.tasks):
            found = self._task_state(task, self._versions(record).task(task.task))
        if found is None:
            raise NotFoundError(f"No status found for task {task}")
        return found


def _configured(configs: KafkaConfigBackingStore) -> ConfiguredWork:
    """What the group shares out, from the config topic as this worker has read it (the member asks)."""
    snapshot = configs.snapshot()
    return ConfiguredWork.of(snapshot, snapshot.offset)
