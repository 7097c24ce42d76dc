"""A connector's offsets: read, alter, reset (KIP-875)."""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, delete, get, patch
from litestar.params import Body

from kconnect_rest import bodies, wire
from kconnect_rest.bodies import ConnectorOffsetsRequest
from kconnect_rest.controllers.connectors import ConnectorName
from kconnect_rest.dependencies import HerderDep
from kconnect_rest.errors import error_responses


class OffsetsController(Controller):
    """`/connectors/{connector}/offsets`; altering and resetting need a STOPPED connector."""

    path = "/connectors/{connector:str}/offsets"
    tags = ["offsets"]

    @get("/", summary="A connector's committed offsets", responses=error_responses(400, 404, 409, 500))
    async def get_offsets(self, herder: HerderDep, connector: ConnectorName) -> wire.ConnectorOffsets:
        """Source offsets from the offset store, sink offsets from the group ``connect-<name>``."""
        return wire.connector_offsets(await herder.connector_offsets(connector))

    @patch(
        "/",
        status_code=200,
        summary="Alter a STOPPED connector's offsets",
        responses=error_responses(400, 404, 409, 413, 415, 500),
    )
    async def alter_offsets(
        self, herder: HerderDep, connector: ConnectorName, data: Annotated[ConnectorOffsetsRequest, Body()]
    ) -> wire.Message:
        """200 with Kafka's success message; 400 for an empty body (before the existence check)."""
        offsets = bodies.offsets_to_alter(data)
        return wire.Message(message=await herder.alter_offsets(connector, offsets))

    @delete(
        "/",
        status_code=200,
        summary="Reset a STOPPED connector's offsets",
        responses=error_responses(400, 404, 409, 500),
    )
    async def reset_offsets(self, herder: HerderDep, connector: ConnectorName) -> wire.Message:
        """200 with Kafka's success message."""
        return wire.Message(message=await herder.reset_offsets(connector))
