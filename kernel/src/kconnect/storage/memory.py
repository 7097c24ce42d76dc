"""Memory twins of the stores: what tests use, and what the file twins build on."""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Mapping, Sequence
from typing import Any

from kconnect.model import AutoRestarts, ConnectorTaskId, StateInfo, TargetState, TaskStateInfo
from kconnect.storage.base import ClusterConfigState, SourceOffset, SourcePartition, partition_key

# connector -> partition key -> offset
OffsetTable = dict[str, dict[str, dict[str, Any]]]


class MemoryConfigBackingStore:
    """Configs held in memory; subclasses persist each change by overriding `_persist`."""

    def __init__(self) -> None:
        self._state = ClusterConfigState()

    async def start(self) -> None:
        """Nothing to load."""

    async def stop(self) -> None:
        """Nothing to release."""

    def snapshot(self) -> ClusterConfigState:
        """The current configs (an immutable value: later writes do not change it)."""
        return self._state

    async def put_connector_config(
        self, connector: str, config: Mapping[str, str], target: TargetState | None = None
    ) -> None:
        """Create or replace a connector's config; a new connector's target defaults to STARTED."""
        state = self._state
        targets = dict(state.target_states)
        if target is not None:
            targets[connector] = target
        else:
            targets.setdefault(connector, TargetState.STARTED)
        await self._replace(
            ClusterConfigState(
                {**state.connector_configs, connector: dict(config)}, targets, state.task_configs
            )
        )

    async def remove_connector_config(self, connector: str) -> None:
        """Forget the connector, its target state and task configs."""
        state = self._state
        await self._replace(
            ClusterConfigState(
                {k: v for k, v in state.connector_configs.items() if k != connector},
                {k: v for k, v in state.target_states.items() if k != connector},
                {k: v for k, v in state.task_configs.items() if k != connector},
            )
        )

    async def put_target_state(self, connector: str, target: TargetState) -> None:
        """Record the connector's target state."""
        state = self._state
        await self._replace(
            ClusterConfigState(
                state.connector_configs, {**state.target_states, connector: target}, state.task_configs
            )
        )

    async def put_task_configs(self, connector: str, configs: Sequence[Mapping[str, str]]) -> None:
        """Replace the connector's task configs."""
        state = self._state
        tasks = {k: v for k, v in state.task_configs.items() if k != connector}
        if configs:
            tasks[connector] = tuple(dict(c) for c in configs)
        await self._replace(ClusterConfigState(state.connector_configs, state.target_states, tasks))

    async def _replace(self, new_state: ClusterConfigState) -> None:
        # Persist first: a failed write must leave the snapshot as it was on disk.
        await self._persist(new_state)
        self._state = new_state

    async def _persist(self, state: ClusterConfigState) -> None:
        """Make `state` durable; the memory twin keeps nothing."""


class MemoryStatusBackingStore:
    """Statuses and active topics held in memory (standalone workers need nothing more)."""

    def __init__(self) -> None:
        self._connectors: dict[str, StateInfo] = {}
        self._tasks: dict[ConnectorTaskId, TaskStateInfo] = {}
        self._topics: dict[str, set[str]] = {}
        self._auto_restarts: dict[str | ConnectorTaskId, AutoRestarts] = {}

    def put_connector(self, connector: str, status: StateInfo) -> None:
        """Record the connector's observed state."""
        self._connectors[connector] = status

    def put_task(self, task: ConnectorTaskId, status: TaskStateInfo) -> None:
        """Record one task's observed state."""
        self._tasks[task] = status

    def remove_task(self, task: ConnectorTaskId) -> None:
        """Forget one task's status."""
        self._tasks.pop(task, None)
        self._auto_restarts.pop(task, None)

    def get_connector(self, connector: str) -> StateInfo | None:
        """The connector's last recorded state."""
        return self._connectors.get(connector)

    def get_task(self, task: ConnectorTaskId) -> TaskStateInfo | None:
        """One task's last recorded state."""
        return self._tasks.get(task)

    def remove(self, connector: str) -> None:
        """Forget the connector's status, its tasks' statuses and its topics."""
        self._connectors.pop(connector, None)
        for task in [t for t in self._tasks if t.connector == connector]:
            del self._tasks[task]
        self._topics.pop(connector, None)
        for instance in [i for i in self._auto_restarts if _connector_of(i) == connector]:
            del self._auto_restarts[instance]

    def put_topic(self, connector: str, topic: str) -> None:
        """Record that the connector used `topic`."""
        self._topics.setdefault(connector, set()).add(topic)

    def topics(self, connector: str) -> list[str]:
        """Topics the connector used since the last reset, sorted."""
        return sorted(self._topics.get(connector, ()))

    def reset_topics(self, connector: str) -> None:
        """Forget the connector's topics."""
        self._topics.pop(connector, None)

    def put_auto_restarts(self, instance: str | ConnectorTaskId, restarts: AutoRestarts) -> None:
        """Record where the instance's automatic restarts stand."""
        self._auto_restarts[instance] = restarts

    def get_auto_restarts(self, instance: str | ConnectorTaskId) -> AutoRestarts | None:
        """Where the instance's automatic restarts stand, if it ever had one scheduled."""
        return self._auto_restarts.get(instance)


def _connector_of(instance: str | ConnectorTaskId) -> str:
    return instance if isinstance(instance, str) else instance.connector


class MemoryOffsetBackingStore:
    """Source offsets held in memory; subclasses persist each batch by overriding `_persist`."""

    def __init__(self) -> None:
        self._table: OffsetTable = {}
        # Tasks commit concurrently; each batch must apply to the table the previous one left.
        self._lock = asyncio.Lock()

    async def start(self) -> None:
        """Nothing to load."""

    async def stop(self) -> None:
        """Nothing to release."""

    async def get(self, connector: str, partitions: Sequence[SourcePartition]) -> list[SourceOffset | None]:
        """The committed offsets of these partitions, None where there is none."""
        stored = self._table.get(connector, {})
        return [copy.deepcopy(stored.get(partition_key(p))) for p in partitions]

    async def set(
        self, connector: str, offsets: Sequence[tuple[SourcePartition, SourceOffset | None]]
    ) -> None:
        """Apply the batch to a copy, persist the copy, then make it current (all or nothing)."""
        if not offsets:
            return
        async with self._lock:
            await self._apply(connector, offsets)

    async def _apply(
        self, connector: str, offsets: Sequence[tuple[SourcePartition, SourceOffset | None]]
    ) -> None:
        table = dict(self._table)
        stored = dict(table.get(connector, {}))
        for partition, offset in offsets:
            key = partition_key(partition)
            if offset is None:
                stored.pop(key, None)
            else:
                stored[key] = json.loads(json.dumps(offset))
        if stored:
            table[connector] = stored
        else:
            table.pop(connector, None)
        await self._persist(table)
        self._table = table

    async def partitions(self, connector: str) -> list[SourcePartition]:
        """Every partition of the connector with a committed offset."""
        return [json.loads(key) for key in self._table.get(connector, {})]

    async def remove(self, connector: str, partitions: Sequence[SourcePartition] | None = None) -> None:
        """Tombstone these partitions, or all of the connector's."""
        targets = await self.partitions(connector) if partitions is None else list(partitions)
        await self.set(connector, [(p, None) for p in targets])

    async def _persist(self, table: OffsetTable) -> None:
        """Make `table` durable; the memory twin keeps nothing."""
