"""The topics a connector has used (KIP-558), and their reset."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Response, get, put
from litestar.exceptions import PermissionDeniedException

from kconnect_rest import wire
from kconnect_rest.controllers.connectors import ConnectorName
from kconnect_rest.dependencies import HerderDep, WorkerConfigDep
from kconnect_rest.errors import error_responses


def _enabled(worker_config: WorkerConfigDep, key: str) -> bool:
    return worker_config.props.get(key, "true").strip().lower() != "false"


class TopicsController(Controller):
    """`/connectors/{connector}/topics`; the worker's ``topic.tracking.*`` settings gate both."""

    path = "/connectors/{connector:str}/topics"
    tags = ["topics"]

    @get("/", summary="Topics a connector used", responses=error_responses(400, 403, 409))
    async def active_topics(
        self, herder: HerderDep, worker_config: WorkerConfigDep, connector: ConnectorName
    ) -> dict[str, wire.ActiveTopics]:
        """``{connector: {"topics": [...]}}``; an unknown connector has no topics (not a 404, as in Kafka)."""
        if not _enabled(worker_config, "topic.tracking.enable"):
            raise PermissionDeniedException("Topic tracking is disabled.")
        return {connector: wire.ActiveTopics(topics=await herder.active_topics(connector))}

    @put(
        "/reset",
        status_code=202,
        summary="Forget the topics a connector used",
        responses={202: wire.no_content("Accepted"), **error_responses(400, 403, 404, 409, 415)},
    )
    async def reset_topics(
        self, herder: HerderDep, worker_config: WorkerConfigDep, connector: ConnectorName
    ) -> Response[Any]:
        """202 with an empty body."""
        if not _enabled(worker_config, "topic.tracking.enable"):
            raise PermissionDeniedException("Topic tracking is disabled.")
        if not _enabled(worker_config, "topic.tracking.allow.reset"):
            raise PermissionDeniedException("Topic tracking reset is disabled.")
        await herder.reset_active_topics(connector)
        return wire.empty(202)
