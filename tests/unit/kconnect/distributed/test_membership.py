"""The member's state machine, transition by transition, without a broker or an event loop."""

from __future__ import annotations

import pytest
from kconnect.distributed.membership import (
    FENCED_INSTANCE_ID,
    ILLEGAL_GENERATION,
    INCONSISTENT_GROUP_PROTOCOL,
    INVALID_SESSION_TIMEOUT,
    NONE,
    REBALANCE_IN_PROGRESS,
    TRANSITIONS,
    UNKNOWN_MEMBER_ID,
    AssignmentReceived,
    Membership,
    MembershipLost,
    MemberState,
    RebalanceStarted,
    join_error_message,
)
from kconnect.distributed.protocol import (
    CONFIG_MISMATCH,
    EMPTY,
    Assignment,
    ConnectorsAndTasks,
    ConnectProtocol,
    WorkerState,
)
from kconnect.errors import IllegalWorkerStateError
from kconnect.model import ConnectorTaskId as T
from kconnect.worker_config import GroupConfig

FIRST = ConnectorsAndTasks(("a",), (T("a", 0), T("a", 1)))


def work(*tasks: T, connectors: tuple[str, ...] = ()) -> ConnectorsAndTasks:
    return ConnectorsAndTasks(connectors, tasks)


def assignment(
    assigned: ConnectorsAndTasks = EMPTY, revoked: ConnectorsAndTasks = EMPTY, *, version: int = 2, **kw: int
) -> Assignment:
    return Assignment(
        version,
        kw.get("error", 0),
        "m-1",
        "http://l:8083",
        kw.get("offset", 4),
        assigned,
        revoked,
        kw.get("delay", 0),
    )


def stable(
    protocol: ConnectProtocol = ConnectProtocol.SESSIONED, first: ConnectorsAndTasks = FIRST
) -> Membership:
    m = Membership(protocol)
    m.start_join("joining the group")
    m.joined(1, "m-2", "m-1", protocol.protocol_name)
    m.synced(assignment(first, version=protocol.version))
    return m


def test_a_first_join_goes_unjoined_joining_awaiting_sync_stable_and_reports_the_assignment() -> None:
    m = Membership(ConnectProtocol.SESSIONED)
    assert (m.state, m.rejoin_needed) == (MemberState.UNJOINED, True)
    assert m.start_join("joining the group") == [RebalanceStarted("joining the group")]
    assert m.state is MemberState.JOINING
    m.member_id_required("m-2")
    assert (m.state, m.member_id) == (MemberState.JOINING, "m-2")
    m.joined(1, "m-2", "m-1", "sessioned")
    assert (m.state, m.generation, m.protocol) == (MemberState.AWAITING_SYNC, 1, ConnectProtocol.SESSIONED)
    (event,) = m.synced(assignment(FIRST), {"m-1": FIRST}, {"m-1": "http://l:8083"})
    assert m.state is MemberState.STABLE and not m.rejoin_needed and m.last_completed_generation == 1
    assert event == AssignmentReceived(
        generation=1,
        member_id="m-2",
        leader_id="m-1",
        leader_url="http://l:8083",
        protocol=ConnectProtocol.SESSIONED,
        config_offset=4,
        failed=False,
        assigned=FIRST,
        added=FIRST,
        revoked=EMPTY,
        delay_ms=0,
        owners={"m-1": FIRST},
        member_urls={"m-1": "http://l:8083"},
    )
    assert not event.is_leader


def test_a_cooperative_rebalance_keeps_running_work_and_the_next_assignment_only_adds_and_revokes() -> None:
    m = stable()
    assert m.start_join("the group is rebalancing") == [RebalanceStarted("the group is rebalancing")]
    assert m.running == FIRST
    m.joined(2, "m-2", "m-1", "sessioned")
    (event,) = m.synced(assignment(work(T("b", 0)), work(T("a", 1))))
    assert isinstance(event, AssignmentReceived)
    assert event.assigned == work(T("a", 0), T("b", 0), connectors=("a",)) == m.running
    assert (event.added, event.revoked) == (work(T("b", 0)), work(T("a", 1)))
    assert m.rejoin_needed, "a member that had work revoked rejoins so the leader can hand it out"


def test_the_metadata_of_the_next_join_carries_the_work_the_member_runs() -> None:
    m = stable()
    state = m.metadata("http://w2:8083", 9)
    assert state.url == "http://w2:8083" and state.config_offset == 9
    assert state.assignment is not None and state.assignment.assigned == FIRST
    assert Membership(ConnectProtocol.SESSIONED).metadata("http://w2:8083", 0) == WorkerState(
        "http://w2:8083", 0
    )


def test_a_held_departed_workers_delay_is_kept_for_a_scheduled_rejoin() -> None:
    m = stable()
    m.start_join("member left")
    m.joined(2, "m-2", "m-1", "sessioned")
    (event,) = m.synced(assignment(delay=3000))
    assert isinstance(event, AssignmentReceived) and event.delay_ms == 3000
    assert (m.rejoin_needed, m.rejoin_after_ms) == (False, 3000)


def test_a_failed_assignment_keeps_the_work_and_asks_to_rejoin() -> None:
    m = stable()
    m.start_join("config changed")
    m.joined(2, "m-2", "m-1", "sessioned")
    (event,) = m.synced(assignment(error=CONFIG_MISMATCH, offset=12))
    assert isinstance(event, AssignmentReceived)
    assert (event.failed, event.config_offset, event.added, event.revoked) == (True, 12, EMPTY, EMPTY)
    assert m.running == FIRST and m.rejoin_needed


def test_eager_revokes_everything_when_a_rebalance_starts_and_assignments_are_whole() -> None:
    m = stable(ConnectProtocol.EAGER)
    assert m.start_join("the group is rebalancing") == [RebalanceStarted("the group is rebalancing", FIRST)]
    assert m.running == EMPTY
    m.joined(2, "m-2", "m-1", "default")
    (event,) = m.synced(assignment(work(T("a", 1)), version=0))
    assert isinstance(event, AssignmentReceived)
    assert (event.assigned, event.added, event.revoked) == (work(T("a", 1)), work(T("a", 1)), EMPTY)


@pytest.mark.parametrize(
    ("code", "state", "rejoin", "lost"),
    [
        (NONE, MemberState.STABLE, False, False),
        (REBALANCE_IN_PROGRESS, MemberState.STABLE, True, False),
        (UNKNOWN_MEMBER_ID, MemberState.UNJOINED, True, True),
        (ILLEGAL_GENERATION, MemberState.UNJOINED, True, True),
        (FENCED_INSTANCE_ID, MemberState.UNJOINED, True, True),
    ],
)
def test_heartbeat_answers(code: int, state: MemberState, rejoin: bool, lost: bool) -> None:
    m = stable()
    events = m.on_heartbeat(code)
    assert (m.state, m.rejoin_needed) == (state, rejoin)
    if lost:
        (event,) = events
        assert isinstance(event, MembershipLost) and event.revoked == FIRST
        assert "a heartbeat" in event.reason
        assert (m.member_id, m.generation, m.running) == ("", -1, EMPTY)
    else:
        assert events == [] and m.running == FIRST


def test_a_failed_sync_goes_back_to_joining_keeping_the_work() -> None:
    m = stable()
    m.start_join("rebalance")
    m.joined(2, "m-2", "m-1", "sessioned")
    m.sync_failed()
    assert (m.state, m.rejoin_needed, m.running) == (MemberState.JOINING, True, FIRST)


@pytest.mark.parametrize(
    ("steps", "refused"),
    [
        (["synced"], "UNJOINED to STABLE"),
        (["start_join", "synced"], "JOINING to STABLE"),
        (["leave", "left", "start_join"], "LEFT to JOINING"),
        (["start_join", "joined", "joined"], "AWAITING_SYNC to AWAITING_SYNC"),
    ],
)
def test_moves_the_table_does_not_allow_are_refused(steps: list[str], refused: str) -> None:
    m = Membership(ConnectProtocol.COMPATIBLE)
    calls = {
        "start_join": lambda: m.start_join("r"),
        "joined": lambda: m.joined(1, "m-1", "m-1", "compatible"),
        "synced": lambda: m.synced(assignment(version=1)),
        "leave": m.leave,
        "left": m.left,
    }
    for step in steps[:-1]:
        calls[step]()
    with pytest.raises(IllegalWorkerStateError, match=f"group member cannot go from {refused}"):
        calls[steps[-1]]()


def test_every_state_can_be_left_and_left_is_final() -> None:
    assert all(
        MemberState.LEAVING in TRANSITIONS[s]
        for s in MemberState
        if s not in (MemberState.LEAVING, MemberState.LEFT)
    )
    assert TRANSITIONS[MemberState.LEFT] == frozenset()


def test_fatal_join_errors_name_the_key_to_change() -> None:
    config = GroupConfig("connect-cluster", session_timeout_ms=1000)
    assert join_error_message(INVALID_SESSION_TIMEOUT, config).startswith(
        "session.timeout.ms=1000: the broker refused it (INVALID_SESSION_TIMEOUT)"
    )
    assert "group.id connect-cluster" in join_error_message(INCONSISTENT_GROUP_PROTOCOL, config)
    assert join_error_message(30, config).startswith(
        "group.id connect-cluster: JoinGroup failed: GROUP_AUTHORIZATION_FAILED"
    )


def test_a_join_answered_unknown_member_id_forgets_the_id_and_stops_the_work() -> None:
    m = stable()
    m.start_join("the group is rebalancing")
    (event,) = m.fenced("the group coordinator answered UNKNOWN_MEMBER_ID to JoinGroup")
    assert event == MembershipLost("the group coordinator answered UNKNOWN_MEMBER_ID to JoinGroup", FIRST)
    assert (m.state, m.member_id, m.generation, m.rejoin_needed) == (MemberState.UNJOINED, "", -1, True)
    assert m.metadata("http://w2:8083", 4).assignment is None
