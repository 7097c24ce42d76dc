"""What the config topic tells a listener when it changed: one frozen value per change, no behaviour.

`ConfigTopicState.apply` (`kconnect.storage.config_topic_state`) produces these, carrying what
the topic says at that record (the config with its target state, the committed task configs),
and the distributed herder's reducer folds them in as they are (`kconnect.herder.events.Event`
includes them): a change is modelled once between the config topic and the reducer. They are
Kafka's ConfigBackingStore.UpdateListener callbacks; a restart request is the vocabulary's
`RestartRequest` itself, and a new session key is no change a listener hears (the store's
``session_key`` holds the newest).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kconnect.model import RestartRequest, TargetState

Config = Mapping[str, str]


@dataclass(frozen=True)
class ConnectorConfigRead:
    """A connector's config was read from the shared config store (any worker may have written it)."""

    name: str
    config: Config
    target: TargetState


@dataclass(frozen=True)
class ConnectorConfigDeleted:
    """A connector's deletion was read from the shared config store."""

    name: str


@dataclass(frozen=True)
class TargetStateRead:
    """A connector's target state was read from the shared config store."""

    name: str
    target: TargetState


@dataclass(frozen=True)
class TaskConfigsRead:
    """A connector's committed task configs were read from the shared config store."""

    name: str
    configs: Sequence[Config]


@dataclass(frozen=True)
class LoggerLevelRead:
    """A cluster-wide logger level (KIP-976) was read from the config store after this worker started."""

    namespace: str
    level: str


ConfigChange = (
    ConnectorConfigRead
    | ConnectorConfigDeleted
    | TargetStateRead
    | TaskConfigsRead
    | LoggerLevelRead
    | RestartRequest
)
"""What a config-store listener hears, in the order the topic says it."""
