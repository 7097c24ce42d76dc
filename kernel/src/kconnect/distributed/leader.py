"""The leader's part of a rebalance, bytes in and bytes out: decode members' metadata, assign, encode.

`GroupMember` calls `lead` when the coordinator made it the leader of a generation (JoinGroup
answered with its own member id) and sends the answers in its SyncGroup. No I/O, no clock:
the caller passes the time.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kconnect.distributed.assignor import AssignorState, ConfiguredWork, assign
from kconnect.distributed.protocol import (
    ConnectorsAndTasks,
    ConnectProtocol,
    decode_metadata,
    encode_assignment,
)

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LeaderRound:
    """What the leader sends and remembers after one round."""

    answers: list[tuple[str, bytes]]
    """(member id, encoded assignment) for SyncGroup."""
    owners: Mapping[str, ConnectorsAndTasks]
    member_urls: Mapping[str, str]
    state: AssignorState


def lead(
    *,
    group_id: str,
    members: Sequence[Sequence[Any]],
    protocol_name: str,
    leader_id: str,
    generation: int,
    last_completed_generation: int,
    configured: ConfiguredWork,
    state: AssignorState,
    now_ms: int,
    max_delay_ms: int,
) -> LeaderRound:
    """Assign for JoinGroup's `members` rows (member id first, metadata bytes last, as every version has).

    Raises ProtocolError when a member's metadata cannot be read.
    """
    states = {str(row[0]): decode_metadata(bytes(row[-1])) for row in members}
    result = assign(
        leader_id=leader_id,
        version=ConnectProtocol.from_protocol_name(protocol_name).version,
        members=states,
        configured=configured,
        state=state,
        last_completed_generation=last_completed_generation,
        generation=generation,
        now_ms=now_ms,
        max_delay_ms=max_delay_ms,
    )
    for member, a in sorted(result.assignments.items()):
        log.info(
            "Group %s generation %s: %s (%s) starts %s, stops %s, delay %s ms%s",
            group_id,
            generation,
            member,
            states[member].url,
            _ids(a.assigned),
            _ids(a.revoked),
            a.delay_ms,
            " (CONFIG_MISMATCH: the leader's config is behind)" if a.failed else "",
        )
    return LeaderRound(
        answers=[(member, encode_assignment(a)) for member, a in result.assignments.items()],
        owners=dict(result.owners),
        member_urls={member: s.url for member, s in states.items()},
        state=result.state,
    )


def _ids(work: ConnectorsAndTasks) -> str:
    return "[" + ", ".join([*work.connectors, *map(str, work.tasks)]) + "]"
