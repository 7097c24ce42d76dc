"""What the config store means for the herder (mostly a distributed worker's): pure functions, no I/O.

Each change the config store reads after start (`kconnect.storage.config_changes`) is a reducer
event as it is; this module covers the rest of the herder's edge to the config topic:
`loaded_event` turns the first snapshot into the reducer's load event (so every worker knows
every connector, and runs what its assignment holds), and `rebalance_reason` says whether a
change alters the set of connectors and tasks the group must share (Kafka's herder then asks for
a rebalance; a changed config of the same tasks restarts them in place).
"""

from __future__ import annotations

from kconnect.herder import events as ev
from kconnect.model import ConnectorTaskId
from kconnect.storage.base import ClusterConfigState


def loaded_event(snapshot: ClusterConfigState) -> ev.ConnectorsLoaded:
    """Every connector of the first snapshot (read at start-up), as the reducer's one load event."""
    return ev.ConnectorsLoaded(
        tuple(
            ev.ConnectorLoaded(
                name, dict(config), snapshot.target_state(name), snapshot.task_configs.get(name, ())
            )
            for name, config in sorted(snapshot.connector_configs.items())
        )
    )


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
