"""A worker's membership in its Connect group, as a state machine: no I/O, no clock, no asyncio.

`kconnect.distributed.group_member.GroupMember` feeds it what the broker answered (JoinGroup,
SyncGroup, Heartbeat) and asks it what to send; the machine keeps the member id, the generation
and the work this worker runs, and returns the events the herder must see. States and their
allowed moves are data (`TRANSITIONS`); a move the table does not allow raises
IllegalWorkerStateError, so a bug shows instead of a silently wrong group state::

    UNJOINED --start_join--> JOINING --joined--> AWAITING_SYNC --synced--> STABLE
    JOINING --member_id_required / start_join (retry)--> JOINING
    AWAITING_SYNC --sync_failed--> JOINING         STABLE --start_join (rebalance)--> JOINING
    JOINING, AWAITING_SYNC, STABLE --fenced--> UNJOINED (member lost: rejoin empty)
    any but LEFT --leave--> LEAVING --left--> LEFT

Cooperative protocols (v1/v2) keep running work across a rebalance: an assignment only adds and
revokes. The eager protocol (v0) revokes everything when a rebalance starts. A member fenced out
(UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION, no heartbeat answered for a session) stops all its work
(`MembershipLost`), because the group has already moved on without it; it then rejoins empty.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

import aiokafka.errors as kafka_errors

from kconnect.distributed.protocol import EMPTY, Assignment, ConnectorsAndTasks, ConnectProtocol, WorkerState
from kconnect.errors import ConnectError, IllegalWorkerStateError
from kconnect.worker_config import GroupConfig


class MemberState(Enum):
    """Where the member is in the group protocol."""

    UNJOINED = "UNJOINED"
    """No member id or generation: the member must join."""
    JOINING = "JOINING"
    """JoinGroup sent; the broker waits for every member."""
    AWAITING_SYNC = "AWAITING_SYNC"
    """In a generation, waiting for the leader's assignment (SyncGroup)."""
    STABLE = "STABLE"
    """Has the assignment of the current generation; heartbeats keep it a member."""
    LEAVING = "LEAVING"
    LEFT = "LEFT"


_S = MemberState
TRANSITIONS: Mapping[MemberState, frozenset[MemberState]] = {
    _S.UNJOINED: frozenset({_S.JOINING, _S.LEAVING}),
    _S.JOINING: frozenset({_S.JOINING, _S.AWAITING_SYNC, _S.UNJOINED, _S.LEAVING}),
    _S.AWAITING_SYNC: frozenset({_S.STABLE, _S.JOINING, _S.UNJOINED, _S.LEAVING}),
    _S.STABLE: frozenset({_S.JOINING, _S.UNJOINED, _S.LEAVING}),
    _S.LEAVING: frozenset({_S.LEFT}),
    _S.LEFT: frozenset(),
}
"""Allowed moves: state -> the states it may go to."""

# Kafka error codes the group coordinator answers, and what each means for the member.
NONE, ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, REBALANCE_IN_PROGRESS, FENCED_INSTANCE_ID = 0, 22, 25, 27, 82
MEMBER_ID_REQUIRED, COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR = 79, 14, 15, 16
INCONSISTENT_GROUP_PROTOCOL, INVALID_SESSION_TIMEOUT = 23, 26
NO_ANSWER = -1
"""Not a Kafka code: the request got no answer (connection lost, coordinator unknown)."""
RETRIABLE_JOIN_ERRORS = frozenset(
    {COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR, REBALANCE_IN_PROGRESS}
)
"""JoinGroup answers after which the member simply joins again (other non-fencing errors are fatal)."""
FENCING_ERRORS: Mapping[int, str] = {
    ILLEGAL_GENERATION: "ILLEGAL_GENERATION",
    UNKNOWN_MEMBER_ID: "UNKNOWN_MEMBER_ID",
    FENCED_INSTANCE_ID: "FENCED_INSTANCE_ID",
}
"""Answers meaning the broker no longer counts this member in its generation."""


# --- events for the herder --------------------------------------------------------------------------


@dataclass(frozen=True)
class RebalanceStarted:
    """The member is rejoining; until `AssignmentReceived`, requests that need the leader answer 409.

    `revoked` is what to stop now: everything under the eager protocol, nothing under the
    cooperative ones. The member sends JoinGroup only after the handler returns.
    """

    reason: str
    revoked: ConnectorsAndTasks = EMPTY


@dataclass(frozen=True)
class AssignmentReceived:
    """A rebalance completed: the work this worker runs from now on, and what changed.

    The handler stops `revoked` and starts `added` (it has already stopped nothing else); when it
    returns with revocations or a failed assignment, the member rejoins at once, and after
    `delay_ms` when the leader holds a departed worker's work. With `failed` (the leader's config
    was behind), the herder reads the config topic to at least `config_offset` before returning.
    """

    generation: int
    member_id: str
    leader_id: str
    leader_url: str
    protocol: ConnectProtocol
    config_offset: int
    failed: bool
    assigned: ConnectorsAndTasks
    added: ConnectorsAndTasks
    revoked: ConnectorsAndTasks
    delay_ms: int
    owners: Mapping[str, ConnectorsAndTasks] = field(default_factory=dict)
    """The leader's view of who runs what after this round (member id -> work); empty on followers."""
    member_urls: Mapping[str, str] = field(default_factory=dict)
    """Member id -> REST URL of every member; filled on the leader only."""

    @property
    def is_leader(self) -> bool:
        """Whether this worker leads the group in this generation."""
        return self.member_id == self.leader_id


@dataclass(frozen=True)
class MembershipLost:
    """The group dropped this worker (`reason` says how): stop everything in `revoked` before returning."""

    reason: str
    revoked: ConnectorsAndTasks = EMPTY


MembershipEvent = RebalanceStarted | AssignmentReceived | MembershipLost


# --- the machine ------------------------------------------------------------------------------------


class Membership:
    """One worker's group state; `GroupMember` calls a method per broker answer and delivers the events."""

    def __init__(self, protocol: ConnectProtocol) -> None:
        self.configured_protocol = protocol
        self.state = MemberState.UNJOINED
        self.member_id = ""
        self.generation = -1
        self.last_completed_generation = -1
        self.leader_id = ""
        self.protocol: ConnectProtocol | None = None
        self.assignment: Assignment | None = None
        """The last assignment with `assigned` = everything this worker runs (cooperative: merged)."""
        self.rejoin_needed = True
        self.rejoin_after_ms = 0
        """Delay the leader asked for before the next rejoin (0: none scheduled)."""

    def _move(self, target: MemberState) -> None:
        if target not in TRANSITIONS[self.state]:
            raise IllegalWorkerStateError(f"group member cannot go from {self.state.value} to {target.value}")
        self.state = target

    @property
    def running(self) -> ConnectorsAndTasks:
        """Everything this worker was assigned and has not had revoked."""
        return self.assignment.assigned if self.assignment else EMPTY

    def metadata(self, url: str, config_offset: int) -> WorkerState:
        """What to offer in JoinGroup: this worker's URL, config offset and current work."""
        return WorkerState(url, config_offset, self.assignment)

    def start_join(self, reason: str) -> list[MembershipEvent]:
        """Called before each JoinGroup; returns RebalanceStarted (eager: revoking all work)."""
        self._move(MemberState.JOINING)
        self.rejoin_needed = False
        self.rejoin_after_ms = 0
        if self.protocol is ConnectProtocol.EAGER and self.assignment is not None:
            revoked, self.assignment = self.assignment.assigned, None
            return [RebalanceStarted(reason, revoked)]
        return [RebalanceStarted(reason)]

    def member_id_required(self, member_id: str) -> None:
        """JoinGroup answered MEMBER_ID_REQUIRED (KIP-394): join again with the id the broker gave."""
        self._move(MemberState.JOINING)
        self.member_id = member_id

    def joined(self, generation: int, member_id: str, leader_id: str, protocol_name: str) -> None:
        """JoinGroup succeeded: this member is in `generation`; next it sends SyncGroup."""
        self._move(MemberState.AWAITING_SYNC)
        self.generation, self.member_id, self.leader_id = generation, member_id, leader_id
        self.protocol = ConnectProtocol.from_protocol_name(protocol_name)

    def synced(
        self,
        assignment: Assignment,
        owners: Mapping[str, ConnectorsAndTasks] | None = None,
        member_urls: Mapping[str, str] | None = None,
    ) -> list[MembershipEvent]:
        """SyncGroup brought the leader's assignment: merge it (cooperative) and report it."""
        self._move(MemberState.STABLE)
        assert self.protocol is not None
        if assignment.failed:
            kept = self.running
        elif self.protocol.cooperative:
            kept = self.running.minus(assignment.revoked).plus(assignment.assigned)
        else:
            kept = assignment.assigned
        previous = self.running
        self.assignment = Assignment(
            assignment.version,
            assignment.error,
            assignment.leader,
            assignment.leader_url,
            assignment.config_offset,
            kept,
            EMPTY,
            0,
        )
        self.last_completed_generation = self.generation
        self.rejoin_needed = assignment.failed or not assignment.revoked.is_empty()
        self.rejoin_after_ms = assignment.delay_ms
        event = AssignmentReceived(
            generation=self.generation,
            member_id=self.member_id,
            leader_id=assignment.leader,
            leader_url=assignment.leader_url,
            protocol=self.protocol,
            config_offset=assignment.config_offset,
            failed=assignment.failed,
            assigned=kept,
            added=kept.minus(previous),
            revoked=assignment.revoked if self.protocol.cooperative else previous.minus(kept),
            delay_ms=assignment.delay_ms,
            owners=dict(owners or {}),
            member_urls=dict(member_urls or {}),
        )
        return [event]

    def rebalance_needed(self) -> None:
        """The broker says the group is rebalancing (REBALANCE_IN_PROGRESS): rejoin, keeping the work."""
        self.rejoin_needed = True

    def sync_failed(self) -> None:
        """SyncGroup failed without fencing (rebalance in progress, coordinator moved): join again."""
        self._move(MemberState.JOINING)
        self.rejoin_needed = True

    def fenced(self, reason: str) -> list[MembershipEvent]:
        """The group dropped this member: forget id and generation, stop all work, rejoin empty."""
        self._move(MemberState.UNJOINED)
        revoked = self.running
        self.member_id, self.generation, self.assignment = "", -1, None
        self.rejoin_needed = True
        return [MembershipLost(reason, revoked)]

    def on_heartbeat(self, error_code: int) -> list[MembershipEvent]:
        """A heartbeat's answer (only sent in STABLE): fine, rebalance, or fenced."""
        if error_code in FENCING_ERRORS:
            return self.fenced(f"the group coordinator answered {FENCING_ERRORS[error_code]} to a heartbeat")
        if error_code == REBALANCE_IN_PROGRESS:
            self.rebalance_needed()
        return []

    def leave(self) -> None:
        """The worker is leaving the group on purpose (it stops its own work)."""
        self._move(MemberState.LEAVING)

    def left(self) -> None:
        """LeaveGroup was sent (or could not be): the member is done."""
        self._move(MemberState.LEFT)


class GroupMembershipError(ConnectError):
    """The worker cannot be a member of its group; the message names the key or group and why."""


def error_name(code: int) -> str:
    """Kafka's name of an error code (``REBALANCE_IN_PROGRESS``...), for logs and messages."""
    if code == NO_ANSWER:
        return "no answer"
    error = kafka_errors.for_code(code)
    return str(getattr(error, "message", error.__name__))


def join_error_message(code: int, config: GroupConfig) -> str:
    """Why JoinGroup failed for good, naming the key to change (GroupMembershipError's text)."""
    if code == INCONSISTENT_GROUP_PROTOCOL:
        return (
            f"group.id {config.group_id}: the group coordinator refused this worker "
            "(INCONSISTENT_GROUP_PROTOCOL): the group is used by something else than Connect workers "
            "(a consumer group?), or its workers' connect.protocol values have no protocol in common"
        )
    if code == INVALID_SESSION_TIMEOUT:
        return (
            f"session.timeout.ms={config.session_timeout_ms}: the broker refused it "
            "(INVALID_SESSION_TIMEOUT): it must lie within the broker's group.min.session.timeout.ms "
            "and group.max.session.timeout.ms"
        )
    return f"group.id {config.group_id}: JoinGroup failed: {error_name(code)}"
