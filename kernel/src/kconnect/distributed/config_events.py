"""What a change read from the config topic means for a distributed worker: pure functions, no I/O.

The config store tells the distributed herder each change as a `ConfigUpdate`
(`kconnect.storage.config_topic_state`); `events_for` turns it, with the snapshot read after it,
into the reducer events every worker folds in (so every worker knows every connector, and runs
what its assignment holds), and `rebalance_reason` says whether the change alters the set of
connectors and tasks the group must share (Kafka's herder then asks for a rebalance; a changed
config of the same tasks restarts them in place).
"""

from __future__ import annotations

from kconnect.herder import events as ev
from kconnect.model import ConnectorTaskId
from kconnect.storage.base import ClusterConfigState
from kconnect.storage.config_topic_state import (
    ConfigUpdate,
    ConnectorConfigRemoved,
    ConnectorConfigUpdated,
    LoggerLevelChanged,
    RestartRequested,
    SessionKeyUpdated,
    TargetStateChanged,
    TaskConfigsUpdated,
)


def events_for(update: ConfigUpdate, snapshot: ClusterConfigState) -> list[ev.Event]:
    """The reducer events for one update read from the config topic (`snapshot`: after it)."""
    match update:
        case ConnectorConfigUpdated(name):
            config = snapshot.connector_config(name)
            if config is None:  # removed again by a later record of the same read
                return []
            return [ev.ConnectorConfigRead(name, dict(config), snapshot.target_state(name))]
        case ConnectorConfigRemoved(name):
            return [ev.ConnectorConfigDeleted(name)]
        case TaskConfigsUpdated(name, _):
            if not snapshot.contains(name):
                return []
            return [ev.TaskConfigsRead(name, tuple(dict(c) for c in snapshot.task_configs.get(name, ())))]
        case TargetStateChanged(name, target):
            return [ev.TargetStateRead(name, target)]
        case RestartRequested(request):
            return [ev.RestartRequested(request.connector, request.include_tasks, request.only_failed)]
        case LoggerLevelChanged(namespace, level):
            return [ev.LoggerLevelRead(namespace, level)]
        case SessionKeyUpdated():
            return []
    return []


def loaded_events(snapshot: ClusterConfigState) -> list[ev.Event]:
    """Every connector of the first snapshot (read at start-up), as the reducer's load events."""
    return [
        ev.ConnectorLoaded(
            name, dict(config), snapshot.target_state(name), snapshot.task_configs.get(name, ())
        )
        for name, config in sorted(snapshot.connector_configs.items())
    ]


def work_of(snapshot: ClusterConfigState) -> tuple[frozenset[str], frozenset[ConnectorTaskId]]:
    """The connectors and tasks the group shares according to `snapshot`."""
    connectors = frozenset(snapshot.connectors())
    tasks = frozenset(t for name in connectors for t in snapshot.tasks(name))
    return connectors, tasks


def rebalance_reason(before: ClusterConfigState, after: ClusterConfigState) -> str | None:
    """Why the group must rebalance after a change (connectors or tasks added or removed), or None."""
    (c0, t0), (c1, t1) = work_of(before), work_of(after)
    if c0 != c1:
        added, removed = sorted(c1 - c0), sorted(c0 - c1)
        return f"connectors changed (added {added}, removed {removed})"
    if t0 != t1:
        return f"tasks changed ({len(t0)} -> {len(t1)})"
    return None
