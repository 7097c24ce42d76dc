"""Leadership in a distributed worker: who leads after each membership event, and the leader write gate.

`LeaderState` is a value: table-driven, no event loop. `Leadership` is fed membership events as
the group member feeds them; its config-topic side is a list of written keys and a counter of
reads, its herder side a list of the events handed on (no broker, no herder).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence

import pytest
from kconnect.distributed.membership import (
    AssignmentReceived,
    MembershipEvent,
    MembershipLost,
    RebalanceStarted,
)
from kconnect.distributed.protocol import EMPTY, ConnectorsAndTasks, ConnectProtocol
from kconnect.distributed.request_signing import InterWorkerKeyConfig
from kconnect.errors import IllegalWorkerStateError, NotLeaderError
from kconnect.herder.leadership import Leadership, LeaderState
from kconnect.model import ConnectorTaskId, SessionKey

LEADER_URL = "http://leader:8083/"
OTHER_URL = "http://other:8083/"
T0, T1 = ConnectorTaskId("c", 0), ConnectorTaskId("c", 1)


def assigned(
    *,
    leads: bool = True,
    protocol: ConnectProtocol = ConnectProtocol.SESSIONED,
    failed: bool = False,
    owners: Mapping[str, ConnectorsAndTasks] | None = None,
    member_urls: Mapping[str, str] | None = None,
) -> AssignmentReceived:
    """An assignment to member ``me``; led by ``me`` when `leads`, else by ``boss``."""
    return AssignmentReceived(
        generation=3,
        member_id="me",
        leader_id="me" if leads else "boss",
        leader_url=LEADER_URL,
        protocol=protocol,
        config_offset=7,
        failed=failed,
        assigned=EMPTY,
        added=EMPTY,
        revoked=EMPTY,
        delay_ms=0,
        owners=owners or {},
        member_urls=member_urls or {},
    )


def after(events: Sequence[MembershipEvent]) -> LeaderState:
    state = LeaderState()
    for event in events:
        state = state.after(event)
    return state


REJOIN = RebalanceStarted("config changed")
LOST = MembershipLost("heartbeat expired")


@pytest.mark.parametrize(
    ("events", "expected"),
    [
        ([], (False, None, False)),
        ([assigned()], (True, LEADER_URL, True)),
        ([assigned(leads=False)], (False, LEADER_URL, True)),
        ([assigned(protocol=ConnectProtocol.EAGER)], (True, LEADER_URL, False)),
        ([assigned(), REJOIN], (False, None, True)),
        ([assigned(), LOST], (False, None, True)),
        ([assigned(), REJOIN, assigned(failed=True)], (False, None, True)),
        ([assigned(failed=True)], (False, None, False)),
        ([REJOIN, assigned(leads=False), REJOIN, assigned()], (True, LEADER_URL, True)),
    ],
    ids=[
        "before-any-assignment",
        "leader",
        "follower",
        "eager-leader-does-not-sign",
        "rebalance-hides-the-leader",
        "lost-membership-hides-the-leader",
        "failed-assignment-changes-nothing",
        "failed-first-assignment",
        "last-assignment-counts",
    ],
)
def test_who_leads_after_the_membership_events(
    events: Sequence[MembershipEvent], expected: tuple[bool, str | None, bool]
) -> None:
    state = after(events)
    assert (state.is_leader, state.leader_url, state.signing) == expected


def test_only_the_leader_passes_require_leader_and_the_others_name_it() -> None:
    after([assigned()]).require_leader("delete a connector")
    with pytest.raises(NotLeaderError) as follower:
        after([assigned(leads=False)]).require_leader("delete a connector")
    assert str(follower.value) == "Cannot delete a connector: this worker is not the leader"
    assert follower.value.leader_url == LEADER_URL
    with pytest.raises(NotLeaderError) as rebalancing:
        after([assigned(), REJOIN]).require_leader("stop a connector")
    assert str(rebalancing.value) == "Cannot stop a connector: this worker is not the leader"
    assert rebalancing.value.leader_url is None


def test_a_task_request_goes_to_its_owner_from_the_leader_and_to_the_leader_elsewhere() -> None:
    owners = {"me": ConnectorsAndTasks.of(["c"], [T0]), "other": ConnectorsAndTasks.of([], [T1])}
    urls = {"me": LEADER_URL, "other": OTHER_URL}
    leader = after([assigned(owners=owners, member_urls=urls)])
    assert leader.task_url(T1) == OTHER_URL
    assert leader.task_url(ConnectorTaskId("c", 2)) is None
    assert after([assigned(leads=False)]).task_url(T1) == LEADER_URL
    assert after([assigned(owners=owners, member_urls=urls), REJOIN]).task_url(T1) is None


class Worker:
    """What `Leadership` talks to: the config topic's session key and reads, and the herder's side."""

    def __init__(self, *, read_fails: bool = False, rebalance_wait_s: float = 10.0) -> None:
        self.key: SessionKey | None = None
        self.keys_written: list[SessionKey] = []
        self.reads = 0
        self.read_fails = read_fails
        self.handled: list[MembershipEvent] = []
        self.catch_ups = 0
        self.leadership = Leadership(
            InterWorkerKeyConfig(), lambda: self.key, self.write_key, self.read_to_end, rebalance_wait_s
        )
        self.leadership.attach(self.handle, self.caught_up)

    async def write_key(self, key: SessionKey) -> None:
        self.keys_written.append(key)
        self.key = key

    async def read_to_end(self) -> None:
        self.reads += 1
        if self.read_fails:
            raise OSError("broker unreachable")

    async def handle(self, event: MembershipEvent) -> None:
        self.handled.append(event)

    async def caught_up(self) -> None:
        self.catch_ups += 1


async def test_the_herder_carries_out_each_event_but_a_failed_assignment_reads_the_config_topic() -> None:
    worker = Worker()
    failed = assigned(failed=True)
    for event in (REJOIN, failed, assigned(leads=False), LOST):
        await worker.leadership.on_membership(event)
    assert worker.handled == [REJOIN, assigned(leads=False), LOST]
    assert worker.reads == 1
    worker.leadership.close()


async def test_a_config_topic_that_cannot_be_read_after_a_failed_assignment_is_not_raised() -> None:
    worker = Worker(read_fails=True)
    await worker.leadership.on_membership(assigned(failed=True))  # must not raise: the member would leave
    assert (worker.reads, worker.handled) == (1, [])


async def test_a_membership_event_before_the_herder_attached_is_refused() -> None:
    leadership = Leadership(InterWorkerKeyConfig(), lambda: None, Worker().write_key, Worker().read_to_end)
    with pytest.raises(IllegalWorkerStateError):
        await leadership.on_membership(assigned())


async def test_a_leader_write_during_a_rebalance_waits_for_it_then_catches_up() -> None:
    worker = Worker()
    await worker.leadership.on_membership(REJOIN)
    written: list[str] = []

    async def write() -> None:
        async with worker.leadership.as_leader("create or update a connector"):
            written.append("config")

    pending = asyncio.create_task(write())
    await asyncio.sleep(0.05)
    assert written == []
    await worker.leadership.on_membership(assigned(protocol=ConnectProtocol.EAGER))
    await asyncio.wait_for(pending, 5)
    assert (written, worker.catch_ups) == (["config"], 1)


async def test_a_follower_write_is_refused_with_the_leader_and_a_long_rebalance_with_none() -> None:
    worker = Worker(rebalance_wait_s=0.1)
    await worker.leadership.on_membership(assigned(leads=False))
    with pytest.raises(NotLeaderError) as follower:
        async with worker.leadership.as_leader("write task configs"):
            pytest.fail("a follower wrote")
    assert follower.value.leader_url == LEADER_URL
    await worker.leadership.on_membership(REJOIN)
    with pytest.raises(NotLeaderError) as rebalancing:
        async with worker.leadership.as_leader("write task configs"):
            pytest.fail("a write passed during a rebalance")
    assert rebalancing.value.leader_url is None
    assert worker.catch_ups == 0


async def test_leader_writes_pass_one_at_a_time() -> None:
    worker = Worker()
    await worker.leadership.on_membership(assigned(protocol=ConnectProtocol.EAGER))
    inside: list[int] = []
    most = 0

    async def write() -> None:
        nonlocal most
        async with worker.leadership.as_leader("delete a connector"):
            inside.append(1)
            most = max(most, len(inside))
            await asyncio.sleep(0.01)
            inside.pop()

    await asyncio.wait_for(asyncio.gather(*(write() for _ in range(5))), 5)
    assert (most, worker.catch_ups) == (1, 5)


async def test_a_write_queued_behind_one_that_started_a_rebalance_waits_for_it_instead_of_refusing() -> None:
    """Creates at once on a one-worker group: each new connector makes the group rebalance, and the
    writes queued behind it must wait for that rebalance (Kafka's queued requests do), not answer 409."""
    worker = Worker()
    await worker.leadership.on_membership(assigned(protocol=ConnectProtocol.EAGER))
    written: list[int] = []

    async def create(number: int) -> None:
        async with worker.leadership.as_leader("create or update a connector"):
            written.append(number)
            # The write lands in the config topic: the group rebalances, and settles a little later.
            await worker.leadership.on_membership(REJOIN)
            asyncio.get_running_loop().call_later(
                0.02,
                lambda: asyncio.ensure_future(
                    worker.leadership.on_membership(assigned(protocol=ConnectProtocol.EAGER))
                ),
            )

    await asyncio.wait_for(asyncio.gather(*(create(number) for number in range(5))), 5)
    assert sorted(written) == [0, 1, 2, 3, 4]


async def test_queued_writes_give_up_after_the_rebalance_wait_in_all() -> None:
    worker = Worker(rebalance_wait_s=0.2)
    await worker.leadership.on_membership(assigned(protocol=ConnectProtocol.EAGER))

    async def create_and_rebalance_for_good() -> None:
        async with worker.leadership.as_leader("create or update a connector"):
            await worker.leadership.on_membership(REJOIN)

    async def create() -> None:
        async with worker.leadership.as_leader("create or update a connector"):
            pytest.fail("a write passed while the group never settled")

    started = asyncio.get_running_loop().time()
    first = asyncio.create_task(create_and_rebalance_for_good())
    with pytest.raises(NotLeaderError) as refused:
        await asyncio.wait_for(create(), 5)
    await first
    assert refused.value.leader_url is None
    assert asyncio.get_running_loop().time() - started < 1.0


async def test_a_rebalance_asked_during_a_burst_of_writes_waits_for_the_writes_queued_then() -> None:
    worker = Worker()
    await worker.leadership.on_membership(assigned(protocol=ConnectProtocol.EAGER))
    events: list[str] = []

    def rejoin() -> None:
        events.append("rejoin")

    async def create(number: int) -> None:
        async with worker.leadership.as_leader("create or update a connector"):
            events.append(f"write {number}")
            await asyncio.sleep(0.01)
            if number == 0:  # the first write is read back: its new connector asks for a rebalance
                worker.leadership.after_queued_writes(rejoin)

    await asyncio.wait_for(asyncio.gather(*(create(number) for number in range(4))), 5)
    assert events == ["write 0", "write 1", "write 2", "write 3", "rejoin"]
    worker.leadership.after_queued_writes(rejoin)  # nothing queued: at once
    assert events[-2:] == ["rejoin", "rejoin"]


async def test_the_leader_of_a_sessioned_group_writes_a_session_key_and_a_follower_does_not() -> None:
    follower = Worker()
    await follower.leadership.on_membership(assigned(leads=False))
    follower.leadership.close()
    assert follower.keys_written == []
    leader = Worker()
    await leader.leadership.on_membership(assigned())
    leader.leadership.close()
    [key] = leader.keys_written
    assert key.algorithm == "HmacSHA256"
    eager = Worker()
    await eager.leadership.on_membership(assigned(protocol=ConnectProtocol.EAGER))
    eager.leadership.close()
    assert eager.keys_written == []
