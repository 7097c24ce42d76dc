"""The store contracts (Kafka's ConfigBackingStore, StatusBackingStore, OffsetBackingStore).

Config and offset writes are coroutines: a write has happened (durably, for the file twins) when
the call returns. Status writes are fire-and-forget, as in Kafka, and synchronous. Reads of
configs go through an immutable `ClusterConfigState` snapshot.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from kconnect.errors import ConnectError, RetriableError
from kconnect.model import AutoRestarts, ConnectorTaskId, StateInfo, TargetState, TaskStateInfo

SourcePartition = Mapping[str, Any]
SourceOffset = Mapping[str, Any]


class StoreError(ConnectError):
    """A store cannot read or write its file; the message names the file and the reason."""


class StoreUnavailableError(StoreError, RetriableError):
    """A Kafka-backed store's broker did not answer; the same write may succeed when tried again."""


def partition_key(partition: SourcePartition) -> str:
    """The canonical JSON text of a source partition, the key it is stored under."""
    return json.dumps(partition, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class ClusterConfigState:
    """An immutable snapshot of every connector's config, target state and task configs."""

    connector_configs: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    target_states: Mapping[str, TargetState] = field(default_factory=dict)
    task_configs: Mapping[str, Sequence[Mapping[str, str]]] = field(default_factory=dict)
    inconsistent: frozenset[str] = frozenset()
    """Connectors whose committed task configs are incomplete (compaction, a leader lost mid-write):
    they show no tasks until their task configs are written again (Kafka's inconsistentConnectors)."""
    offset: int = -1
    """Position in the config topic this snapshot reflects (Kafka's config offset); -1 for other stores."""
    task_count_records: Mapping[str, int] = field(default_factory=dict)
    """Each source connector's last ``tasks-fencing-<name>`` task count (Kafka's taskCountRecord): the
    size of its last generation whose predecessors were fenced (distributed, exactly-once only)."""

    def connectors(self) -> list[str]:
        """Names of every configured connector, sorted."""
        return sorted(self.connector_configs)

    def contains(self, connector: str) -> bool:
        """Whether the connector is configured."""
        return connector in self.connector_configs

    def connector_config(self, connector: str) -> Mapping[str, str] | None:
        """The connector's config, or None if it is not configured."""
        return self.connector_configs.get(connector)

    def target_state(self, connector: str) -> TargetState:
        """The connector's target state (STARTED when none was ever written)."""
        return self.target_states.get(connector, TargetState.STARTED)

    def tasks(self, connector: str) -> list[ConnectorTaskId]:
        """Ids of the connector's tasks, in task order."""
        return [ConnectorTaskId(connector, i) for i in range(self.task_count(connector))]

    def task_count(self, connector: str) -> int:
        """How many task configs the connector has."""
        return len(self.task_configs.get(connector, ()))

    def task_config(self, task: ConnectorTaskId) -> Mapping[str, str] | None:
        """One task's config, or None if there is no such task."""
        configs = self.task_configs.get(task.connector, ())
        return configs[task.task] if 0 <= task.task < len(configs) else None


class ConfigBackingStore(Protocol):
    """Connector configs, target states and task configs (Kafka's ConfigBackingStore)."""

    async def start(self) -> None:
        """Load what the store holds; called once by the herder before `snapshot`."""
        ...

    async def stop(self) -> None:
        """Release resources; called once at worker shutdown."""
        ...

    def snapshot(self) -> ClusterConfigState:
        """The current configs as an immutable snapshot."""
        ...

    async def put_connector_config(
        self, connector: str, config: Mapping[str, str], target: TargetState | None = None
    ) -> None:
        """Create or replace a connector's config; `target` (when given) sets its target state too."""
        ...

    async def remove_connector_config(self, connector: str) -> None:
        """Forget the connector: its config, target state and task configs."""
        ...

    async def put_target_state(self, connector: str, target: TargetState) -> None:
        """Record the connector's target state."""
        ...

    async def put_task_configs(self, connector: str, configs: Sequence[Mapping[str, str]]) -> None:
        """Replace the connector's task configs (an empty list removes them)."""
        ...


class StatusBackingStore(Protocol):
    """Observed connector and task states, and the topics each connector used (KIP-558)."""

    def put_connector(self, connector: str, status: StateInfo) -> None:
        """Record the connector's observed state."""
        ...

    def put_task(self, task: ConnectorTaskId, status: TaskStateInfo) -> None:
        """Record one task's observed state."""
        ...

    def remove_task(self, task: ConnectorTaskId) -> None:
        """Forget one task's status (its config was removed)."""
        ...

    def get_connector(self, connector: str) -> StateInfo | None:
        """The connector's last recorded state."""
        ...

    def get_task(self, task: ConnectorTaskId) -> TaskStateInfo | None:
        """One task's last recorded state."""
        ...

    def remove(self, connector: str) -> None:
        """Forget the connector's status, its tasks' statuses and its topics (on deletion)."""
        ...

    def put_topic(self, connector: str, topic: str) -> None:
        """Record that the connector used `topic`."""
        ...

    def topics(self, connector: str) -> list[str]:
        """Topics the connector used since its topics were last reset, sorted."""
        ...

    def reset_topics(self, connector: str) -> None:
        """Forget the connector's topics."""
        ...

    def put_auto_restarts(self, instance: str | ConnectorTaskId, restarts: AutoRestarts) -> None:
        """Record where a connector's (by name) or task's automatic restarts stand, beside its status
        (kconnect's extension; written by the worker that runs it, once it has a status)."""
        ...

    def get_auto_restarts(self, instance: str | ConnectorTaskId) -> AutoRestarts | None:
        """Where a connector's or task's automatic restarts stand, as its last status recorded it."""
        ...


class OffsetBackingStore(Protocol):
    """Committed source offsets, keyed by connector name and source partition."""

    async def start(self) -> None:
        """Load the stored offsets; called once by the herder before any read."""
        ...

    async def stop(self) -> None:
        """Release resources; called once at worker shutdown."""
        ...

    async def get(self, connector: str, partitions: Sequence[SourcePartition]) -> list[SourceOffset | None]:
        """The offsets of these partitions (None where none is committed), in the same order."""
        ...

    async def set(
        self, connector: str, offsets: Sequence[tuple[SourcePartition, SourceOffset | None]]
    ) -> None:
        """Commit these offsets as one atomic batch; a None offset is a tombstone (removes it)."""
        ...

    async def partitions(self, connector: str) -> list[SourcePartition]:
        """Every partition of the connector with a committed offset."""
        ...

    async def remove(self, connector: str, partitions: Sequence[SourcePartition] | None = None) -> None:
        """Tombstone these partitions' offsets, or every partition of the connector when None."""
        ...
