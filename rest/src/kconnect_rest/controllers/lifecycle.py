"""Pause, resume, stop and restart a connector (Kafka's ConnectorsResource, KIP-745, KIP-875)."""

from __future__ import annotations

from typing import Annotated, Any

from kconnect.model import RestartRequest
from litestar import Controller, Response, post, put
from litestar.openapi.datastructures import ResponseSpec

from kconnect_rest import wire
from kconnect_rest.controllers.connectors import ConnectorName
from kconnect_rest.dependencies import HerderDep
from kconnect_rest.errors import error_responses
from kconnect_rest.params import boolean_query, java_boolean

RESTARTING = ResponseSpec(
    data_container=wire.ConnectorStateInfo,
    description="Restarting: the status before the restart, RESTARTING where it applies",
    generate_examples=False,
)
ACCEPTED = wire.no_content("Accepted; the tasks follow")


class LifecycleController(Controller):
    """Target-state changes; each returns once recorded, status shows it when the tasks reach it."""

    path = "/connectors/{connector:str}"
    tags = ["connectors"]

    @put(
        "/pause",
        status_code=202,
        summary="Pause a connector",
        responses={202: ACCEPTED, **error_responses(400, 404, 409, 415)},
    )
    async def pause(self, herder: HerderDep, connector: ConnectorName) -> Response[Any]:
        """202 with an empty body; idempotent and persistent."""
        await herder.pause_connector(connector)
        return wire.empty(202)

    @put(
        "/resume",
        status_code=202,
        summary="Resume a connector",
        responses={202: ACCEPTED, **error_responses(400, 404, 409, 415)},
    )
    async def resume(self, herder: HerderDep, connector: ConnectorName) -> Response[Any]:
        """202 with an empty body; idempotent."""
        await herder.resume_connector(connector)
        return wire.empty(202)

    @put(
        "/stop",
        status_code=204,
        summary="Stop a connector (KIP-875)",
        responses=error_responses(400, 404, 409, 415),
    )
    async def stop(self, herder: HerderDep, connector: ConnectorName) -> None:
        """204; the connector goes STOPPED with no tasks anywhere."""
        await herder.stop_connector(connector)

    @post(
        "/restart",
        status_code=202,
        summary="Restart a connector and optionally its tasks (KIP-745)",
        responses={
            202: RESTARTING,
            204: wire.no_content("Restarted (no parameters given)"),
            **error_responses(400, 404, 409, 415),
        },
    )
    async def restart(
        self,
        herder: HerderDep,
        connector: ConnectorName,
        include_tasks: Annotated[
            str | None, boolean_query("includeTasks", "Restart tasks too", False)
        ] = None,
        only_failed: Annotated[
            str | None, boolean_query("onlyFailed", "Only FAILED instances", False)
        ] = None,
    ) -> Response[Any]:
        """204 without parameters; otherwise 202 with the status showing RESTARTING where it applies."""
        request = RestartRequest(
            connector=connector,
            only_failed=java_boolean(only_failed, False),
            include_tasks=java_boolean(include_tasks, False),
        )
        snapshot = await herder.restart_connector(request)
        if not request.include_tasks and not request.only_failed:
            return wire.empty(204)
        return Response(wire.connector_state_info(snapshot), status_code=202)
