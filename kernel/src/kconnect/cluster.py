"""The read-only view of the cluster a REST extension receives (Kafka's ``ConnectClusterState``).

Part of the author API: a REST extension factory registered through ``register_rest_extensions``
(`kconnect.hookspecs`) is called as ``factory(worker_config, cluster_state)`` with a
`ClusterState`, never the herder::

    from kconnect.cluster import ClusterState

    def my_factory(worker_config, cluster_state: ClusterState):
        return MyLitestarPlugin(cluster_state)

Each read of a `ClusterState` takes a fresh `ClusterView` snapshot from the herder
(`Herder.cluster_view`), so an extension sees connectors created after it was built. The REST
layer (`kconnect_rest.app`) builds the state; a plugin only reads it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field

from kconnect.errors import NotFoundError
from kconnect.executor import Placement
from kconnect.model import ConnectorAutoRestarts, ConnectorStateInfo, ConnectorTaskId


@dataclass
class ClusterView:
    """One snapshot of the cluster, as the herder answers `Herder.cluster_view`."""

    connectors: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    kafka_cluster_id: str | None = None
    #: The latest metrics of each task this worker runs: group -> Kafka metric name -> value.
    task_metrics: Mapping[ConnectorTaskId, Mapping[str, Mapping[str, float]]] = field(default_factory=dict)
    #: This worker's id (its advertised REST URL), as status answers name it.
    worker_id: str = ""
    #: Where this worker's tasks run (`Executor.placement`), if known.
    placement: Placement | None = None
    #: Each stalled task of this worker, and since when (Unix seconds); ``task.stall.timeout.ms``.
    stalled_tasks: Mapping[ConnectorTaskId, float] = field(default_factory=dict)
    #: Where the automatic restarts of each connector that enables them (or has a schedule) stand.
    auto_restarts: Mapping[str, ConnectorAutoRestarts] = field(default_factory=dict)


class ClusterState:
    """A live, read-only view of the cluster for extensions (Kafka's ConnectClusterState).

    Each read takes a fresh snapshot (`Herder.cluster_view`), so an extension sees connectors
    created after it was built.
    """

    def __init__(
        self,
        snapshot: Callable[[], ClusterView],
        status: Callable[[str], Awaitable[ConnectorStateInfo]] | None = None,
    ) -> None:
        self._snapshot = snapshot
        self._status = status

    @property
    def connectors(self) -> Mapping[str, Mapping[str, str]]:
        """Connector name -> its config, as of now."""
        return self._snapshot().connectors

    def connector_config(self, name: str) -> Mapping[str, str] | None:
        """One connector's config, or None if there is no such connector."""
        return self._snapshot().connectors.get(name)

    @property
    def kafka_cluster_id(self) -> str | None:
        """The Kafka cluster id of the worker's broker, once known."""
        return self._snapshot().kafka_cluster_id

    @property
    def task_metrics(self) -> Mapping[ConnectorTaskId, Mapping[str, Mapping[str, float]]]:
        """The latest metrics of each task this worker runs (group -> Kafka metric name -> value)."""
        return self._snapshot().task_metrics

    @property
    def worker_id(self) -> str:
        """This worker's id, as status answers name the worker running a connector or task."""
        return self._snapshot().worker_id

    @property
    def stalled_tasks(self) -> Mapping[ConnectorTaskId, float]:
        """Each stalled task this worker runs, and since when it is stalled (Unix seconds)."""
        return self._snapshot().stalled_tasks

    @property
    def auto_restarts(self) -> Mapping[str, ConnectorAutoRestarts]:
        """Where the automatic restarts (``auto.restart.*``) of each connector that enables them stand."""
        return self._snapshot().auto_restarts

    @property
    def placement(self) -> Placement | None:
        """Where this worker's tasks run (its executor's hosts and slots), if known."""
        return self._snapshot().placement

    async def connector_health(self, name: str) -> ConnectorStateInfo:
        """A connector's state and its tasks' states, as ``GET /connectors/{name}/status`` shows them
        (Kafka's ``connectorHealth``); NotFoundError if there is no such connector."""
        if self._status is None:
            raise NotFoundError(f"Connector {name} not found")
        return await self._status(name)
