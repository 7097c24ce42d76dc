"""Connect group protocol bytes, checked against Java Kafka Connect 4.3.1's own encoder.

Each hex literal was printed by Java's ``ConnectProtocol`` / ``IncrementalCooperativeConnectProtocol``
(``serializeMetadata`` / ``serializeAssignment``) from connect-runtime-4.3.1.jar for the value the test
builds, so equality means a Java worker and ``kafka-consumer-groups`` read what we write, and we read theirs.
"""

from __future__ import annotations

import pytest
from kconnect.distributed.protocol import (
    CONFIG_MISMATCH,
    Assignment,
    ConnectorsAndTasks,
    ConnectProtocol,
    ProtocolError,
    WorkerState,
    decode_assignment,
    decode_metadata,
    encode_assignment,
    encode_metadata,
    join_protocols,
)
from kconnect.model import ConnectorTaskId as T

URL = "http://w1:8083"

META_V0 = "0000000e687474703a2f2f77313a383038330000000000000007"
META_V1_NO_ALLOCATION = "0001000e687474703a2f2f77313a383038330000000000000007ffffffff"
META_V2_WITH_ALLOCATION = (
    "0002000e687474703a2f2f77313a383038330000000000000007000000410002000000036d2d31000e687474703a2f2f77313a"
    "383038330000000000000007000000010002633100000003ffffffff00000000000000020000000000000000"
)
ASSIGNMENT_V0 = (
    "0000000000036d2d31000e687474703a2f2f77313a383038330000000000000007000000020002633100000002ffffffff"
    "00000000000263320000000100000001"
)
ASSIGNMENT_V1 = (
    "0001000000066c6561646572000d687474703a2f2f6c3a38303833000000000000000c0000000200016100000002ffffffff"
    "0000000000016200000001000000010000000200016200000001ffffffff000161000000010000000100000bb8"
)
ASSIGNMENT_V2_MISMATCH = (
    "0002000100066c6561646572000d687474703a2f2f6c3a38303833000000000000000c000000000000000000000000"
)

PREVIOUS = Assignment(2, 0, "m-1", URL, 7, ConnectorsAndTasks(("c1",), (T("c1", 0), T("c1", 2))))
V1 = Assignment(
    1, 0, "leader", "http://l:8083", 12,
    ConnectorsAndTasks(("a",), (T("a", 0), T("b", 1))),
    ConnectorsAndTasks(("b",), (T("a", 1),)),
    3000,
)  # fmt: skip

CASES = [
    pytest.param(WorkerState(URL, 7), ConnectProtocol.EAGER, META_V0, id="v0"),
    pytest.param(
        WorkerState(URL, 7), ConnectProtocol.COMPATIBLE, META_V1_NO_ALLOCATION, id="v1-no-allocation"
    ),
    pytest.param(WorkerState(URL, 7, PREVIOUS), ConnectProtocol.SESSIONED, META_V2_WITH_ALLOCATION, id="v2"),
]


@pytest.mark.parametrize(("state", "protocol", "java_hex"), CASES)
def test_metadata_is_javas_bytes(state: WorkerState, protocol: ConnectProtocol, java_hex: str) -> None:
    assert encode_metadata(state, protocol).hex() == java_hex
    assert decode_metadata(bytes.fromhex(java_hex)) == state


@pytest.mark.parametrize(
    ("assignment", "java_hex"),
    [
        pytest.param(
            Assignment(0, 0, "m-1", URL, 7, ConnectorsAndTasks(("c1",), (T("c1", 0), T("c2", 1)))),
            ASSIGNMENT_V0,
            id="v0",
        ),
        pytest.param(V1, ASSIGNMENT_V1, id="v1-revocations-and-delay"),
        pytest.param(
            Assignment(2, CONFIG_MISMATCH, "leader", "http://l:8083", 12), ASSIGNMENT_V2_MISMATCH, id="v2"
        ),
    ],
)
def test_assignment_is_javas_bytes(assignment: Assignment, java_hex: str) -> None:
    assert encode_assignment(assignment).hex() == java_hex
    assert decode_assignment(bytes.fromhex(java_hex)) == assignment


def test_a_v0_assignment_reads_with_no_revocations_and_no_delay_as_java_does() -> None:
    decoded = decode_assignment(bytes.fromhex(ASSIGNMENT_V0))
    assert (decoded.version, decoded.revoked, decoded.delay_ms) == (0, ConnectorsAndTasks(), 0)
    assert decoded.assigned == ConnectorsAndTasks(("c1",), (T("c1", 0), T("c2", 1)))


def test_a_failed_assignment_says_so() -> None:
    assert decode_assignment(bytes.fromhex(ASSIGNMENT_V2_MISMATCH)).failed
    assert not decode_assignment(bytes.fromhex(ASSIGNMENT_V1)).failed


def test_sessioned_offers_all_three_protocols_most_preferred_first_as_java() -> None:
    offered = join_protocols(WorkerState(URL, 7), ConnectProtocol.SESSIONED)
    assert [name for name, _ in offered] == ["sessioned", "compatible", "default"]
    assert [m.hex() for _, m in offered][1:] == [META_V1_NO_ALLOCATION, META_V0]
    assert [n for n, _ in join_protocols(WorkerState(URL, 7), ConnectProtocol.COMPATIBLE)] == [
        "compatible",
        "default",
    ]
    assert [n for n, _ in join_protocols(WorkerState(URL, 7), ConnectProtocol.EAGER)] == ["default"]


@pytest.mark.parametrize(
    ("value", "protocol"),
    [
        ("eager", ConnectProtocol.EAGER),
        ("Compatible", ConnectProtocol.COMPATIBLE),
        ("SESSIONED", ConnectProtocol.SESSIONED),
    ],
)
def test_config_names_are_kafkas_case_insensitive(value: str, protocol: ConnectProtocol) -> None:
    assert ConnectProtocol.from_config(value) is protocol
    assert ConnectProtocol.from_protocol_name(protocol.protocol_name) is protocol


def test_an_unknown_config_name_is_refused_with_kafkas_text() -> None:
    with pytest.raises(ValueError, match="Unknown Connect protocol compatibility mode: fancy"):
        ConnectProtocol.from_config("fancy")


@pytest.mark.parametrize(
    ("hex_bytes", "message"),
    [
        ("0001000e6874", "Connect member metadata: truncated in url"),
        ("ffff", "Connect member metadata: unsupported version -1"),
        ("0001ffff", "Connect member metadata: url is null"),
    ],
)
def test_bad_metadata_names_the_field(hex_bytes: str, message: str) -> None:
    with pytest.raises(ProtocolError, match=message):
        decode_metadata(bytes.fromhex(hex_bytes))


def test_a_truncated_assignment_names_the_field() -> None:
    with pytest.raises(ProtocolError, match="Connect assignment: truncated at config-offset"):
        decode_assignment(bytes.fromhex(ASSIGNMENT_V1[:60]))


def test_trailing_bytes_of_a_newer_version_are_ignored() -> None:
    assert decode_assignment(bytes.fromhex(ASSIGNMENT_V1 + "deadbeef")) == V1
