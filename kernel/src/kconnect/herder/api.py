"""The herder's front door: what REST and the CLI call. One protocol, the same in both modes.

Every method is a coroutine that returns once the change is *recorded* (Kafka's asynchronous
model); status shows the effect once tasks reach it. Errors are kernel errors
(`kconnect.errors`): NotFoundError, AlreadyExistsError, BadRequestError, ConflictError.
The result types are plain dataclasses whose fields carry Kafka's wire names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from kconnect.cluster import ClusterView
from kconnect.executor import Placement
from kconnect.herder.loggers import Loggers
from kconnect.model import (
    ConnectorAutoRestarts,
    ConnectorInfo,
    ConnectorOffset,
    ConnectorOffsets,
    ConnectorStateInfo,
    ConnectorTaskId,
    RestartRequest,
    SessionKey,
    TargetState,
    TaskInfo,
    TaskStateInfo,
)


@dataclass(frozen=True)
class PutResult:
    """Outcome of a config write: whether it created the connector, and the connector's info."""

    created: bool
    info: ConnectorInfo


@dataclass(frozen=True)
class WorkerHealth:
    """`GET /health`: starting / healthy / unhealthy, with a message."""

    status: str
    message: str


class Herder(Protocol):
    """The one front door to the connectors of a worker (standalone) or a cluster (distributed)."""

    worker_id: str

    async def kafka_cluster_id(self) -> str:
        """The Kafka cluster id of the worker's broker."""
        ...

    def health(self) -> WorkerHealth:
        """Whether the worker has finished starting and is healthy."""
        ...

    def placement(self) -> Placement:
        """Where this worker's tasks run (its executor's report)."""
        ...

    async def connectors(self) -> list[str]:
        """Names of all connectors, sorted."""
        ...

    async def connector_info(self, name: str) -> ConnectorInfo:
        """Config and task ids of one connector; NotFoundError if unknown."""
        ...

    async def connector_config(self, name: str) -> dict[str, str]:
        """The connector's config; NotFoundError if unknown."""
        ...

    async def put_connector_config(
        self,
        name: str,
        config: Mapping[str, str],
        *,
        allow_replace: bool,
        initial_state: TargetState | None = None,
    ) -> PutResult:
        """Create or update a connector after validating its config.

        AlreadyExistsError if it exists and `allow_replace` is False; BadRequestError with Kafka's
        multi-error message if the config is invalid.
        """
        ...

    async def patch_connector_config(self, name: str, patch: Mapping[str, str | None]) -> ConnectorInfo:
        """Merge `patch` into the config (a None value removes the key), validate and apply it."""
        ...

    async def delete_connector(self, name: str) -> ConnectorInfo:
        """Stop and remove a connector, its tasks and status; NotFoundError if unknown."""
        ...

    async def connector_status(self, name: str) -> ConnectorStateInfo:
        """Observed state of the connector and its tasks."""
        ...

    async def task_configs(self, name: str) -> list[TaskInfo]:
        """Ids and configs of the connector's tasks."""
        ...

    async def task_status(self, task: ConnectorTaskId) -> TaskStateInfo:
        """Observed state of one task; NotFoundError if unknown."""
        ...

    async def auto_restarts(self, name: str) -> ConnectorAutoRestarts:
        """The connector's automatic restart keys and where the automatic restarts of its instance and
        tasks stand (a kconnect extension, ``GET /connectors/{name}/restarts``); NotFoundError if unknown."""
        ...

    async def restart_task(self, task: ConnectorTaskId) -> None:
        """Restart one task; NotFoundError if unknown."""
        ...

    async def restart_connector(self, request: RestartRequest) -> ConnectorStateInfo:
        """Restart per KIP-745; returns the status snapshot showing RESTARTING where it applies."""
        ...

    async def pause_connector(self, name: str) -> None:
        """Set target state PAUSED (persistent, idempotent)."""
        ...

    async def resume_connector(self, name: str) -> None:
        """Set target state STARTED (persistent, idempotent)."""
        ...

    async def stop_connector(self, name: str) -> None:
        """Set target state STOPPED: connector and tasks shut down, no tasks remain."""
        ...

    async def connector_offsets(self, name: str) -> ConnectorOffsets:
        """Committed offsets: source offsets from the offset store, sink ones from `connect-<name>`."""
        ...

    async def alter_offsets(self, name: str, offsets: Sequence[ConnectorOffset]) -> str:
        """Alter offsets of a STOPPED connector; returns Kafka's success message."""
        ...

    async def reset_offsets(self, name: str) -> str:
        """Reset all offsets of a STOPPED connector; returns Kafka's success message."""
        ...

    async def active_topics(self, name: str) -> list[str]:
        """Topics the connector has used since the last reset (KIP-558), sorted."""
        ...

    async def reset_active_topics(self, name: str) -> None:
        """Forget the connector's active topics."""
        ...

    async def validate_connector_config(self, config: Mapping[str, str]) -> Any:
        """Kafka's ConfigInfos for this config (`kconnect.config` builds it); BadRequestError when
        `connector.class` is missing, PluginError when it names no installed connector."""
        ...

    def plugins(self, *, connectors_only: bool) -> list[Any]:
        """Installed plugins (PluginDesc) as `/connector-plugins` lists them: sinks, then sources, then
        the other kinds when `connectors_only` is False."""
        ...

    def plugin_config(self, plugin: str, version: str | None = None) -> list[Any]:
        """The plugin's config keys (ConfigKeyInfo), then the framework's for connectors (KIP-769);
        those of the newest installed `version` in a KIP-891 version or range, when given."""
        ...

    def cluster_view(self) -> ClusterView:
        """A read-only snapshot for REST extensions."""
        ...

    @property
    def loggers(self) -> Loggers:
        """This worker's logger levels: `/admin/loggers` reads them and sets them (``scope=worker``)."""
        ...

    async def set_cluster_logger_level(self, namespace: str, level: str) -> None:
        """``PUT /admin/loggers/{namespace}?scope=cluster`` (KIP-976) with a valid level name: every
        worker of the cluster sets it (standalone: this worker, the whole cluster)."""
        ...


@runtime_checkable
class InternalHerder(Protocol):
    """What a distributed herder offers the endpoints workers call on each other (Kafka's
    InternalClusterResource); the REST app serves them only for a herder that has these methods.

    The REST layer checks the request's signature (`kconnect_rest.signing`) before calling
    `put_task_configs`; the herder never sees HTTP.
    """

    def internal_request_key(self) -> SessionKey | None:
        """The session key internal requests must be signed with (the newest read from the config
        topic), or None while none is known. Called by REST for every internal request."""
        ...

    def internal_requests_signed(self) -> bool:
        """Whether internal requests must carry a valid signature: True when the group runs the
        ``sessioned`` protocol (Kafka's rule), False for ``eager``/``compatible``."""
        ...

    async def put_task_configs(self, connector: str, configs: Sequence[Mapping[str, str]]) -> None:
        """Write a connector's task configs (sent by the worker running the connector).

        Leader only: another worker raises NotLeaderError(message, leader_url) and REST forwards the
        request. NotFoundError(``Connector <name> not found``) for an unknown connector.
        """
        ...

    async def fence_zombies(self, connector: str) -> None:
        """Fence out the producers of the source connector's current task generation and write its
        task count record (Kafka's fenceZombieSourceTasks, ``PUT /connectors/{name}/fence``).

        Leader only (NotLeaderError otherwise); NotFoundError for an unknown connector,
        BadRequestError (``Connector <name> is not a source connector``) for a sink.
        """
        ...


class LeaderRequests(Protocol):
    """How a distributed herder sends the leader what only the leader may write (REST implements it:
    `kconnect_rest.internal_client.InternalRequestClient`); the herder is handed one at start."""

    async def put_task_configs(
        self,
        leader_url: str,
        connector: str,
        configs: Sequence[Mapping[str, str]],
        session_key: SessionKey | None,
    ) -> None:
        """``POST {leader_url}/connectors/{connector}/tasks?forward=true`` with the task configs,
        signed with `session_key` when given. Raises ConnectError naming the leader and the
        reason when the leader cannot be reached or refuses (the herder retries later, as Kafka's)."""
        ...
