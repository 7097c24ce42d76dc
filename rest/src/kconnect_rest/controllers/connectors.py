"""Connectors: list, create, read, configure, status, tasks, delete (Kafka's ConnectorsResource)."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

from kconnect.config.connector_keys import with_connector_name
from kconnect.errors import NotFoundError
from kconnect.herder.api import Herder
from kconnect.model import ConnectorTaskId
from litestar import Controller, Request, Response, delete, get, patch, post, put
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import Body, PathParameter, QueryParameter

from kconnect_rest import bodies, wire
from kconnect_rest.bodies import ConfigBody, ConfigPatch, CreateConnectorRequest
from kconnect_rest.controllers import hidden
from kconnect_rest.dependencies import HerderDep
from kconnect_rest.errors import error_responses

ConnectorName = Annotated[str, PathParameter(description="Connector name, URL-encoded")]
NewConnectorName = Annotated[
    str,
    PathParameter(
        description="Connector name, URL-encoded; at most 249 characters",
        schema_extra=bodies.CONNECTOR_NAME_SCHEMA,
    ),
]
TaskNumber = Annotated[int, PathParameter(description="Task number", ge=0)]
Expand = Annotated[
    tuple[str, ...],
    QueryParameter(
        name="expand", description="Repeat for several: `status`, `info`; other values are ignored"
    ),
]
CREATED = ResponseSpec(
    data_container=wire.ConnectorInfo, description="Connector created", generate_examples=False
)


def location(request: Request[Any, Any, Any], name: str) -> dict[str, str]:
    """The absolute URL of a connector, for a 201's ``Location``."""
    return {"Location": f"{str(request.base_url).rstrip('/')}/connectors/{quote(name, safe='')}"}


class ConnectorsController(Controller):
    """Connector resources under `/connectors`."""

    path = "/connectors"
    tags = ["connectors"]

    @get("/", summary="List connectors", responses=error_responses(400, 409))
    async def list_connectors(
        self, herder: HerderDep, expand: Expand = ()
    ) -> list[str] | dict[str, wire.ConnectorExpansion]:
        """Names; with `expand`, each connector's status and/or info (connectors without status skipped)."""
        names = await herder.connectors()
        if not expand:
            return names
        result: dict[str, wire.ConnectorExpansion] = {}
        known: hidden.KnownPasswordKeys = {}
        for name in names:
            try:
                result[name] = await _expansion(herder, name, expand, known)
            except NotFoundError:
                continue  # deleted meanwhile, or no status yet: Kafka skips it
        return result

    @post(
        "/",
        status_code=201,
        summary="Create a connector",
        responses=error_responses(400, 409, 413, 415, 500),
    )
    async def create_connector(
        self,
        request: Request[Any, Any, Any],
        herder: HerderDep,
        data: Annotated[CreateConnectorRequest, Body()],
    ) -> Response[wire.ConnectorInfo]:
        """201 with Location and the new connector; 409 if it exists; 400 for an invalid config."""
        name = bodies.check_connector_name(data.name or "").strip()
        config = with_connector_name(bodies.string_map(data.config), name)
        state = bodies.initial_state(data.initial_state)
        result = await herder.put_connector_config(name, config, allow_replace=False, initial_state=state)
        info = hidden.connector_info(herder, result.info)
        return Response(info, status_code=201, headers=location(request, name))

    @get("/{connector:str}", summary="A connector's info", responses=error_responses(400, 404, 409))
    async def get_connector(self, herder: HerderDep, connector: ConnectorName) -> wire.ConnectorInfo:
        """Config (PASSWORD values hidden), task ids and type of one connector."""
        return hidden.connector_info(herder, await herder.connector_info(connector))

    @get("/{connector:str}/config", summary="A connector's config", responses=error_responses(400, 404, 409))
    async def get_config(self, herder: HerderDep, connector: ConnectorName) -> dict[str, str]:
        """The raw config (``${...}`` references unresolved, PASSWORD values hidden)."""
        return hidden.config(herder, await herder.connector_config(connector))

    @put(
        "/{connector:str}/config",
        status_code=200,
        summary="Create or update a connector's config",
        responses={201: CREATED, **error_responses(400, 409, 413, 415, 500)},
    )
    async def put_config(
        self,
        request: Request[Any, Any, Any],
        herder: HerderDep,
        connector: NewConnectorName,
        data: Annotated[
            ConfigBody,
            Body(
                description="The whole config; numbers and booleans become strings",
                schema_extra=bodies.CONNECTOR_CONFIG_SCHEMA,
            ),
        ],
    ) -> Response[wire.ConnectorInfo]:
        """201 with Location if created, 200 if updated; the target state is left as it is.

        A PASSWORD key sent as exactly ``[hidden]`` keeps its stored value."""
        bodies.check_connector_name(connector)
        config = with_connector_name(bodies.string_map(data), connector)
        config = await hidden.kept(herder, connector, config)
        result = await herder.put_connector_config(connector, config, allow_replace=True)
        info = hidden.connector_info(herder, result.info)
        if result.created:
            return Response(info, status_code=201, headers=location(request, connector))
        return Response(info, status_code=200)

    @patch(
        "/{connector:str}/config",
        summary="Patch a connector's config (KIP-477)",
        responses=error_responses(400, 404, 409, 413, 415, 500),
    )
    async def patch_config(
        self,
        herder: HerderDep,
        connector: ConnectorName,
        data: Annotated[ConfigPatch, Body(description="Keys to set; a null value removes the key")],
    ) -> wire.ConnectorInfo:
        """Merge the patch into the config, re-validate and apply it ([hidden] keeps a PASSWORD value)."""
        patch = await hidden.kept_patch(herder, connector, bodies.patch_map(data))
        return hidden.connector_info(herder, await herder.patch_connector_config(connector, patch))

    @delete("/{connector:str}", summary="Delete a connector", responses=error_responses(400, 404, 409))
    async def delete_connector(self, herder: HerderDep, connector: ConnectorName) -> None:
        """204; the connector, its tasks and status are gone."""
        await herder.delete_connector(connector)

    @get("/{connector:str}/status", summary="A connector's status", responses=error_responses(400, 404, 409))
    async def get_status(self, herder: HerderDep, connector: ConnectorName) -> wire.ConnectorStateInfo:
        """Observed state of the connector and its tasks."""
        return wire.connector_state_info(await herder.connector_status(connector))

    @get("/{connector:str}/tasks", summary="A connector's tasks", responses=error_responses(400, 404, 409))
    async def get_tasks(self, herder: HerderDep, connector: ConnectorName) -> list[wire.TaskInfo]:
        """Each task's id and config, PASSWORD values hidden; empty when STOPPED or created PAUSED/STOPPED."""
        return await hidden.task_infos(herder, connector, await herder.task_configs(connector))

    @get(
        "/{connector:str}/tasks/{task:int}/status",
        summary="A task's status",
        responses=error_responses(400, 404, 409),
    )
    async def get_task_status(
        self, herder: HerderDep, connector: ConnectorName, task: TaskNumber
    ) -> wire.TaskState:
        """Observed state of one task."""
        return wire.task_state(await herder.task_status(ConnectorTaskId(connector, task)))

    @post(
        "/{connector:str}/tasks/{task:int}/restart",
        status_code=204,
        summary="Restart a task",
        responses=error_responses(400, 404, 409, 415),
    )
    async def restart_task(self, herder: HerderDep, connector: ConnectorName, task: TaskNumber) -> None:
        """204 once the restart is recorded."""
        await herder.restart_task(ConnectorTaskId(connector, task))


async def _expansion(
    herder: Herder, name: str, expand: tuple[str, ...], known: hidden.KnownPasswordKeys
) -> wire.ConnectorExpansion:
    expansion = wire.ConnectorExpansion()
    for kind in expand:  # each value literally: "status,info" is an unknown expansion, as in Kafka
        if kind == "status":
            expansion.status = wire.connector_state_info(await herder.connector_status(name))
        elif kind == "info":
            expansion.info = hidden.connector_info(herder, await herder.connector_info(name), known)
    return expansion
