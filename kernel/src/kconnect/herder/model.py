"""The herder's vocabulary, with Kafka's names: ConnectorTaskId, TargetState, State."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


@dataclass(frozen=True, order=True, slots=True)
class ConnectorTaskId:
    """One task of one connector: ``(connector, task)``, ordered by connector then task number."""

    connector: str
    task: int

    def __str__(self) -> str:
        return f"{self.connector}-{self.task}"


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
