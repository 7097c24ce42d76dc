"""Leadership in a distributed worker: who leads the group now, and the gate every leader write passes.

Only the group's leader writes connector configs, task configs, STOPPED, restart requests and
offset changes (Kafka's rule). `LeaderState` is what this worker knows of the leader after the
membership events so far, a value without I/O; `Leadership` keeps the current one and adds the
rest of the leader's side:

* the **membership events**: the group member hands each one to `Leadership.on_membership`, which
  notes it, lets the herder carry out its work, and only then lets leader writes through again;
  an assignment that failed because this worker's config was behind the leader's is answered by
  catching up with the config topic instead;
* the **write gate** (`Leadership.as_leader`): one leader write at a time, a write during a
  rebalance waits for it to end (at most `REBALANCE_WAIT_S`), `NotLeaderError` with the leader's URL
  on any other worker (REST forwards it there), and the write answers once this worker has folded
  in what it read back from the config topic. The rebalance a config change asks for waits until
  the writes queued when it was asked have ended (`after_queued_writes`), so writes that arrive
  together cost one rebalance, as the requests Kafka's herder finds queued in one tick do;
* the **session keys** of KIP-507, which the leader of a ``sessioned`` group keeps fresh
  (`kconnect.distributed.session_keys`).

The distributed herder's factory builds one `Leadership` before the group member (whose event
handler it is) and the leader-routed config store (which asks `LeaderState.is_leader` and
`LeaderState.leader_url`); the herder attaches itself in its constructor (`Leadership.attach`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, replace

from kconnect.distributed.membership import AssignmentReceived, MembershipEvent
from kconnect.distributed.protocol import ConnectProtocol
from kconnect.distributed.request_signing import InterWorkerKeyConfig
from kconnect.distributed.session_keys import SessionKeyKeeper
from kconnect.errors import IllegalWorkerStateError, NotLeaderError
from kconnect.model import ConnectorTaskId, SessionKey

log = logging.getLogger(__name__)

REBALANCE_WAIT_S = 30.0
"""How long a write that needs the leader waits for a rebalance under way to end before it answers
409 (Kafka's requests queue behind its herder's rebalance the same way)."""

MembershipHandler = Callable[[MembershipEvent], Awaitable[None]]
"""The herder's coroutine that carries out a membership event's work (the member awaits it)."""


@dataclass(frozen=True)
class LeaderState:
    """What this worker knows of the group's leader: the last assignment, and whether a rebalance is
    under way (no leader is known then). A value: `after` returns the next one."""

    assignment: AssignmentReceived | None = None
    rebalancing: bool = True

    def after(self, event: MembershipEvent) -> LeaderState:
        """The state once `event` is noted: a rebalance is under way from the moment the member
        rejoins or loses the group until an assignment that did not fail."""
        if isinstance(event, AssignmentReceived):
            return self if event.failed else LeaderState(event, rebalancing=False)
        return replace(self, rebalancing=True)

    @property
    def is_leader(self) -> bool:
        """Whether this worker leads the group now (never during a rebalance)."""
        return self.assignment is not None and not self.rebalancing and self.assignment.is_leader

    @property
    def leader_url(self) -> str | None:
        """The leader's REST URL; None while no leader is known (REST answers 409)."""
        if self.assignment is None or self.rebalancing:
            return None
        return self.assignment.leader_url

    @property
    def signing(self) -> bool:
        """Whether internal requests are signed: the last assignment came under the ``sessioned`` protocol."""
        return self.assignment is not None and self.assignment.protocol is ConnectProtocol.SESSIONED

    def require_leader(self, what: str) -> None:
        """Raise NotLeaderError (REST forwards to the leader, or answers 409) unless this worker leads."""
        if not self.is_leader:
            raise NotLeaderError(f"Cannot {what}: this worker is not the leader", self.leader_url)

    def task_url(self, task: ConnectorTaskId) -> str | None:
        """Where a request for `task` that this worker cannot serve goes: on the leader, the URL of
        the worker the task is assigned to (None when none is); elsewhere the leader's URL."""
        if not self.is_leader:
            return self.leader_url
        assert self.assignment is not None
        owner = next((m for m, work in self.assignment.owners.items() if task in work.tasks), None)
        return self.assignment.member_urls.get(owner) if owner is not None else None


class Leadership:
    """The leader's side of a distributed worker: membership events in, the leader write gate, session keys.

    Built by `DistributedHerder.create`; the group member calls `on_membership`, the herder
    `attach` (once, in its constructor), `as_leader` and `settled` (REST requests) and `close`
    (when it stops)."""

    def __init__(
        self,
        key_config: InterWorkerKeyConfig,
        current_key: Callable[[], SessionKey | None],
        write_key: Callable[[SessionKey], Awaitable[None]],
        read_config_to_end: Callable[[], Awaitable[None]],
        rebalance_wait_s: float = REBALANCE_WAIT_S,
    ) -> None:
        self._state = LeaderState()
        self._stable = asyncio.Event()
        self._writes = asyncio.Lock()
        self._keys = SessionKeyKeeper(
            key_config, current_key, write_key, lambda: self._state.is_leader and self._state.signing
        )
        self._read_config_to_end = read_config_to_end
        self._rebalance_wait_s = rebalance_wait_s
        self._handler: MembershipHandler | None = None
        self._caught_up: Callable[[], Awaitable[None]] | None = None
        self._tickets = itertools.count(1)
        #: The tickets of the leader writes under way (waiting for their turn or writing).
        self._queued: set[int] = set()
        #: Actions waiting for every write up to their ticket to end (`after_queued_writes`).
        self._after_writes: list[tuple[int, Callable[[], None]]] = []

    @property
    def state(self) -> LeaderState:
        """What this worker knows of the leader now."""
        return self._state

    def attach(self, handler: MembershipHandler, caught_up: Callable[[], Awaitable[None]]) -> None:
        """Called once by the herder's constructor, before the group member starts: `handler` carries
        out each membership event's work on the herder's owner task; `caught_up` returns once the
        owner has folded in everything read from the config topic so far."""
        self._handler, self._caught_up = handler, caught_up

    async def on_membership(self, event: MembershipEvent) -> None:
        """The group member's event handler, called for each event in order; the member rejoins only
        after it returns.

        Steps: a failed assignment (the leader's config was ahead) only reads the config topic to
        the end. Any other event is noted first (a rebalance closes the gate), then the herder's
        handler runs its work, then an assignment opens the gate again and, on the leader of a
        ``sessioned`` group, starts keeping the session key fresh."""
        if self._handler is None:
            raise IllegalWorkerStateError("A membership event arrived before the herder attached itself")
        if isinstance(event, AssignmentReceived) and event.failed:
            log.info(
                "Assignment failed (config behind offset %d); reading the config topic", event.config_offset
            )
            try:
                await self._read_config_to_end()
            except Exception as exc:  # the member rejoins and the leader tells us again
                log.warning("Could not read the config topic to the end: %s", exc)
            return
        self._state = self._state.after(event)
        if not isinstance(event, AssignmentReceived):
            self._stable.clear()
        await self._handler(event)
        if isinstance(event, AssignmentReceived):
            self._stable.set()
            if event.is_leader and self._state.signing:
                await self._keys.on_lead()

    async def settled(self, timeout_s: float | None = None) -> None:
        """Wait, at most `timeout_s` (default `REBALANCE_WAIT_S`), for a rebalance under way to end
        (then the leader is known)."""
        wait_s = self._rebalance_wait_s if timeout_s is None else max(timeout_s, 0.0)
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._stable.wait(), wait_s)

    @contextlib.asynccontextmanager
    async def as_leader(self, what: str) -> AsyncIterator[None]:
        """One leader write at a time; NotLeaderError (REST forwards) unless this worker leads.

        A write that arrives during a rebalance waits for it to end first. On the way out, waits
        until the owner has folded in what the write read back, so this worker's next read shows it."""
        ticket = next(self._tickets)
        self._queued.add(ticket)
        try:
            await self._write_turn(what)
            try:
                yield
            finally:
                self._writes.release()
        finally:
            self._write_ended(ticket)
        if self._caught_up is not None:
            await self._caught_up()

    def after_queued_writes(self, action: Callable[[], None]) -> None:
        """Run `action` once every leader write queued or under way now has ended (at once if none).

        The herder asks for the rebalance a config change needs through this: each write of a burst
        (a script creating connectors) would otherwise make the group rebalance, and the writes
        queued behind it wait for that rebalance to end."""
        if not self._queued:
            action()
            return
        self._after_writes.append((max(self._queued), action))

    def _write_ended(self, ticket: int) -> None:
        self._queued.discard(ticket)
        oldest = min(self._queued, default=None)
        due = [entry for entry in self._after_writes if oldest is None or oldest > entry[0]]
        if not due:
            return
        self._after_writes = [entry for entry in self._after_writes if entry not in due]
        for _, action in due:
            action()

    async def _write_turn(self, what: str) -> None:
        """Hold the write lock as the leader, or raise NotLeaderError.

        A write queued behind others often finds the rebalance an earlier one started (a new
        connector makes the group rebalance): it waits for that one to end too, as Kafka's queued
        requests wait behind its herder's rebalance, instead of answering 409. All the waits of one
        write together last at most `REBALANCE_WAIT_S`; the lock is never held while waiting, so
        the rebalance's own work is not held up."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._rebalance_wait_s
        while True:
            await self.settled(deadline - loop.time())
            if self._state.rebalancing and loop.time() < deadline:
                continue  # woken by a rebalance's end, but the next one has begun already
            self._state.require_leader(what)
            await self._writes.acquire()
            if not self._state.rebalancing or loop.time() >= deadline:
                break
            self._writes.release()
        try:
            self._state.require_leader(what)
        except BaseException:
            self._writes.release()
            raise

    def close(self) -> None:
        """Stop keeping the session key (the worker stops)."""
        self._keys.close()
