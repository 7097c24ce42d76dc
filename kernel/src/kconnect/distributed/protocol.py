"""Kafka Connect's group protocol on the wire: member metadata and assignments, byte for byte as Java.

A worker joins the group with protocol type ``connect`` and offers one or more sub-protocols, each
with its own metadata bytes; the broker picks the first one every member offers. The names and
versions are Kafka's (``ConnectProtocolCompatibility``):

* ``connect.protocol=eager``: JoinGroup name ``default``, v0: stop everything at every rebalance;
  the leader sends whole assignments.
* ``compatible``: ``compatible``, v1: incremental cooperative rebalancing (KIP-415).
* ``sessioned`` (the default): ``sessioned``, v2: as v1, and internal REST requests are signed (KIP-507).

Encodings (all integers big-endian; a string is an int16 length then UTF-8; an array is an int32
count, ``-1`` for null; bytes are an int32 length, ``-1`` for null):

* metadata: ``version:int16, url:string, config_offset:int64`` and, from v1, ``allocation:bytes``,
  the worker's current assignment encoded as below (null when it has none).
* assignment: ``version:int16, error:int16, leader:string, leader_url:string, config_offset:int64,
  assignment:[connector:string, tasks:[int32]]`` and, from v1, ``revoked:[same], delay:int32``.
  Task number ``-1`` (``CONNECTOR_TASK``) stands for the connector instance itself.

Decoding is Java's: one reader for every version, missing v1 fields read as their defaults and
trailing bytes of newer versions ignored, so metadata from Java workers of any version parses.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum
from itertools import repeat

from kconnect.errors import ConnectError
from kconnect.model import ConnectorTaskId

PROTOCOL_TYPE = "connect"
"""The group's protocol type, as Java workers and ``kafka-consumer-groups --describe`` show it."""

CONNECTOR_TASK = -1
"""The task number that stands for a connector instance in an assignment."""

NO_ERROR = 0
CONFIG_MISMATCH = 1
"""Assignment error: the leader's config is behind a member's; read the config topic and rejoin."""


class ProtocolError(ConnectError):
    """Bytes that are not valid Connect protocol metadata or assignment; the message says where."""


class ConnectProtocol(Enum):
    """A Connect sub-protocol (Kafka's ConnectProtocolCompatibility): config name, JoinGroup name, version."""

    EAGER = ("eager", "default", 0)
    COMPATIBLE = ("compatible", "compatible", 1)
    SESSIONED = ("sessioned", "sessioned", 2)

    def __init__(self, config_name: str, protocol_name: str, version: int) -> None:
        self.config_name = config_name
        self.protocol_name = protocol_name
        self.version = version

    @property
    def cooperative(self) -> bool:
        """Whether this protocol rebalances incrementally (v1 and later)."""
        return self.version >= 1

    @classmethod
    def from_config(cls, value: str) -> ConnectProtocol:
        """The protocol a ``connect.protocol`` value names (case-insensitive); ValueError otherwise."""
        for protocol in cls:
            if protocol.config_name == value.strip().lower():
                return protocol
        raise ValueError(f"Unknown Connect protocol compatibility mode: {value}")

    @classmethod
    def from_protocol_name(cls, name: str) -> ConnectProtocol:
        """The protocol the broker chose, from its JoinGroup name; ValueError for an unknown name."""
        for protocol in cls:
            if protocol.protocol_name == name.lower():
                return protocol
        raise ValueError(f"Not found Connect protocol compatibility mode for protocol: {name}")

    def offered(self) -> tuple[ConnectProtocol, ...]:
        """The protocols a worker configured with this one offers in JoinGroup, most preferred first."""
        return tuple(
            p
            for p in (ConnectProtocol.SESSIONED, ConnectProtocol.COMPATIBLE, ConnectProtocol.EAGER)
            if p.version <= self.version
        )


@dataclass(frozen=True)
class ConnectorsAndTasks:
    """A set of connector instances and tasks, kept in a stable order (Kafka's ConnectorsAndTasks)."""

    connectors: tuple[str, ...] = ()
    tasks: tuple[ConnectorTaskId, ...] = ()

    @classmethod
    def of(cls, connectors: Iterable[str] = (), tasks: Iterable[ConnectorTaskId] = ()) -> ConnectorsAndTasks:
        """Build from any iterables, dropping repeats and keeping first-seen order."""
        return cls(tuple(dict.fromkeys(connectors)), tuple(dict.fromkeys(tasks)))

    def is_empty(self) -> bool:
        """Whether there is neither a connector nor a task."""
        return not self.connectors and not self.tasks

    def minus(self, other: ConnectorsAndTasks) -> ConnectorsAndTasks:
        """This set without what `other` holds."""
        gone_c, gone_t = set(other.connectors), set(other.tasks)
        return ConnectorsAndTasks(
            tuple(c for c in self.connectors if c not in gone_c),
            tuple(t for t in self.tasks if t not in gone_t),
        )

    def plus(self, other: ConnectorsAndTasks) -> ConnectorsAndTasks:
        """This set and then what `other` adds."""
        return ConnectorsAndTasks.of((*self.connectors, *other.connectors), (*self.tasks, *other.tasks))


EMPTY = ConnectorsAndTasks()


@dataclass(frozen=True)
class Assignment:
    """A leader's answer to one member (Kafka's ExtendedAssignment; v0 has no revocations or delay).

    In v1/v2 `assigned` holds only what is *new* for the member in this round; the member adds it to
    what it already runs, after stopping `revoked`. In v0 `assigned` is the member's whole work.
    """

    version: int
    error: int
    leader: str
    leader_url: str
    config_offset: int
    assigned: ConnectorsAndTasks = EMPTY
    revoked: ConnectorsAndTasks = EMPTY
    delay_ms: int = 0

    @property
    def failed(self) -> bool:
        """Whether the leader could not assign (its config was behind a member's)."""
        return self.error != NO_ERROR


@dataclass(frozen=True)
class WorkerState:
    """A member's JoinGroup metadata (Kafka's ExtendedWorkerState): REST URL, config offset, current work."""

    url: str
    config_offset: int
    assignment: Assignment | None = field(default=None)


# --- encoding -------------------------------------------------------------------------------------


def encode_metadata(state: WorkerState, protocol: ConnectProtocol) -> bytes:
    """The metadata bytes `protocol` carries in JoinGroup for a worker in `state`."""
    out = bytearray(struct.pack(">h", protocol.version))
    _put_string(out, state.url)
    out += struct.pack(">q", state.config_offset)
    if protocol.cooperative:
        allocation = state.assignment
        if allocation is None:
            out += struct.pack(">i", -1)
        else:
            encoded = encode_assignment(_with_version(allocation, protocol.version))
            out += struct.pack(">i", len(encoded)) + encoded
    return bytes(out)


def join_protocols(state: WorkerState, configured: ConnectProtocol) -> list[tuple[str, bytes]]:
    """JoinGroup's ``(protocol name, metadata)`` list for a worker configured with `configured`."""
    return [(p.protocol_name, encode_metadata(state, p)) for p in configured.offered()]


def encode_assignment(assignment: Assignment) -> bytes:
    """An assignment's bytes, in the format of its own `version`."""
    out = bytearray(struct.pack(">hh", assignment.version, assignment.error))
    _put_string(out, assignment.leader)
    _put_string(out, assignment.leader_url)
    out += struct.pack(">q", assignment.config_offset)
    _put_connector_assignments(out, assignment.assigned)
    if assignment.version >= 1:
        _put_connector_assignments(out, assignment.revoked)
        out += struct.pack(">i", assignment.delay_ms)
    return bytes(out)


def _with_version(assignment: Assignment, version: int) -> Assignment:
    return Assignment(
        version,
        assignment.error,
        assignment.leader,
        assignment.leader_url,
        assignment.config_offset,
        assignment.assigned,
        assignment.revoked,
        assignment.delay_ms,
    )


def _put_string(out: bytearray, value: str) -> None:
    data = value.encode("utf-8")
    out += struct.pack(">h", len(data)) + data


def _put_connector_assignments(out: bytearray, work: ConnectorsAndTasks) -> None:
    # Java groups by connector: connector instances first, then each task under its connector.
    grouped: dict[str, list[int]] = {}
    for connector in work.connectors:
        grouped.setdefault(connector, []).append(CONNECTOR_TASK)
    for task in work.tasks:
        grouped.setdefault(task.connector, []).append(task.task)
    out += struct.pack(">i", len(grouped))
    for connector, numbers in grouped.items():
        _put_string(out, connector)
        out += struct.pack(f">i{len(numbers)}i", len(numbers), *numbers)


# --- decoding -------------------------------------------------------------------------------------


class _Reader:
    """Reads big-endian fields from bytes; ProtocolError names the field that does not fit."""

    def __init__(self, data: bytes, what: str) -> None:
        self.data, self.pos, self.what = data, 0, what

    def at_end(self) -> bool:
        return self.pos >= len(self.data)

    def unpack(self, fmt: str, name: str) -> int:
        size = struct.calcsize(fmt)
        if self.pos + size > len(self.data):
            raise ProtocolError(f"{self.what}: truncated at {name} (byte {self.pos} of {len(self.data)})")
        (value,) = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += size
        return int(value)

    def ints(self, count: int, name: str) -> tuple[int, ...]:
        """`count` big-endian int32s in one read; ProtocolError names the first that does not fit."""
        end = self.pos + 4 * count
        if end > len(self.data):
            at = self.pos + 4 * ((len(self.data) - self.pos) // 4)
            raise ProtocolError(f"{self.what}: truncated at {name} (byte {at} of {len(self.data)})")
        values: tuple[int, ...] = struct.unpack_from(f">{count}i", self.data, self.pos)
        self.pos = end
        return values

    def string(self, name: str) -> str:
        length = self.unpack(">h", name)
        if length < 0:
            raise ProtocolError(f"{self.what}: {name} is null")
        raw = self.take(length, name)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ProtocolError(f"{self.what}: {name} is not UTF-8: {exc}") from None

    def take(self, length: int, name: str) -> bytes:
        if self.pos + length > len(self.data):
            raise ProtocolError(f"{self.what}: truncated in {name} (byte {self.pos} of {len(self.data)})")
        chunk = self.data[self.pos : self.pos + length]
        self.pos += length
        return chunk


def decode_metadata(data: bytes) -> WorkerState:
    """A member's metadata of any version (Java's IncrementalCooperativeConnectProtocol reader)."""
    reader = _Reader(data, "Connect member metadata")
    _version(reader)
    url = reader.string("url")
    offset = reader.unpack(">q", "config-offset")
    if reader.at_end():
        return WorkerState(url, offset)
    length = reader.unpack(">i", "allocation")
    allocation = None if length < 0 else decode_assignment(reader.take(length, "allocation"))
    return WorkerState(url, offset, allocation)


def decode_assignment(data: bytes) -> Assignment:
    """An assignment of any version; v0 bytes read with no revocations and no delay."""
    reader = _Reader(data, "Connect assignment")
    version = _version(reader)
    error = reader.unpack(">h", "error")
    leader = reader.string("leader")
    leader_url = reader.string("leader-url")
    offset = reader.unpack(">q", "config-offset")
    assigned = _connector_assignments(reader, "assignment")
    revoked = EMPTY if reader.at_end() else _connector_assignments(reader, "revoked")
    delay = 0 if reader.at_end() else reader.unpack(">i", "delay")
    return Assignment(version, error, leader, leader_url, offset, assigned, revoked, delay)


def _version(reader: _Reader) -> int:
    version = reader.unpack(">h", "version")
    if version < 0:
        raise ProtocolError(f"{reader.what}: unsupported version {version}")
    return version


def _connector_assignments(reader: _Reader, name: str) -> ConnectorsAndTasks:
    count = reader.unpack(">i", name)
    connectors: list[str] = []
    tasks: list[ConnectorTaskId] = []
    for _ in range(max(count, 0)):
        connector = reader.string(f"{name} connector")
        size = max(reader.unpack(">i", f"{name} tasks of {connector}"), 0)
        numbers = reader.ints(size, f"{name} task of {connector}")
        if CONNECTOR_TASK in numbers:
            connectors.append(connector)
            numbers = tuple(filter(CONNECTOR_TASK.__ne__, numbers))
        # In bulk: the leader decodes every member's running tasks while the group waits (issue 24).
        tasks.extend(ConnectorTaskId.many(zip(repeat(connector), numbers)))
    return ConnectorsAndTasks.of(connectors, tasks)
