"""Endpoints workers call on each other (Kafka's InternalClusterResource), hidden from the OpenAPI document.

``POST /connectors/{connector}/tasks``: the worker running a connector sends the connector's task
configs to the leader, which writes them to the config topic. The request must be signed with the
cluster's session key (`kconnect_rest.signing`) when the group runs the ``sessioned`` protocol; a
worker that is not the leader forwards it (`kconnect_rest.forwarding`). `create_app` adds this
handler only when the herder is an `InternalHerder` (distributed mode); Kafka's
``PUT /connectors/{connector}/fence`` (KIP-618 zombie fencing), signed and forwarded the same way:
the leader fences the producers of the source connector's current task generation and writes its
task count record. kconnect's own workers never need to ask, as the leader fences a source
connector's previous generation when it writes the new task configs
(`kconnect.herder.zombie_fencing`); the endpoint answers as Kafka's does.
"""

from __future__ import annotations

from typing import Any

import msgspec
from kconnect.distributed.request_signing import InterWorkerKeyConfig
from kconnect.errors import BadRequestError
from kconnect.herder.api import InternalHerder
from litestar import Request, post, put
from litestar.di import NamedDependency
from litestar.params import SkipValidation

from kconnect_rest.controllers.connectors import ConnectorName
from kconnect_rest.dependencies import HerderDep
from kconnect_rest.signing import verify_request

KeyConfigDep = NamedDependency[SkipValidation[InterWorkerKeyConfig]]
"""The worker's ``inter.worker.*`` settings (verification algorithms)."""

_TASK_CONFIGS = msgspec.json.Decoder(list[dict[str, str]])


@post("/connectors/{connector:str}/tasks", status_code=204, include_in_schema=False)
async def put_task_configs(
    request: Request[Any, Any, Any],
    herder: HerderDep,
    key_config: KeyConfigDep,
    connector: ConnectorName,
) -> None:
    """204 once the leader wrote the task configs; 400/403 for a missing or wrong signature.

    A plain handler, not a controller: litestar refuses a second controller on a path another
    controller serves (`ConnectorsController` answers GET on it)."""
    internal: Any = herder
    assert isinstance(internal, InternalHerder)  # create_app adds this handler only then
    body = await request.body()
    if internal.internal_requests_signed():
        verify_request(request.headers, body, internal.internal_request_key(), key_config)
    try:
        configs = _TASK_CONFIGS.decode(body)
    except msgspec.DecodeError as exc:
        raise BadRequestError(f"Task configs must be a JSON list of string maps: {exc}") from None
    await internal.put_task_configs(connector, configs)


@put("/connectors/{connector:str}/fence", status_code=204, include_in_schema=False)
async def fence_zombies(
    request: Request[Any, Any, Any],
    herder: HerderDep,
    key_config: KeyConfigDep,
    connector: ConnectorName,
) -> None:
    """204 once the leader fenced the connector's task producers; 400/403 for a missing or wrong
    signature, 404 for an unknown connector, 400 for a sink connector."""
    internal: Any = herder
    assert isinstance(internal, InternalHerder)  # create_app adds this handler only then
    body = await request.body()
    if internal.internal_requests_signed():
        verify_request(request.headers, body, internal.internal_request_key(), key_config)
    await internal.fence_zombies(connector)
