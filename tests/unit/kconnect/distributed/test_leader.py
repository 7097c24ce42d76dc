"""The leader's round from JoinGroup's member rows to SyncGroup's answers."""

from __future__ import annotations

from typing import Any

import pytest
from kconnect.distributed.assignor import AssignorState, ConfiguredWork
from kconnect.distributed.leader import lead
from kconnect.distributed.protocol import (
    ConnectProtocol,
    ProtocolError,
    WorkerState,
    decode_assignment,
    encode_metadata,
)


def run(rows: list[tuple[Any, ...]], protocol: str = "sessioned") -> Any:
    return lead(
        group_id="g",
        members=rows,
        protocol_name=protocol,
        leader_id="m1",
        generation=1,
        last_completed_generation=-1,
        configured=ConfiguredWork(3, {"a": 2}),
        state=AssignorState(),
        now_ms=0,
        max_delay_ms=1000,
    )


def metadata(url: str, protocol: ConnectProtocol = ConnectProtocol.SESSIONED) -> bytes:
    return encode_metadata(WorkerState(url, 3), protocol)


@pytest.mark.parametrize(
    "rows",
    [
        [("m1", None, metadata("http://w1:8083")), ("m2", None, metadata("http://w2:8083"))],  # JoinGroup v5
        [("m1", metadata("http://w1:8083")), ("m2", metadata("http://w2:8083"))],  # JoinGroup v2
    ],
)
def test_every_member_gets_an_answer_it_can_read(rows: list[tuple[Any, ...]]) -> None:
    result = run(rows)
    answers = {member: decode_assignment(data) for member, data in result.answers}
    assert sorted(answers) == ["m1", "m2"]
    assert {(a.version, a.leader, a.leader_url) for a in answers.values()} == {(2, "m1", "http://w1:8083")}
    assert sorted(t for a in answers.values() for t in a.assigned.tasks) == sorted(
        t for w in result.owners.values() for t in w.tasks
    )
    assert result.member_urls == {"m1": "http://w1:8083", "m2": "http://w2:8083"}
    assert result.state.previous_generation == 1


def test_the_chosen_protocol_sets_the_answers_version() -> None:
    rows = [("m1", metadata("http://w1:8083", ConnectProtocol.EAGER))]
    assert [decode_assignment(d).version for _, d in run(rows, "default").answers] == [0]


def test_unreadable_metadata_of_a_member_raises() -> None:
    with pytest.raises(ProtocolError, match="Connect member metadata: truncated"):
        run([("m1", metadata("http://w1:8083")), ("m2", b"\x00\x01")])
