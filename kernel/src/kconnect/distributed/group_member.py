"""The worker's group member: the broker's group coordinator spoken through aiokafka's low-level client.

`GroupMember` is the I/O edge of `kconnect.distributed.membership`: it finds the coordinator
(FindCoordinator), sends JoinGroup with protocol type ``connect`` and the Connect metadata of
`kconnect.distributed.protocol`, runs the leader's round (`kconnect.distributed.leader.lead`)
when the coordinator makes it the leader, sends SyncGroup, heartbeats in the background and
leaves with LeaveGroup. Every broker answer goes into the `Membership` machine; the events it
returns are handed to the herder's `on_event` coroutine one at a time, in order, and awaited:
the member sends its next JoinGroup only after the herder has stopped what an event revoked.
Two background tasks (coordination and heartbeat) fail loudly: an unexpected error is logged
with its traceback, the herder gets `MembershipLost` with the reason, and `wait_closed()`
raises it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import aiokafka.errors as kafka_errors
from aiokafka.client import AIOKafkaClient, ConnectionGroup, CoordinationType
from aiokafka.protocol.group import HeartbeatRequest, JoinGroupRequest, LeaveGroupRequest, SyncGroupRequest

from kconnect.distributed.assignor import AssignorState, ConfiguredWork
from kconnect.distributed.leader import lead
from kconnect.distributed.membership import (
    COORDINATOR_NOT_AVAILABLE,
    FENCING_ERRORS,
    MEMBER_ID_REQUIRED,
    NO_ANSWER,
    NONE,
    NOT_COORDINATOR,
    REBALANCE_IN_PROGRESS,
    RETRIABLE_JOIN_ERRORS,
    GroupMembershipError,
    Membership,
    MembershipEvent,
    MembershipLost,
    MemberState,
    error_name,
    join_error_message,
)
from kconnect.distributed.protocol import (
    PROTOCOL_TYPE,
    ConnectorsAndTasks,
    ConnectProtocol,
    decode_assignment,
    join_protocols,
)
from kconnect.errors import IllegalWorkerStateError
from kconnect.worker_config import GroupConfig

log = logging.getLogger(__name__)

EventHandler = Callable[[MembershipEvent], Awaitable[None]]
"""The herder's coroutine that receives membership events; the member awaits each call."""

RETRY_BACKOFF_S = 0.1


class GroupMember:
    """One worker's membership in the Connect group `config.group_id` (Kafka's WorkerGroupMember).

    `DistributedHerder.create` builds one per worker; the herder calls `start()`, `request_rejoin()`
    when the config topic changed what should run, and `leave()` when it stops. `configured()`
    must return the worker's current config snapshot as `ConfiguredWork` (the leader assigns from
    it; every member reports its offset). `url` is this worker's advertised REST URL, shown to the
    others.
    """

    def __init__(
        self,
        *,
        bootstrap_servers: str,
        config: GroupConfig,
        url: str,
        configured: Callable[[], ConfiguredWork],
        on_event: EventHandler,
        client_options: Mapping[str, Any] | None = None,
    ) -> None:
        self._config = config
        self._url = url
        self._configured = configured
        self._on_event = on_event
        self._client = AIOKafkaClient(
            bootstrap_servers=bootstrap_servers,
            client_id=f"connect-{config.group_id}",
            # JoinGroup waits for every member up to the rebalance timeout (Kafka adds 5 s too).
            request_timeout_ms=config.rebalance_timeout_ms + 5000,
            **dict(client_options or {}),
        )
        self._membership = Membership(ConnectProtocol.from_config(config.connect_protocol))
        self._assignor_state = AssignorState()
        self._coordinator_id: int | None = None
        self._lookup_lock = asyncio.Lock()
        self._rejoin = asyncio.Event()
        self._rejoin_reason = "joining the group"
        self._scheduled: asyncio.TimerHandle | None = None
        self._pending: list[MembershipEvent] = []
        self._tasks: list[asyncio.Task[None]] = []
        self._heartbeat_task: asyncio.Task[None] | None = None
        self._failure: BaseException | None = None
        self._fail_task: asyncio.Task[None] | None = None
        self._leaving = False
        self._closed = asyncio.Event()

    # --- what the herder calls ------------------------------------------------------------------------

    async def start(self) -> None:
        """Connect to the cluster and start joining in the background; events follow through `on_event`."""
        await self._client.bootstrap()
        self._rejoin.set()
        coordination = asyncio.create_task(self._coordinate(), name=f"group {self._config.group_id}")
        self._heartbeat_task = asyncio.create_task(
            self._heartbeat(), name=f"heartbeat {self._config.group_id}"
        )
        for task in (coordination, self._heartbeat_task):
            task.add_done_callback(self._on_task_done)
            self._tasks.append(task)

    def request_rejoin(self, reason: str) -> None:
        """Ask for a rebalance (config changed, config topic read after a failed assignment, ...)."""
        self._rejoin_reason = reason
        self._rejoin.set()

    async def leave(self) -> None:
        """Stop heartbeating and coordinating, tell the coordinator this member leaves, close the client.

        The herder stops its own work; no event follows. Safe to call twice or after a failure; not
        from inside `on_event` (the call would wait for itself).
        """
        if self._leaving:
            await self._closed.wait()
            return
        self._leaving = True
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._scheduled is not None:
            self._scheduled.cancel()
        with contextlib.suppress(IllegalWorkerStateError):
            self._membership.leave()
        await self._send_leave()
        with contextlib.suppress(IllegalWorkerStateError):
            self._membership.left()
        await self._client.close()
        self._closed.set()

    async def wait_closed(self) -> None:
        """Return once the member has left; raise the error that made it stop, if one did."""
        await self._closed.wait()
        if self._failure is not None:
            raise self._failure

    @property
    def member_id(self) -> str:
        """The id the coordinator gave this member ("" when not in a generation)."""
        return self._membership.member_id

    @property
    def generation(self) -> int:
        """The group generation this member is in (-1 when none)."""
        return self._membership.generation

    @property
    def running(self) -> ConnectorsAndTasks:
        """Everything assigned to this worker and not revoked."""
        return self._membership.running

    # --- background tasks -----------------------------------------------------------------------------

    def _on_task_done(self, task: asyncio.Task[None]) -> None:
        if task.cancelled() or self._leaving:
            if not self._leaving and task is self._heartbeat_task:
                log.warning(
                    "Group %s: heartbeats stopped; the coordinator will drop this member",
                    self._config.group_id,
                )
            return
        error = task.exception()
        if error is None:
            return
        log.error(
            "Group %s: %s failed; leaving the group", self._config.group_id, task.get_name(), exc_info=error
        )
        self._failure = error
        self._fail_task = asyncio.get_running_loop().create_task(self._fail(error))

    async def _fail(self, error: BaseException) -> None:
        """Tell the herder its work is no longer this worker's, then leave the group."""
        lost = MembershipLost(f"group membership failed: {error}", self._membership.running)
        try:
            await self._on_event(lost)
        except Exception:
            log.exception("Group %s: the membership handler failed on %s", self._config.group_id, lost)
        finally:
            await self.leave()

    async def _coordinate(self) -> None:
        """Join whenever a rejoin is due; deliver every event in order before the next JoinGroup."""
        while True:
            await self._deliver()
            await self._rejoin.wait()
            self._rejoin.clear()
            if self._scheduled is not None:
                self._scheduled.cancel()
            await self._ensure_coordinator()
            self._pending += self._membership.start_join(self._rejoin_reason)
            await self._deliver()
            if not await self._join_and_sync():
                self._rejoin.set()
                await asyncio.sleep(RETRY_BACKOFF_S)
                continue
            await self._deliver()  # the herder applies the assignment before the member acts on it
            m, loop = self._membership, asyncio.get_running_loop()
            if m.assignment is not None and m.assignment.failed:
                # The leader's config was behind: give the config topic readers a moment, then retry.
                self._scheduled = loop.call_later(RETRY_BACKOFF_S, self.request_rejoin, "assignment failed")
            elif m.rejoin_needed:
                self.request_rejoin("revoked work stopped")
            elif m.rejoin_after_ms > 0:
                self._scheduled = loop.call_later(
                    m.rejoin_after_ms / 1000, self.request_rejoin, "scheduled rebalance delay expired"
                )

    async def _deliver(self) -> None:
        while self._pending:
            await self._on_event(self._pending.pop(0))

    async def _heartbeat(self) -> None:
        """Every heartbeat.interval.ms while STABLE; a session without an answer counts as fenced."""
        last_ok = time.monotonic()
        session = self._config.session_timeout_ms / 1000
        while True:
            await asyncio.sleep(self._config.heartbeat_interval_ms / 1000)
            m = self._membership
            if m.state is not MemberState.STABLE:
                last_ok = time.monotonic()
                continue
            generation, member_id = m.generation, m.member_id
            code = await self._send_heartbeat(generation, member_id)
            if (m.generation, m.member_id) != (generation, member_id) or m.state is not MemberState.STABLE:
                continue  # the member rejoined meanwhile: this answer is about the old generation
            if code in (NONE, REBALANCE_IN_PROGRESS):
                last_ok = time.monotonic()
            elif code != NO_ANSWER:
                log.warning("Group %s: heartbeat answered %s", self._config.group_id, error_name(code))
            events = m.on_heartbeat(code) if code != NO_ANSWER else []
            if not events and time.monotonic() - last_ok > session:
                reason = f"no heartbeat answered within session.timeout.ms={self._config.session_timeout_ms}"
                events = m.fenced(reason)
            if events or m.rejoin_needed:
                self._pending += events
                self.request_rejoin(
                    "the group is rebalancing" if code == REBALANCE_IN_PROGRESS else "membership lost"
                )

    async def _send_heartbeat(self, generation: int, member_id: str) -> int:
        """One heartbeat's error code, or NO_ANSWER when the coordinator cannot be reached."""
        if self._coordinator_id is None and not await self._lookup_coordinator():
            return NO_ANSWER
        try:
            response = await self._send(HeartbeatRequest(self._config.group_id, generation, member_id))
        except kafka_errors.KafkaError as exc:
            log.warning("Group %s: heartbeat failed: %s", self._config.group_id, exc)
            return NO_ANSWER
        code: int = response.error_code
        if code in (COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR):
            self._coordinator_id = None
        return code

    # --- requests -------------------------------------------------------------------------------------

    async def _ensure_coordinator(self) -> None:
        while not await self._lookup_coordinator():
            await asyncio.sleep(RETRY_BACKOFF_S)

    async def _lookup_coordinator(self) -> bool:
        """One FindCoordinator attempt (if none is known); whether a coordinator is known and reachable."""
        async with self._lookup_lock:
            if self._coordinator_id is not None:
                return True
            try:
                node = await self._client.coordinator_lookup(CoordinationType.GROUP, self._config.group_id)
            except kafka_errors.KafkaError as exc:
                if not exc.retriable:
                    raise GroupMembershipError(
                        f"group.id {self._config.group_id}: cannot find coordinator: {exc}"
                    ) from exc
                log.warning("Group %s: coordinator lookup failed: %s", self._config.group_id, exc)
                await self._client.force_metadata_update()
                return False
            if not await self._client.ready(node, group=ConnectionGroup.COORDINATION):
                return False
            self._coordinator_id = node
            log.info("Group %s: coordinator is broker %s", self._config.group_id, node)
            return True

    async def _send(self, request: Any) -> Any:
        if self._coordinator_id is None:
            raise kafka_errors.CoordinatorNotAvailableError()
        try:
            return await self._client.send(self._coordinator_id, request, group=ConnectionGroup.COORDINATION)
        except kafka_errors.KafkaError:
            self._coordinator_id = None
            raise

    async def _join_and_sync(self) -> bool:
        """One JoinGroup + SyncGroup round; False when it must be retried."""
        m, group = self._membership, self._config.group_id
        configured = self._configured()
        protocols = join_protocols(m.metadata(self._url, configured.offset), m.configured_protocol)
        while True:
            request = JoinGroupRequest(
                group,
                self._config.session_timeout_ms,
                self._config.rebalance_timeout_ms,
                m.member_id,
                None,
                PROTOCOL_TYPE,
                protocols,
            )
            try:
                joined = await self._send(request)
            except kafka_errors.KafkaError as exc:
                log.warning("Group %s: JoinGroup failed: %s", group, exc)
                return False
            code = int(joined.error_code)
            if code != MEMBER_ID_REQUIRED:
                break
            m.member_id_required(joined.member_id)
        if code in FENCING_ERRORS:
            self._pending += m.fenced(f"the group coordinator answered {error_name(code)} to JoinGroup")
            return False
        if code in RETRIABLE_JOIN_ERRORS:
            if code in (COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR):
                self._coordinator_id = None
            return False
        if code != 0:
            raise GroupMembershipError(join_error_message(code, self._config))
        m.joined(joined.generation_id, joined.member_id, joined.leader_id, joined.group_protocol)
        log.info(
            "Group %s: joined generation %s as %s (protocol %s)",
            group,
            m.generation,
            m.member_id,
            joined.group_protocol,
        )
        owners: dict[str, ConnectorsAndTasks] = {}
        urls: dict[str, str] = {}
        assignments: list[tuple[str, bytes]] = []
        if joined.leader_id == joined.member_id:
            round_ = lead(
                group_id=group,
                members=joined.members,
                protocol_name=joined.group_protocol,
                leader_id=m.member_id,
                generation=m.generation,
                last_completed_generation=m.last_completed_generation,
                configured=self._configured(),
                state=self._assignor_state,
                now_ms=int(time.time() * 1000),
                max_delay_ms=self._config.scheduled_rebalance_max_delay_ms,
            )
            self._assignor_state = round_.state
            owners, urls, assignments = dict(round_.owners), dict(round_.member_urls), round_.answers
        try:
            synced = await self._send(SyncGroupRequest(group, m.generation, m.member_id, None, assignments))
        except kafka_errors.KafkaError as exc:
            log.warning("Group %s: SyncGroup failed: %s", group, exc)
            m.sync_failed()
            return False
        code = int(synced.error_code)
        if code in FENCING_ERRORS:
            self._pending += m.fenced(f"the group coordinator answered {error_name(code)} to SyncGroup")
            return False
        if code != 0:
            log.info("Group %s: SyncGroup answered %s; joining again", group, error_name(code))
            m.sync_failed()
            return False
        self._pending += m.synced(decode_assignment(synced.member_assignment), owners, urls)
        return True

    async def _send_leave(self) -> None:
        if not self._membership.member_id or self._coordinator_id is None:
            return
        try:
            await self._send(LeaveGroupRequest(self._config.group_id, self._membership.member_id))
            log.info("Group %s: member %s left", self._config.group_id, self._membership.member_id)
        except kafka_errors.KafkaError as exc:
            log.warning(
                "Group %s: LeaveGroup failed (the session will expire instead): %s",
                self._config.group_id,
                exc,
            )
