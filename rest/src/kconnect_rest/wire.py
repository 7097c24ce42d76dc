"""Kafka Connect's JSON entities as msgspec Structs, and converters from the herder's dataclasses.

Field names are Kafka's (snake_case, `rest/entities/*.java`). Null fields are emitted, except the
two Kafka omits: a status's ``trace`` (and 4.1's ``version``) when absent, and a plugin's ``version``
when it is ``"undefined"``. Structs with ``omit_defaults=True`` declare exactly those fields with a
``None`` default; every other field has no default, so it is always written.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec
from kconnect import model
from kconnect.plugin_host import PluginDesc, PluginType
from litestar import Response
from litestar.openapi.datastructures import ResponseSpec

ConnectorTypeName = Literal["source", "sink", "unknown"]
StateName = Literal["UNASSIGNED", "RUNNING", "PAUSED", "FAILED", "RESTARTING", "STOPPED"]
PluginTypeName = Literal["source", "sink", "converter", "header_converter", "transformation", "predicate"]


class ErrorMessage(msgspec.Struct):
    """Every error body: ``error_code`` equals the HTTP status (Kafka's ErrorMessage)."""

    error_code: int
    message: str | None


class ServerInfo(msgspec.Struct):
    """`GET /`: exactly Kafka's three fields (a Java client reads them into Kafka's ServerInfo).

    ``version`` is the Kafka Connect release whose API is served (clients gate features on it);
    ``commit`` is kconnect's. kconnect's own version is in the ``Server`` header and `GET /executor`
    (`kconnect_rest.api_version`).
    """

    version: str
    commit: str
    kafka_cluster_id: str


class WorkerStatus(msgspec.Struct):
    """`GET /health` (KIP-1017)."""

    status: Literal["starting", "healthy", "unhealthy"]
    message: str


class ConnectorTaskId(msgspec.Struct):
    """A task id as ConnectorInfo and TaskInfo show it."""

    connector: str
    task: int


class TaskHostInfo(msgspec.Struct):
    """`GET /executor`: one unit that runs connector tasks (a hosting Spark task)."""

    id: int
    state: Literal["RUNNING", "WAITING"]
    capacity: int
    dedicated: bool
    tasks: list[ConnectorTaskId]
    #: The share of a core the host used lately (placement goes by it); null when not measured.
    cpu: float | None


class ExecutorPlacement(msgspec.Struct):
    """`GET /executor` (kconnect's own): where this worker's tasks run, and kconnect's version."""

    kconnect_version: str
    executor: str
    slots: int | None
    slots_used: int
    tasks_per_host: int
    hosts: list[TaskHostInfo]
    unplaced: list[ConnectorTaskId]


class ConnectorInfo(msgspec.Struct):
    """`GET /connectors/{name}` and the answer to create/update."""

    name: str
    config: dict[str, str]
    tasks: list[ConnectorTaskId]
    type: ConnectorTypeName


class ConnectorState(msgspec.Struct, omit_defaults=True):
    """The connector part of a status; ``version`` and ``trace`` only when present."""

    state: StateName
    worker_id: str
    version: str | None = None
    trace: str | None = None


class TaskState(msgspec.Struct, omit_defaults=True):
    """One task's status; ``version`` and ``trace`` only when present."""

    id: int
    state: StateName
    worker_id: str
    version: str | None = None
    trace: str | None = None


class ConnectorStateInfo(msgspec.Struct):
    """`GET /connectors/{name}/status`."""

    name: str
    connector: ConnectorState
    tasks: list[TaskState]
    type: ConnectorTypeName


class TaskInfo(msgspec.Struct):
    """One entry of `GET /connectors/{name}/tasks`."""

    id: ConnectorTaskId
    config: dict[str, str]


class ConnectorExpansion(msgspec.Struct, omit_defaults=True):
    """One connector of `GET /connectors?expand=...`: only the requested keys."""

    status: ConnectorStateInfo | None = None
    info: ConnectorInfo | None = None


class ActiveTopics(msgspec.Struct):
    """The topics one connector has used (KIP-558)."""

    topics: list[str]


class PluginInfo(msgspec.Struct, omit_defaults=True):
    """One entry of `GET /connector-plugins`; ``version`` omitted when undefined."""

    class_: str = msgspec.field(name="class")
    type: PluginTypeName
    version: str | None = None


class ConfigKeyInfo(msgspec.Struct):
    """A config key's definition (the order in its group is ``order``, as Kafka writes it)."""

    name: str
    type: str
    required: bool
    default_value: str | None
    importance: str
    documentation: str | None
    group: str | None
    width: str
    display_name: str
    dependents: list[str]
    order: int


class ConfigValueInfo(msgspec.Struct):
    """A config key's validated value and its errors."""

    name: str
    value: str | None
    recommended_values: list[str | None]
    errors: list[str]
    visible: bool


class ConfigInfo(msgspec.Struct):
    """One key of a validation answer: its definition and value, either may be null."""

    definition: ConfigKeyInfo | None
    value: ConfigValueInfo | None


class ConfigInfos(msgspec.Struct):
    """`PUT /connector-plugins/{plugin}/config/validate`; ``name`` is the connector class as sent."""

    name: str
    error_count: int
    groups: list[str]
    configs: list[ConfigInfo]


class ConnectorOffset(msgspec.Struct):
    """One partition and its offset (null offset: remove it, in an alter request)."""

    partition: dict[str, Any] | None = None
    offset: dict[str, Any] | None = None


class ConnectorOffsets(msgspec.Struct):
    """`GET /connectors/{name}/offsets`."""

    offsets: list[ConnectorOffset]


class Message(msgspec.Struct):
    """A success message (offsets altered or reset)."""

    message: str


class AutoRestartsState(msgspec.Struct):
    """Where the automatic restarts of a connector's instance stand (kconnect extension); times: epoch ms."""

    count: int
    last_failure: str | None
    last_failure_ms: int | None
    next_attempt_ms: int | None
    gave_up: bool


class TaskAutoRestarts(msgspec.Struct):
    """Where one task's automatic restarts stand (kconnect extension)."""

    id: int
    count: int
    last_failure: str | None
    last_failure_ms: int | None
    next_attempt_ms: int | None
    gave_up: bool


class ConnectorAutoRestarts(msgspec.Struct):
    """`GET /connectors/{name}/restarts` (kconnect extension): the ``auto.restart.*`` keys in effect and
    where the automatic restarts of the connector's instance and of each task stand."""

    name: str
    enabled: bool
    max_attempts: int
    backoff_ms: int
    backoff_max_ms: int
    connector: AutoRestartsState
    tasks: list[TaskAutoRestarts]


class LoggerLevel(msgspec.Struct):
    """A logger's level; ``last_modified`` (epoch ms) is null until changed through REST."""

    level: str
    last_modified: int | None


def empty(status: int) -> Response[Any]:
    """An answer with no body (Kafka's ``Response.accepted().build()``: pause, resume, topics reset).

    Its handler documents it with `no_content`; `kconnect_rest.methods` removes its Content-Type.
    """
    return Response(content=b"", status_code=status)


def no_content(description: str) -> ResponseSpec:
    """The OpenAPI declaration of an answer without a body (an `empty` one)."""
    return ResponseSpec(data_container=None, description=description, generate_examples=False)


# --- converters: herder dataclasses -> wire ---------------------------------------------------------


def task_id(task: model.ConnectorTaskId) -> ConnectorTaskId:
    """A task id on the wire."""
    return ConnectorTaskId(connector=task.connector, task=task.task)


def connector_info(info: model.ConnectorInfo) -> ConnectorInfo:
    """ConnectorInfo on the wire (tasks in id order, as the herder gives them)."""
    return ConnectorInfo(
        name=info.name,
        config=dict(info.config),
        tasks=[task_id(t) for t in info.tasks],
        type=info.type.value,
    )


def _state(state: model.State) -> StateName:
    # DESTROYED is never shown by Kafka; a herder should not report it, but if it does it is stopped.
    return "STOPPED" if state is model.State.DESTROYED else state.value  # type: ignore[return-value]


def connector_state_info(info: model.ConnectorStateInfo) -> ConnectorStateInfo:
    """A status on the wire; tasks keep the herder's order (sorted, except in a restart snapshot)."""
    connector = info.connector
    return ConnectorStateInfo(
        name=info.name,
        connector=ConnectorState(
            state=_state(connector.state),
            worker_id=connector.worker_id,
            version=connector.version or None,
            trace=connector.trace or None,
        ),
        tasks=[task_state(t) for t in info.tasks],
        type=info.type.value,
    )


def task_state(task: model.TaskStateInfo) -> TaskState:
    """One task's status on the wire."""
    return TaskState(
        id=task.id,
        state=_state(task.state),
        worker_id=task.worker_id,
        version=task.version or None,
        trace=task.trace or None,
    )


def task_info(task: model.TaskInfo) -> TaskInfo:
    """One task's id and config on the wire."""
    return TaskInfo(id=task_id(task.id), config=dict(task.config))


def plugin_info(plugin: PluginDesc) -> PluginInfo | None:
    """A plugin on the wire; None for kinds `/connector-plugins` never lists (REST extensions)."""
    if plugin.type is PluginType.REST_EXTENSION:
        return None
    version = None if plugin.version in ("", "undefined") else plugin.version
    return PluginInfo(class_=plugin.class_name, type=plugin.type.value, version=version)  # type: ignore[arg-type]


def _json_of(value: Any) -> Any:
    to_json = getattr(value, "to_json", None)
    return to_json() if callable(to_json) else value


def config_infos(result: Any) -> ConfigInfos:
    """The herder's validation result (`kconnect.config` ConfigInfos, or its JSON) on the wire."""
    return msgspec.convert(_json_of(result), ConfigInfos)


def config_key_info(key: Any) -> ConfigKeyInfo:
    """A `kconnect.config` ConfigKeyInfo (or its JSON) on the wire."""
    return msgspec.convert(_json_of(key), ConfigKeyInfo)


def connector_offsets(offsets: model.ConnectorOffsets) -> ConnectorOffsets:
    """Committed offsets on the wire."""
    return ConnectorOffsets(
        offsets=[
            ConnectorOffset(
                partition=dict(o.partition),
                offset=None if o.offset is None else dict(o.offset),
            )
            for o in offsets.offsets
        ]
    )


def connector_auto_restarts(restarts: model.ConnectorAutoRestarts) -> ConnectorAutoRestarts:
    """The herder's `ConnectorAutoRestarts` on the wire, tasks in id order."""
    c = restarts.connector
    return ConnectorAutoRestarts(
        name=restarts.name,
        enabled=restarts.enabled,
        max_attempts=restarts.max_attempts,
        backoff_ms=restarts.backoff_ms,
        backoff_max_ms=restarts.backoff_max_ms,
        connector=AutoRestartsState(c.count, c.last_failure, c.last_failure_ms, c.next_attempt_ms, c.gave_up),
        tasks=[
            TaskAutoRestarts(task, t.count, t.last_failure, t.last_failure_ms, t.next_attempt_ms, t.gave_up)
            for task, t in sorted(restarts.tasks.items())
        ],
    )
