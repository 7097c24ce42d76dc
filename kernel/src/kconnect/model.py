"""The kernel's vocabulary, with Kafka's names: every layer speaks it, so it sits at the bottom.

Ids and states (`ConnectorTaskId`, `TargetState`, `State`, `ConnectorType`), what the herder answers
(`ConnectorInfo`, `TaskInfo`, `StateInfo`, `TaskStateInfo`, `ConnectorStateInfo`), offsets
(`ConnectorOffset`, `ConnectorOffsets`), KIP-745's `RestartRequest`, KIP-507's `SessionKey` and
kconnect's automatic restart schedule of one connector or task (`AutoRestarts`).
Plain frozen values: this module imports nothing of kconnect.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from itertools import repeat
from operator import itemgetter
from typing import TYPE_CHECKING, Any


class ConnectorTaskId(tuple[str, int]):
    """One task of one connector: ``(connector, task)``, ordered by connector then task number.

    A tuple underneath: it equals, hashes and orders as the tuple ``(connector, task)``, and
    building, hashing and comparing one runs in C. The leader's assignor builds, hashes and
    compares one per task of the cluster in a round while the group waits (issue 24); a frozen
    dataclass ran Python code for each. Immutable like one (its fields cannot be set), printed and
    pickled as before.
    """

    __slots__ = ()
    __match_args__ = ("connector", "task")

    def __new__(cls, connector: str, task: int) -> ConnectorTaskId:
        """The id of task number `task` of `connector`."""
        return tuple.__new__(cls, (connector, task))

    if TYPE_CHECKING:

        @property
        def connector(self) -> str:
            """The connector's name."""

        @property
        def task(self) -> int:
            """The task's number, from 0."""

    else:
        # Getters in C, as namedtuple's (a Python property would run a frame per access).
        connector = property(itemgetter(0), doc="The connector's name.")
        task = property(itemgetter(1), doc="The task's number, from 0.")

    @classmethod
    def many(cls, pairs: Iterable[tuple[str, int]]) -> tuple[ConnectorTaskId, ...]:
        """The ids of ``(connector, task)`` `pairs`, in their order, built in C.

        Each equals ``ConnectorTaskId(connector, task)``; none runs Python code, which calling the
        class does: the leader decodes an id for every running task and the assignor builds one
        for every task it hands out anew (issue 24).
        """
        return tuple(map(_NEW_TUPLE, repeat(cls), pairs))

    def __getnewargs__(self) -> tuple[str, int]:  # type: ignore[override]
        return (self[0], self[1])

    def __repr__(self) -> str:
        return f"ConnectorTaskId(connector={self[0]!r}, task={self[1]!r})"

    def __str__(self) -> str:
        return f"{self[0]}-{self[1]}"


_NEW_TUPLE: Callable[[type[ConnectorTaskId], tuple[str, int]], ConnectorTaskId] = tuple.__new__


class TargetState(str, Enum):
    """What the user asked a connector to be (desired state, kept apart from observed state)."""

    STARTED = "STARTED"
    PAUSED = "PAUSED"
    STOPPED = "STOPPED"


class State(str, Enum):
    """What a connector or task is observed to be (Kafka's AbstractStatus.State)."""

    UNASSIGNED = "UNASSIGNED"
    RUNNING = "RUNNING"
    PAUSED = "PAUSED"
    FAILED = "FAILED"
    RESTARTING = "RESTARTING"
    STOPPED = "STOPPED"
    DESTROYED = "DESTROYED"


class ConnectorType(str, Enum):
    """A connector's direction as REST shows it."""

    SOURCE = "source"
    SINK = "sink"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class ConnectorInfo:
    """A connector's name, config, task ids and type (`GET /connectors/{name}`)."""

    name: str
    config: Mapping[str, str]
    tasks: Sequence[ConnectorTaskId]
    type: ConnectorType


@dataclass(frozen=True)
class TaskInfo:
    """One task's id and config (`GET /connectors/{name}/tasks`)."""

    id: ConnectorTaskId
    config: Mapping[str, str]


@dataclass(frozen=True)
class StateInfo:
    """Observed state of a connector or a task; `trace` only when FAILED."""

    state: State
    worker_id: str
    trace: str | None = None
    version: str | None = None


@dataclass(frozen=True)
class TaskStateInfo(StateInfo):
    """A task's observed state with its task number."""

    id: int = 0


@dataclass(frozen=True)
class ConnectorStateInfo:
    """`GET /connectors/{name}/status`: the connector's state and its tasks' states (sorted by id)."""

    name: str
    connector: StateInfo
    tasks: Sequence[TaskStateInfo]
    type: ConnectorType


@dataclass(frozen=True)
class ConnectorOffset:
    """One source partition's (or sink topic-partition's) offset."""

    partition: Mapping[str, Any]
    offset: Mapping[str, Any] | None


@dataclass(frozen=True)
class ConnectorOffsets:
    """`GET /connectors/{name}/offsets`."""

    offsets: Sequence[ConnectorOffset]


@dataclass(frozen=True)
class RestartRequest:
    """KIP-745 restart options."""

    connector: str
    only_failed: bool = False
    include_tasks: bool = False


@dataclass(frozen=True)
class SessionKey:
    """The key workers sign internal REST requests with (KIP-507), distributed by the leader."""

    key: bytes
    algorithm: str
    creation_timestamp_ms: int


@dataclass(frozen=True)
class AutoRestarts:
    """Where a connector's or task's automatic restarts stand (a kconnect extension, docs/reliability.md).

    `count` restarts were made since the count last reset; the last failure's trace and time (ms
    since the epoch); when the next restart is due (None: none is scheduled); whether the worker gave
    up after ``auto.restart.max.attempts``. Kept in the status store beside the instance's status.
    """

    count: int = 0
    last_failure: str | None = None
    last_failure_ms: int | None = None
    next_attempt_ms: int | None = None
    gave_up: bool = False


@dataclass(frozen=True)
class ConnectorAutoRestarts:
    """``GET /connectors/{name}/restarts`` (a kconnect extension): the connector's automatic restart keys
    as in effect, and where the automatic restarts of its instance and of each task stand."""

    name: str
    enabled: bool
    max_attempts: int
    backoff_ms: int
    backoff_max_ms: int
    connector: AutoRestarts
    tasks: Mapping[int, AutoRestarts]
