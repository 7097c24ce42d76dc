"""`GET /` and `GET /health` (Kafka's RootResource), and kconnect's own `GET /executor`."""

from __future__ import annotations

import functools
from pathlib import Path

from kconnect import __version__
from litestar import Controller, Response, get
from litestar.openapi.datastructures import ResponseSpec

from kconnect_rest.api_version import KAFKA_CONNECT_VERSION
from kconnect_rest.dependencies import HerderDep
from kconnect_rest.errors import error_responses
from kconnect_rest.wire import ConnectorTaskId, ExecutorPlacement, ServerInfo, TaskHostInfo, WorkerStatus

_HEALTH_STATUS = {"healthy": 200, "starting": 503, "unhealthy": 500}


def commit_id(start: Path | None = None) -> str:
    """The git commit kconnect runs from (first 16 hex digits), or ``unknown`` outside a checkout."""
    here = (start or Path(__file__)).resolve()
    for directory in here.parents:
        head = directory / ".git" / "HEAD"
        if not head.is_file():
            continue
        try:
            ref = head.read_text(encoding="ascii").strip()
            if ref.startswith("ref: "):
                ref_file = directory / ".git" / ref[5:]
                ref = ref_file.read_text(encoding="ascii").strip() if ref_file.is_file() else ""
        except (OSError, UnicodeError):
            return "unknown"
        return ref[:16] if len(ref) >= 16 else "unknown"
    return "unknown"


@functools.cache
def running_commit() -> str:
    """`commit_id` of this process's code, read once (a second dependency would cost `GET /` a task group)."""
    return commit_id()


class RootController(Controller):
    """The worker's identity and health."""

    path = "/"
    tags = ["root"]

    @get("/", summary="Version, commit and Kafka cluster id", responses=error_responses(409, 500))
    async def server_info(self, herder: HerderDep) -> ServerInfo:
        """`GET /`: the Kafka Connect version whose API is served, kconnect's commit and the broker's
        cluster id: Kafka's three keys and no other."""
        return ServerInfo(
            version=KAFKA_CONNECT_VERSION,
            commit=running_commit(),
            kafka_cluster_id=await herder.kafka_cluster_id(),
        )

    @get(
        "/health",
        summary="Worker health (KIP-1017)",
        responses={
            500: ResponseSpec(
                data_container=WorkerStatus, description="Worker unhealthy", generate_examples=False
            ),
            503: ResponseSpec(
                data_container=WorkerStatus, description="Worker starting", generate_examples=False
            ),
        },
    )
    async def health(self, herder: HerderDep) -> Response[WorkerStatus]:
        """`GET /health`: 200 healthy, 503 starting, 500 unhealthy, with a message."""
        health = herder.health()
        status = health.status if health.status in _HEALTH_STATUS else "unhealthy"
        return Response(
            WorkerStatus(status=status, message=health.message),  # type: ignore[arg-type]
            status_code=_HEALTH_STATUS[status],
        )

    @get("/executor", summary="Where this worker's tasks run (kconnect's own endpoint)")
    async def executor(self, herder: HerderDep) -> ExecutorPlacement:
        """`GET /executor`: the executor's task slots, its hosts (hosting Spark tasks) and the
        tasks each runs; not in Kafka Connect, which runs every task as a thread of its JVM."""
        placement = herder.placement()
        hosts = [
            TaskHostInfo(
                id=host.id,
                state=host.state,
                capacity=host.capacity,
                dedicated=host.dedicated,
                tasks=[ConnectorTaskId(connector=t.connector, task=t.task) for t in host.tasks],
                cpu=host.cpu,
            )
            for host in placement.hosts
        ]
        return ExecutorPlacement(
            kconnect_version=__version__,
            executor=placement.executor,
            slots=placement.slots,
            slots_used=sum(1 for host in placement.hosts if host.state == "RUNNING"),
            tasks_per_host=placement.tasks_per_host,
            hosts=hosts,
            unplaced=[ConnectorTaskId(connector=t.connector, task=t.task) for t in placement.unplaced],
        )
