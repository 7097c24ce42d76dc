"""Where a connector's automatic restarts stand (self-healing, a kconnect extension; docs/rest.md)."""

from __future__ import annotations

from litestar import Controller, get

from kconnect_rest import wire
from kconnect_rest.controllers.connectors import ConnectorName
from kconnect_rest.dependencies import HerderDep
from kconnect_rest.errors import error_responses


class RestartsController(Controller):
    """`/connectors/{connector}/restarts`: the ``auto.restart.*`` keys in effect, each instance's count,
    last failure, next attempt and whether the worker gave up. Kafka's status bodies stay unchanged."""

    path = "/connectors/{connector:str}/restarts"
    tags = ["restarts"]

    @get("/", summary="Automatic restarts (kconnect)", responses=error_responses(400, 404, 409))
    async def auto_restarts(self, herder: HerderDep, connector: ConnectorName) -> wire.ConnectorAutoRestarts:
        """The connector's automatic restarts, from whichever worker runs each instance; 404 if unknown."""
        return wire.connector_auto_restarts(await herder.auto_restarts(connector))
