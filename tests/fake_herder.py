"""An in-memory Herder for REST-layer tests: Kafka's observable behaviour, no Kafka, no tasks.

It satisfies `kconnect.herder.api.Herder` structurally. Business rules are kept to what the REST
tests need to see (validation of `name`/`connector.class`, STOPPED-only offsets, KIP-745 snapshots).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kconnect.cluster import ClusterView
from kconnect.errors import AlreadyExistsError, BadRequestError, ConflictError, NotFoundError, PluginError
from kconnect.executor import Placement, TaskHost
from kconnect.herder.api import PutResult, WorkerHealth
from kconnect.herder.loggers import Loggers
from kconnect.model import (
    AutoRestarts,
    ConnectorAutoRestarts,
    ConnectorInfo,
    ConnectorOffset,
    ConnectorOffsets,
    ConnectorStateInfo,
    ConnectorTaskId,
    ConnectorType,
    RestartRequest,
    State,
    StateInfo,
    TargetState,
    TaskInfo,
    TaskStateInfo,
)
from kconnect.plugin_host import PluginDesc, PluginType

WORKER_ID = "127.0.0.1:8083"
CLUSTER_ID = "test-cluster-id"
SINK_CLASS = "org.apache.kafka.connect.file.FileStreamSinkConnector"
SOURCE_CLASS = "org.apache.kafka.connect.file.FileStreamSourceConnector"


def _plugin(cls_name: str, kind: PluginType, version: str = "0.1.0") -> PluginDesc:
    short = cls_name.rsplit(".", 1)[-1]
    return PluginDesc(object, kind, cls_name, f"kconnect_file.{short}", (short,), version)


PLUGINS = [
    _plugin(SINK_CLASS, PluginType.SINK),
    _plugin(SOURCE_CLASS, PluginType.SOURCE),
    _plugin("org.apache.kafka.connect.json.JsonConverter", PluginType.CONVERTER, "undefined"),
    _plugin("org.apache.kafka.connect.transforms.Cast$Value", PluginType.TRANSFORMATION),
    _plugin("kconnect_basic_auth.plugin.extension", PluginType.REST_EXTENSION),
]


@dataclass
class _Connector:
    config: dict[str, str]
    target: TargetState
    task_count: int
    failed_tasks: set[int] = field(default_factory=set)
    topics: list[str] = field(default_factory=list)
    offsets: list[ConnectorOffset] = field(default_factory=list)

    @property
    def type(self) -> ConnectorType:
        return (
            ConnectorType.SINK if "Sink" in self.config.get("connector.class", "") else ConnectorType.SOURCE
        )


class FakeHerder:
    """A Herder that keeps connectors in a dict; `busy` makes every call a ConflictError."""

    def __init__(self) -> None:
        self.worker_id = WORKER_ID
        self.connectors_by_name: dict[str, _Connector] = {}
        self.health_status = WorkerHealth(
            "healthy", "Worker has completed startup and is ready to handle requests."
        )
        self.busy = False
        self.restarts: list[object] = []
        self.crash: Exception | None = None
        self.loggers = Loggers()
        self.cluster_logger_levels: list[tuple[str, str]] = []

    def _get(self, name: str) -> _Connector:
        if self.busy:
            raise ConflictError("Cannot complete request: the herder is busy")
        if self.crash is not None:
            raise self.crash
        try:
            return self.connectors_by_name[name]
        except KeyError:
            raise NotFoundError(f"Connector {name} not found") from None

    async def kafka_cluster_id(self) -> str:
        return CLUSTER_ID

    def health(self) -> WorkerHealth:
        return self.health_status

    def placement(self) -> Placement:
        """Two hosts: one running every connector's tasks, one waiting for a slot."""
        tasks = tuple(
            ConnectorTaskId(n, i)
            for n, c in sorted(self.connectors_by_name.items())
            for i in range(c.task_count)
        )
        return Placement(
            "fake",
            1,
            100,
            (TaskHost(1, "RUNNING", 100, False, tasks, 0.42), TaskHost(2, "WAITING", 1, True, ())),
        )

    async def connectors(self) -> list[str]:
        return sorted(self.connectors_by_name)

    def _info(self, name: str) -> ConnectorInfo:
        c = self._get(name)
        tasks = [ConnectorTaskId(name, i) for i in range(c.task_count)]
        return ConnectorInfo(name, dict(c.config), tasks, c.type)

    async def connector_info(self, name: str) -> ConnectorInfo:
        return self._info(name)

    async def connector_config(self, name: str) -> dict[str, str]:
        return dict(self._get(name).config)

    def _validate(self, config: Mapping[str, str]) -> None:
        errors = []
        if not config.get("name", "").strip():
            errors.append("Invalid value  for configuration name: String may not be empty")
        if "connector.class" not in config:
            errors.append('Missing required configuration "connector.class" which has no default value.')
        if errors:
            raise BadRequestError(
                f"Connector configuration is invalid and contains the following {len(errors)} error(s):\n"
                + "\n".join(errors)
                + "\nYou can also find the above list of errors at the endpoint "
                "`/connector-plugins/{connectorType}/config/validate`"
            )

    async def put_connector_config(
        self,
        name: str,
        config: Mapping[str, str],
        *,
        allow_replace: bool,
        initial_state: TargetState | None = None,
    ) -> PutResult:
        if self.busy:
            raise ConflictError("Cannot complete request: the herder is busy")
        self._validate(config)
        existing = self.connectors_by_name.get(name)
        if existing is not None and not allow_replace:
            raise AlreadyExistsError(f"Connector {name} already exists")
        target = existing.target if existing else (initial_state or TargetState.STARTED)
        tasks = int(config.get("tasks.max", "1")) if target is TargetState.STARTED else 0
        self.connectors_by_name[name] = _Connector(dict(config), target, tasks)
        return PutResult(created=existing is None, info=self._info(name))

    async def patch_connector_config(self, name: str, patch: Mapping[str, str | None]) -> ConnectorInfo:
        config = dict(self._get(name).config)
        for key, value in patch.items():
            if value is None:
                config.pop(key, None)
            else:
                config[key] = value
        self._validate(config)
        self.connectors_by_name[name].config = config
        return self._info(name)

    async def delete_connector(self, name: str) -> ConnectorInfo:
        info = self._info(name)
        del self.connectors_by_name[name]
        return info

    def _status(self, name: str) -> ConnectorStateInfo:
        try:
            c = self._get(name)
        except NotFoundError:
            raise NotFoundError(f"No status found for connector {name}") from None
        state = {TargetState.STARTED: State.RUNNING, TargetState.PAUSED: State.PAUSED}.get(
            c.target, State.STOPPED
        )
        tasks = [
            TaskStateInfo(
                state=State.FAILED
                if i in c.failed_tasks
                else (State.PAUSED if state is State.PAUSED else State.RUNNING),
                worker_id=WORKER_ID,
                trace="Traceback: boom" if i in c.failed_tasks else None,
                id=i,
            )
            for i in range(c.task_count)
        ]
        return ConnectorStateInfo(name, StateInfo(state, WORKER_ID, version="0.1.0"), tasks, c.type)

    async def connector_status(self, name: str) -> ConnectorStateInfo:
        return self._status(name)

    async def task_configs(self, name: str) -> list[TaskInfo]:
        c = self._get(name)
        task_class = "org.apache.kafka.connect.file.FileStreamSinkTask"
        return [
            TaskInfo(ConnectorTaskId(name, i), {**c.config, "task.class": task_class})
            for i in range(c.task_count)
        ]

    async def task_status(self, task: ConnectorTaskId) -> TaskStateInfo:
        c = self.connectors_by_name.get(task.connector)
        if c is None or task.task >= c.task_count:
            raise NotFoundError(f"No status found for task {task}")
        return self._status(task.connector).tasks[task.task]

    async def auto_restarts(self, name: str) -> ConnectorAutoRestarts:
        """Automatic restarts off; task 0 (if any) shows one made restart and its failure."""
        c = self._get(name)
        once = AutoRestarts(1, "boom", 1_700_000_000_000, None, False)
        tasks = {i: once if i == 0 else AutoRestarts() for i in range(c.task_count)}
        return ConnectorAutoRestarts(name, False, -1, 60_000, 3_600_000, AutoRestarts(), tasks)

    async def restart_task(self, task: ConnectorTaskId) -> None:
        c = self._get(task.connector)
        if task.task >= c.task_count:
            raise NotFoundError(f"Unknown task: {task}")
        self.restarts.append(task)

    async def restart_connector(self, request: RestartRequest) -> ConnectorStateInfo:
        status = self._status(request.connector)
        self.restarts.append(request)

        def restarting(state: State, applies: bool) -> State:
            return (
                State.RESTARTING if applies and (not request.only_failed or state is State.FAILED) else state
            )

        connector = StateInfo(restarting(status.connector.state, True), WORKER_ID)
        tasks = [
            TaskStateInfo(restarting(t.state, request.include_tasks), WORKER_ID, t.trace, id=t.id)
            for t in status.tasks
        ]
        return ConnectorStateInfo(status.name, connector, tasks, status.type)

    def _set_target(self, name: str, target: TargetState) -> None:
        c = self._get(name)
        c.target = target
        c.task_count = (
            0 if target is TargetState.STOPPED else (c.task_count or int(c.config.get("tasks.max", "1")))
        )

    async def pause_connector(self, name: str) -> None:
        self._set_target(name, TargetState.PAUSED)

    async def resume_connector(self, name: str) -> None:
        self._set_target(name, TargetState.STARTED)

    async def stop_connector(self, name: str) -> None:
        self._set_target(name, TargetState.STOPPED)

    async def connector_offsets(self, name: str) -> ConnectorOffsets:
        return ConnectorOffsets(list(self._get(name).offsets))

    def _stopped(self, name: str) -> _Connector:
        c = self._get(name)
        if c.target is not TargetState.STOPPED:
            raise BadRequestError(
                "Connectors must be in the STOPPED state before their offsets can be modified. This can be "
                "done for the specified connector by issuing a 'PUT' request to the "
                f"'/connectors/{name}/stop' endpoint"
            )
        return c

    async def alter_offsets(self, name: str, offsets: Sequence[ConnectorOffset]) -> str:
        c = self._stopped(name)
        c.offsets = [o for o in offsets if o.offset is not None]
        return "The offsets for this connector have been altered successfully"

    async def reset_offsets(self, name: str) -> str:
        self._stopped(name).offsets = []
        return "The offsets for this connector have been reset successfully"

    async def active_topics(self, name: str) -> list[str]:
        c = self.connectors_by_name.get(name)
        return sorted(c.topics) if c else []

    async def reset_active_topics(self, name: str) -> None:
        self._get(name).topics = []

    async def validate_connector_config(self, config: Mapping[str, str]) -> Any:
        cls = config.get("connector.class")
        if cls is None:
            body = ", ".join(f"{k}={v}" for k, v in config.items())
            raise BadRequestError(f"Connector config {{{body}}} contains no connector type")
        if not any(cls in (p.class_name, *p.aliases) for p in PLUGINS):
            raise PluginError(
                f"Failed to find any class that implements Connector and which name matches {cls}"
            )
        errors = (
            []
            if config.get("name")
            else ['Missing required configuration "name" which has no default value.']
        )
        return {
            "name": cls,
            "error_count": len(errors),
            "groups": ["Common"],
            "configs": [
                {
                    "definition": {
                        "name": "name",
                        "type": "STRING",
                        "required": True,
                        "default_value": None,
                        "importance": "HIGH",
                        "documentation": "Globally unique name",
                        "group": "Common",
                        "width": "MEDIUM",
                        "display_name": "Connector name",
                        "dependents": [],
                        "order": 1,
                    },
                    "value": {
                        "name": "name",
                        "value": config.get("name"),
                        "recommended_values": [],
                        "errors": errors,
                        "visible": True,
                    },
                }
            ],
        }

    def plugins(self, *, connectors_only: bool) -> list[Any]:
        kinds = (PluginType.SINK, PluginType.SOURCE)
        return [p for p in PLUGINS if not connectors_only or p.type in kinds]

    def plugin_config(self, plugin: str, version: str | None = None) -> list[Any]:
        if not any(plugin in (p.class_name, *p.aliases) for p in PLUGINS):
            raise NotFoundError(f"Unknown plugin {plugin}.")
        return [
            {
                "name": "file",
                "type": "STRING",
                "required": False,
                "default_value": None,
                "importance": "HIGH",
                "documentation": "Destination filename.",
                "group": None,
                "width": "NONE",
                "display_name": "file",
                "dependents": [],
                "order": -1,
            }
        ]

    def cluster_view(self) -> ClusterView:
        return ClusterView({n: dict(c.config) for n, c in self.connectors_by_name.items()}, CLUSTER_ID)

    async def set_cluster_logger_level(self, namespace: str, level: str) -> None:
        """Recorded, then set here: the fake is a one-worker cluster."""
        self.cluster_logger_levels.append((namespace, level))
        self.loggers.set_level_named(namespace, level)
