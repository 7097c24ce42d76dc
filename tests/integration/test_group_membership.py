"""Group membership on the real broker: Connect workers as members of a ``connect`` group, KIP-415 rebalances.

Each `GroupMember` here is driven by a `Worker` stand-in for the herder that records every event
and keeps what the member told it to run, exactly as the distributed herder will.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from kconnect.distributed.assignor import ConfiguredWork
from kconnect.distributed.group_member import GroupMember
from kconnect.distributed.membership import (
    AssignmentReceived,
    GroupMembershipError,
    MembershipEvent,
    MembershipLost,
    RebalanceStarted,
)
from kconnect.distributed.protocol import EMPTY, ConnectorsAndTasks
from kconnect.model import ConnectorTaskId
from kconnect.worker_config import GroupConfig

pytestmark = pytest.mark.integration

WORK = ConfiguredWork(0, {"source": 3, "sink": 3})
EVERY_TASK = sorted(WORK.work().tasks)
DELAY_MS = 3000
SESSION_MS = 6000  # the broker's group.min.session.timeout.ms


class Worker:
    """The herder's part: runs what assignments add, stops what they revoke, records every event."""

    def __init__(self, name: str, failing: bool = False) -> None:
        self.name = name
        self.failing = failing
        self.events: list[tuple[float, MembershipEvent]] = []
        self.running: ConnectorsAndTasks = EMPTY
        self.member: GroupMember | None = None

    async def on_event(self, event: MembershipEvent) -> None:
        self.events.append((time.monotonic(), event))
        if self.failing and isinstance(event, AssignmentReceived):
            raise RuntimeError(f"{self.name} cannot start {event.added}")
        if isinstance(event, AssignmentReceived):
            assert not set(event.added.tasks) & set(self.running.tasks), (
                f"{self.name} told to start a running task"
            )
            after = self.running.minus(event.revoked).plus(event.added)
            # The same work; the order differs when a member that ran work under a cooperative
            # generation (it joined first, alone) gets the first eager assignment.
            assert (set(after.connectors), set(after.tasks)) == (
                set(event.assigned.connectors),
                set(event.assigned.tasks),
            )
            self.running = event.assigned
        elif isinstance(event, MembershipLost):
            self.running = EMPTY
        else:
            self.running = self.running.minus(event.revoked)

    def assignments(self, since: float = 0.0) -> list[AssignmentReceived]:
        return [e for t, e in self.events if isinstance(e, AssignmentReceived) and t >= since]

    def revoked_tasks(self, since: float) -> set[ConnectorTaskId]:
        return {t for a in self.assignments(since) for t in a.revoked.tasks}

    @property
    def generation(self) -> int:
        assignments = self.assignments()
        return assignments[-1].generation if assignments else -1


@pytest.fixture
async def group(kafka_bootstrap: str) -> AsyncIterator[Callable[..., Any]]:
    """A factory of started members of one fresh group; every member leaves at the end."""
    group_id = f"connect-test-{uuid.uuid4().hex[:8]}"
    members: list[GroupMember] = []

    async def start(name: str, failing: bool = False, **overrides: Any) -> Worker:
        settings: dict[str, Any] = {
            "group_id": group_id,
            "heartbeat_interval_ms": 500,
            "session_timeout_ms": SESSION_MS,
            "rebalance_timeout_ms": 10000,
            "scheduled_rebalance_max_delay_ms": DELAY_MS,
        }
        worker = Worker(name, failing)
        member = GroupMember(
            bootstrap_servers=kafka_bootstrap,
            config=GroupConfig(**{**settings, **overrides}),
            url=f"http://{name}:8083",
            configured=lambda: WORK,
            on_event=worker.on_event,
        )
        worker.member = member
        members.append(member)
        await member.start()
        return worker

    start.group_id = group_id  # type: ignore[attr-defined]
    yield start
    await asyncio.gather(*(m.leave() for m in members))


async def eventually(what: str, check: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting until {what}")
        await asyncio.sleep(0.05)


def a_follower(workers: list[Worker]) -> Worker:
    """A worker that does not lead: a new leader starts without the old one's memory (as Kafka's)."""
    leader_id = workers[0].assignments()[-1].leader_id
    return next(w for w in workers if w.member is not None and w.member.member_id != leader_id)


def settled(workers: list[Worker], version: int = 2) -> bool:
    """Every worker in one generation, every task run exactly once, balanced, nothing pending."""
    generations = {w.generation for w in workers}
    tasks = sorted(t for w in workers for t in w.running.tasks)
    connectors = sorted(c for w in workers for c in w.running.connectors)
    sizes = [len(w.running.tasks) for w in workers]
    last = [w.assignments()[-1] for w in workers if w.assignments()]
    return (
        len(generations) == 1
        and len(last) == len(workers)
        and all(a.revoked.is_empty() and a.delay_ms == 0 and a.protocol.version == version for a in last)
        and tasks == EVERY_TASK
        and connectors == ["sink", "source"]
        and max(sizes) - min(sizes) <= 1
    )


async def describe(kafka_bootstrap: str, group_id: str) -> dict[str, Any]:
    admin = AIOKafkaAdminClient(bootstrap_servers=kafka_bootstrap)
    await admin.start()
    try:
        (response,) = await admin.describe_consumer_groups([group_id])
    finally:
        await admin.close()
    (described,) = response.to_object()["groups"]
    return dict(described)


async def test_members_share_work_keep_it_across_leave_and_join_and_held_work_moves_after_the_delay(
    group: Callable[..., Any], kafka_bootstrap: str
) -> None:
    a, b, c = [await group(name) for name in ("a", "b", "c")]
    await eventually("three members share 2 connectors x 3 tasks", lambda: settled([a, b, c]))
    # Balanced by count, as Kafka's assignor balances: which connector's tasks a worker holds depends
    # on the order the members joined in (Kafka revokes the first tasks past a worker's share).
    assert sorted(len(w.running.tasks) for w in (a, b, c)) == [2, 2, 2]
    leader = next(e for w in (a, b, c) for e in w.assignments()[-1:] if e.is_leader)
    assert sorted(leader.member_urls.values()) == ["http://a:8083", "http://b:8083", "http://c:8083"]

    described = await describe(kafka_bootstrap, group.group_id)  # type: ignore[attr-defined]
    assert (described["protocol_type"], described["protocol"], described["state"]) == (
        "connect",
        "sessioned",
        "Stable",
    )
    assert len(described["members"]) == 3

    # c (a follower) leaves: a and b keep everything they run; c's work waits DELAY_MS, then goes to them.
    workers = [a, b, c]
    c = a_follower(workers)
    a, b = [w for w in workers if w is not c]
    kept = {w.name: w.running for w in (a, b)}
    gone = c.running
    assert c.member is not None
    left_at = time.monotonic()
    await c.member.leave()
    await eventually("a and b run everything", lambda: settled([a, b]), timeout=DELAY_MS / 1000 + 20)
    moved_at = min(
        t
        for w in (a, b)
        for t, e in w.events
        if isinstance(e, AssignmentReceived) and e.added.tasks and t > left_at
    )
    assert moved_at - left_at >= DELAY_MS / 1000 - 0.5, (
        "c's work was not held for scheduled.rebalance.max.delay.ms"
    )
    assert any(e.delay_ms > 0 for w in (a, b) for e in w.assignments(left_at)), (
        "no assignment announced the delay"
    )
    for w in (a, b):
        assert w.revoked_tasks(left_at) == set(), f"{w.name} had work revoked when c left"
        assert set(kept[w.name].tasks) <= set(w.running.tasks)
    assert set(gone.tasks) <= set(a.running.tasks) | set(b.running.tasks)

    # d joins: it takes a share; only what moves to d is revoked from a and b.
    before = {w.name: set(w.running.tasks) for w in (a, b)}
    joined_at = time.monotonic()
    d = await group("d")
    await eventually("a, b and d share the work", lambda: settled([a, b, d]))
    assert sorted(len(w.running.tasks) for w in (a, b, d)) == [2, 2, 2]
    revoked = a.revoked_tasks(joined_at) | b.revoked_tasks(joined_at)
    assert revoked == set(d.running.tasks)
    for w in (a, b):
        assert before[w.name] - set(w.running.tasks) == w.revoked_tasks(joined_at)


async def test_a_member_that_stops_heartbeating_is_dropped_after_the_session_timeout(
    group: Callable[..., Any], kafka_bootstrap: str
) -> None:
    a, b, c = [await group(name) for name in ("a", "b", "c")]
    await eventually("three members share the work", lambda: settled([a, b, c]))
    workers = [a, b, c]
    c = a_follower(workers)
    a, b = [w for w in workers if w is not c]
    generation = a.generation
    assert c.member is not None
    c.member._heartbeat_task.cancel()  # type: ignore[union-attr]  # a hung worker: no more heartbeats
    stopped_at = time.monotonic()
    await eventually(
        "a and b rebalance without c",
        lambda: a.generation > generation and b.generation > generation,
        timeout=30,
    )
    dropped_after = (
        max(t for w in (a, b) for t, e in w.events if isinstance(e, AssignmentReceived)) - stopped_at
    )
    assert dropped_after >= SESSION_MS / 1000 - 1.0
    described = await describe(kafka_bootstrap, group.group_id)  # type: ignore[attr-defined]
    assert len(described["members"]) == 2
    await eventually("a and b run everything", lambda: settled([a, b]), timeout=DELAY_MS / 1000 + 20)


async def test_a_session_timeout_the_broker_refuses_stops_the_member_with_a_clear_error(
    group: Callable[..., Any],
) -> None:
    worker = await group("a", session_timeout_ms=1000)
    assert worker.member is not None
    with pytest.raises(GroupMembershipError, match=r"session.timeout.ms=1000: the broker refused it"):
        await asyncio.wait_for(worker.member.wait_closed(), 30)
    lost = [e for _, e in worker.events if isinstance(e, MembershipLost)]
    assert len(lost) == 1 and "INVALID_SESSION_TIMEOUT" in lost[0].reason


async def test_a_worker_back_within_the_delay_gets_the_departed_workers_work(
    group: Callable[..., Any],
) -> None:
    a, b, c = [await group(name) for name in ("a", "b", "c")]
    await eventually("three members share the work", lambda: settled([a, b, c]))
    workers = [a, b, c]
    c = a_follower(workers)
    a, b = [w for w in workers if w is not c]
    gone = c.running
    assert c.member is not None
    left_at = time.monotonic()
    await c.member.leave()
    await eventually("a and b hold c's work back", lambda: any(e.delay_ms > 0 for e in a.assignments()))
    back = await group("c-restarted")  # a restarted worker: new member id, nothing running
    await eventually(
        "the restarted worker runs c's work", lambda: settled([a, b, back]), timeout=DELAY_MS / 1000 + 20
    )
    assert (set(back.running.connectors), set(back.running.tasks)) == (set(gone.connectors), set(gone.tasks))
    # Only what followed c's departure: the first rounds, as a, b and c joined one by one, may revoke.
    assert all(e.revoked.is_empty() for w in (a, b) for e in w.assignments(since=left_at))


async def test_an_eager_worker_makes_the_group_eager_and_every_rebalance_stops_everything(
    group: Callable[..., Any], kafka_bootstrap: str
) -> None:
    a = await group("a", connect_protocol="eager")
    b = await group("b")  # offers sessioned, compatible and default: only default is common
    await eventually("a and b share the work eagerly", lambda: settled([a, b], version=0))
    described = await describe(kafka_bootstrap, group.group_id)  # type: ignore[attr-defined]
    assert (described["protocol_type"], described["protocol"]) == ("connect", "default")
    before = {w.name: w.running for w in (a, b)}
    joined_at = time.monotonic()
    c = await group("c")
    await eventually("a, b and c share the work eagerly", lambda: settled([a, b, c], version=0))
    for w in (a, b):
        started = [e for t, e in w.events if isinstance(e, RebalanceStarted) and t >= joined_at]
        assert started and started[0].revoked == before[w.name], f"{w.name} kept work in an eager rebalance"


async def test_a_group_id_used_by_a_consumer_group_is_refused_naming_group_id(
    group: Callable[..., Any], kafka_bootstrap: str, unique_topic: str
) -> None:
    admin = AIOKafkaAdminClient(bootstrap_servers=kafka_bootstrap)
    await admin.start()
    await admin.create_topics([NewTopic(unique_topic, 1, 1)])
    await admin.close()
    consumer = AIOKafkaConsumer(unique_topic, bootstrap_servers=kafka_bootstrap, group_id=group.group_id)  # type: ignore[attr-defined]
    await consumer.start()
    try:
        await consumer.getmany(timeout_ms=2000)  # joined: the group now has protocol type "consumer"
        worker = await group("a")
        assert worker.member is not None
        with pytest.raises(
            GroupMembershipError, match=r"group.id connect-test-\w+: .*INCONSISTENT_GROUP_PROTOCOL"
        ):
            await asyncio.wait_for(worker.member.wait_closed(), 30)
    finally:
        await consumer.stop()


async def test_a_handler_that_raises_stops_the_member_loudly_and_it_leaves_the_group(
    group: Callable[..., Any], kafka_bootstrap: str, caplog: pytest.LogCaptureFixture
) -> None:
    worker = await group("a", failing=True)
    assert worker.member is not None
    with pytest.raises(RuntimeError, match="a cannot start"):
        await asyncio.wait_for(worker.member.wait_closed(), 30)
    assert "failed; leaving the group" in caplog.text
    lost = [e for _, e in worker.events if isinstance(e, MembershipLost)]
    assert len(lost) == 1 and "a cannot start" in lost[0].reason
    described = await describe(kafka_bootstrap, group.group_id)  # type: ignore[attr-defined]
    assert described["members"] == []
