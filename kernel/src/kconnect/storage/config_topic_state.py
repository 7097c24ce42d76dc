"""What the config topic says, record by record, with Kafka's rules; no I/O.

`ConfigTopicState.apply` folds one record (already parsed by `config_records`) into the state
and returns the changes (`config_changes.ConfigChange`) a listener should hear, each carrying what
the topic says after that record. Kafka's rules, kept here:

* connector configs and target states apply at once; a new connector's target is STARTED;
* task configs wait until a ``commit-<name>`` record: the commit applies tasks 0..N-1 if all were
  written since the previous commit, otherwise the connector is *inconsistent* (no tasks shown
  until new task configs are committed); pending task configs are dropped at every commit;
* a commit for a connector without a config (deleted, then compacted) is ignored;
* deleting a connector forgets its config, target state and task configs;
* a ``tasks-fencing-<name>`` task count is kept as the connector's last fenced generation;
* a cluster-wide logger level (KIP-976) and a restart request change no state: they are only news
  for a listener; a session key changes the state and is no news.
"""

from __future__ import annotations

from collections.abc import Mapping

from kconnect.model import ConnectorTaskId, RestartRequest, SessionKey, TargetState
from kconnect.storage.base import ClusterConfigState
from kconnect.storage.config_changes import (
    ConfigChange,
    ConnectorConfigDeleted,
    ConnectorConfigRead,
    LoggerLevelRead,
    TargetStateRead,
    TaskConfigsRead,
)
from kconnect.storage.config_records import (
    ConfigRecord,
    ConnectorConfigRecord,
    TargetStateRecord,
    TaskCommitRecord,
    TaskConfigRecord,
    TaskCountRecord,
)


class ConfigTopicState:
    """The config topic folded so far: configs, target states, committed and pending task configs."""

    def __init__(self) -> None:
        self.connector_configs: dict[str, dict[str, str]] = {}
        self.target_states: dict[str, TargetState] = {}
        self.task_counts: dict[str, int] = {}
        self.task_count_records: dict[str, int] = {}
        self.task_configs: dict[ConnectorTaskId, dict[str, str]] = {}
        self.pending: dict[str, dict[ConnectorTaskId, dict[str, str]]] = {}
        self.inconsistent: set[str] = set()
        self.session_key: SessionKey | None = None
        self.offset = -1

    def apply(self, record: ConfigRecord, offset: int) -> list[ConfigChange]:
        """Fold one record read at `offset`; return the changes to tell a listener."""
        self.offset = offset + 1  # Kafka's config offset: the position after the last record read
        match record:
            case ConnectorConfigRecord(connector, None):
                self._forget(connector)
                return [ConnectorConfigDeleted(connector)]
            case ConnectorConfigRecord(connector, config) if config is not None:
                self.connector_configs[connector] = config
                target = self.target_states.setdefault(connector, TargetState.STARTED)
                return [ConnectorConfigRead(connector, dict(config), target)]
            case TargetStateRecord(connector, state):
                return self._target_state(connector, state)
            case TaskConfigRecord(task, config):
                self.pending.setdefault(task.connector, {})[task] = config
                return []
            case TaskCommitRecord(connector, tasks):
                return self._commit(connector, tasks)
            case RestartRequest() | LoggerLevelRead():
                return [record]
            case SessionKey():
                self.session_key = record
                return []
            case TaskCountRecord(connector, tasks):
                self.task_count_records[connector] = tasks
                return []
        return []

    def _forget(self, connector: str) -> None:
        self.connector_configs.pop(connector, None)
        self.task_counts.pop(connector, None)
        self.task_count_records.pop(connector, None)
        self.pending.pop(connector, None)
        self.inconsistent.discard(connector)
        for task in [t for t in self.task_configs if t.connector == connector]:
            del self.task_configs[task]

    def _target_state(self, connector: str, state: TargetState | None) -> list[ConfigChange]:
        if state is None:
            # Written with the config's tombstone; a connector still configured stays STARTED.
            self.target_states.pop(connector, None)
            if connector in self.connector_configs:
                self.target_states[connector] = TargetState.STARTED
            return []
        previous = self.target_states.get(connector)
        self.target_states[connector] = state
        # A target written before its connector (create with an initial state) is not news yet.
        if state is previous or connector not in self.connector_configs:
            return []
        return [TargetStateRead(connector, state)]

    def _commit(self, connector: str, count: int) -> list[ConfigChange]:
        if connector not in self.connector_configs:
            self._forget(connector)  # deleted before these tasks were committed, then compacted
            return []
        pending = self.pending.pop(connector, {})
        written = {task.task for task in pending}
        if not all(n in written for n in range(count)):
            self.inconsistent.add(connector)
            self.task_counts[connector] = count
            return []
        for task in [t for t in self.task_configs if t.connector == connector]:
            del self.task_configs[task]
        self.task_configs.update({t: c for t, c in pending.items() if t.task < count})
        self.inconsistent.discard(connector)
        self.task_counts[connector] = count
        configs = tuple(dict(self.task_configs[ConnectorTaskId(connector, n)]) for n in range(count))
        return [TaskConfigsRead(connector, configs)]

    def snapshot(self) -> ClusterConfigState:
        """An immutable snapshot; an inconsistent connector shows no tasks."""
        tasks: dict[str, tuple[Mapping[str, str], ...]] = {}
        for connector, count in self.task_counts.items():
            if count and connector not in self.inconsistent and connector in self.connector_configs:
                tasks[connector] = tuple(
                    dict(self.task_configs[ConnectorTaskId(connector, n)]) for n in range(count)
                )
        return ClusterConfigState(
            {name: dict(config) for name, config in self.connector_configs.items()},
            {name: state for name, state in self.target_states.items() if name in self.connector_configs},
            tasks,
            frozenset(self.inconsistent),
            self.offset,
            {name: n for name, n in self.task_count_records.items() if name in self.connector_configs},
        )
