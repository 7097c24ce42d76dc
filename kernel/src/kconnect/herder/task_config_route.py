"""Where a distributed worker's generated task configs go: to the config topic only through the leader.

In Kafka, only the group's leader writes task configs; a connector running on a follower sends
its task configs to the leader (``POST /connectors/{name}/tasks``, signed). The herder's effects
write through the `ConfigBackingStore` protocol, so `LeaderRoutedConfigStore` is that protocol over
the Kafka config store with one twist: `put_task_configs` on a follower is a `LeaderRequests`
call, made in the background so the herder's owner task never waits on another worker (the
leader may be busy with the very rebalance that needs this worker's owner task). It is retried
with backoff while no leader is known or the leader cannot take it, for at most
`LEADER_RETRY_TIMEOUT_S`; then the failure listener is told (`set_failure_listener`), and the
herder fails the connector with the reason. Everything else goes straight to the config topic.
Under exactly-once source support the leader first fences the producers of a source connector's
previous task generation (`kconnect.herder.zombie_fencing`); a fencing that fails is a failed write.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence

from kconnect.errors import ConnectError
from kconnect.herder.api import LeaderRequests
from kconnect.herder.zombie_fencing import ZombieFencing
from kconnect.model import TargetState
from kconnect.storage.base import ClusterConfigState
from kconnect.storage.kafka_configs import KafkaConfigBackingStore

log = logging.getLogger(__name__)

LEADER_RETRY_TIMEOUT_S = 60.0
"""How long a follower keeps trying to hand task configs to the leader before the connector fails."""

RETRY_BACKOFF_S = (0.25, 0.5, 1.0, 2.0, 4.0)
"""Waits between attempts (the last repeats)."""


class LeaderRoutedConfigStore:
    """A ConfigBackingStore whose task-config writes reach the config topic through the leader."""

    def __init__(
        self,
        store: KafkaConfigBackingStore,
        leader_requests: LeaderRequests,
        leader_url: Callable[[], str | None],
        is_leader: Callable[[], bool],
        fencing: ZombieFencing | None = None,
    ) -> None:
        """Write through `store`; with `fencing` the leader fences a source connector's previous
        task generation before it writes new task configs (exactly-once source support)."""
        self._store = store
        self._fencing = fencing
        self._requests = leader_requests
        self._leader_url = leader_url
        self._is_leader = is_leader
        self._on_failure: Callable[[str, str], None] | None = None
        self._sending: dict[str, asyncio.Task[None]] = {}

    def set_failure_listener(self, listener: Callable[[str, str], None]) -> None:
        """Called once by the herder's constructor: `listener(connector, reason)` is told when a
        connector's task configs could not be handed to the leader in time."""
        self._on_failure = listener

    async def start(self) -> None:
        """Start the underlying store."""
        await self._store.start()

    async def stop(self) -> None:
        """Stop the underlying store."""
        await self._store.stop()

    def snapshot(self) -> ClusterConfigState:
        """The config topic as read so far."""
        return self._store.snapshot()

    async def put_connector_config(
        self, connector: str, config: Mapping[str, str], target: TargetState | None = None
    ) -> None:
        """Write a connector config to the config topic."""
        await self._store.put_connector_config(connector, config, target)

    async def remove_connector_config(self, connector: str) -> None:
        """Write a connector's deletion to the config topic."""
        await self._store.remove_connector_config(connector)

    async def put_target_state(self, connector: str, target: TargetState) -> None:
        """Write a target state to the config topic."""
        await self._store.put_target_state(connector, target)

    async def put_task_configs(self, connector: str, configs: Sequence[Mapping[str, str]]) -> None:
        """On the leader, write them; on a follower, send them to the leader in the background (a newer
        call for the same connector replaces an older one still trying)."""
        if self._is_leader():
            await self._write(connector, configs)
            return
        previous = self._sending.pop(connector, None)
        if previous is not None:
            previous.cancel()
        task = asyncio.create_task(
            self._send(connector, [dict(c) for c in configs]), name=f"tasks {connector}"
        )
        self._sending[connector] = task
        task.add_done_callback(
            lambda t: self._sending.pop(connector, None) if self._sending.get(connector) is t else None
        )

    async def _write(self, connector: str, configs: Sequence[Mapping[str, str]]) -> None:
        """The leader's write: fence the previous generation first when that applies."""
        if self._fencing is None:
            await self._store.put_task_configs(connector, configs)
            return
        snapshot = self._store.snapshot()
        config = snapshot.connector_config(connector)
        try:
            fenced = await self._fencing.before_task_configs(
                connector, config, snapshot.task_count(connector), len(configs)
            )
        except Exception as exc:
            reason = f"Failed to perform zombie fencing for connector {connector}: {exc}"
            raise ConnectError(reason) from exc
        await self._store.put_task_configs(connector, configs)
        if fenced:
            await self._store.put_task_count_record(connector, len(configs))

    async def fence_zombies(self, connector: str) -> None:
        """The leader fences the connector's current task generation and writes its task count record
        (no fencing without exactly-once support, or for a generation of one task, as in Kafka)."""
        snapshot = self._store.snapshot()
        count = snapshot.task_count(connector)
        if self._fencing is not None and await self._fencing.before_task_configs(
            connector, snapshot.connector_config(connector), count, count
        ):
            await self._store.put_task_count_record(connector, count)

    async def fence_before_offsets(self, connector: str) -> None:
        """Before a STOPPED source connector's offsets are altered or reset: fence the producers of its
        last generation that ran under exactly-once support (its ``tasks-fencing-<name>`` count; a stop
        writes no fencing of its own), then record that none is left (Kafka's round of zombie fencing
        before ``Worker.modifyConnectorOffsets``). Nothing to do without a recorded generation."""
        snapshot = self._store.snapshot()
        recorded = snapshot.task_count_records.get(connector, 0)
        if self._fencing is None or recorded == 0 or snapshot.task_count(connector) != 0:
            return
        try:
            fenced = await self._fencing.before_task_configs(
                connector, snapshot.connector_config(connector), recorded, 0
            )
        except Exception as exc:
            prefix = "Failed to perform zombie fencing for source connector prior to modifying offsets"
            raise ConnectError(f"{prefix}: {exc}") from exc
        if fenced:
            await self._store.put_task_count_record(connector, 0)

    async def _send(self, connector: str, configs: list[dict[str, str]]) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + LEADER_RETRY_TIMEOUT_S
        attempt, reason = 0, "no leader is known (a rebalance is under way)"
        while loop.time() < deadline:
            leader = self._leader_url()
            try:
                if self._is_leader():  # this worker became the leader meanwhile
                    await self._write(connector, configs)
                    return
                if leader is not None:
                    await self._requests.put_task_configs(leader, connector, configs, self._store.session_key)
                    return
            except ConnectError as exc:
                reason = str(exc)
                log.warning("Task configs of %s not taken by the leader yet: %s", connector, reason)
            await asyncio.sleep(RETRY_BACKOFF_S[min(attempt, len(RETRY_BACKOFF_S) - 1)])
            attempt += 1
        if self._on_failure is not None:
            self._on_failure(
                connector,
                f"The worker could not hand the connector's task configs to the group's leader within "
                f"{LEADER_RETRY_TIMEOUT_S:.0f} s: {reason}",
            )

    async def close(self) -> None:
        """Cancel task configs still being sent (the worker is stopping)."""
        tasks = list(self._sending.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
