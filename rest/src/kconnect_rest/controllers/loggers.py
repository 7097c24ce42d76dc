"""`/admin/loggers` over Python logging (Kafka's LoggingResource)."""

from __future__ import annotations

import logging
from typing import Annotated, Any

from kconnect.errors import NotFoundError
from kconnect.herder.loggers import level_name, parse_level
from litestar import Controller, Response, get, put
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import Body, PathParameter, QueryParameter

from kconnect_rest import bodies, wire
from kconnect_rest.bodies import LoggerLevelRequest
from kconnect_rest.dependencies import HerderDep, LoggersDep
from kconnect_rest.errors import error_responses

log = logging.getLogger(__name__)

LoggerName = Annotated[str, PathParameter(description="Logger name; `root` is the root logger")]
CLUSTER_APPLIED = wire.no_content("Applied (scope=cluster)")
WORKER_APPLIED = ResponseSpec(
    data_container=list[str],
    description="Applied (scope=worker): the loggers changed",
    generate_examples=False,
)


def _level(described: tuple[str, int | None]) -> wire.LoggerLevel:
    return wire.LoggerLevel(level=described[0], last_modified=described[1])


class LoggersController(Controller):
    """Read and set logger levels."""

    path = "/admin/loggers"
    tags = ["admin"]

    @get("/", summary="Loggers with an explicit level")
    async def list_loggers(self, loggers: LoggersDep) -> dict[str, wire.LoggerLevel]:
        """Every logger with an explicit level, and ``root``."""
        return {name: _level(level) for name, level in loggers.all_levels().items()}

    @get("/{logger:str}", summary="A logger's effective level", responses=error_responses(400, 404))
    async def get_logger(self, loggers: LoggersDep, logger: LoggerName) -> wire.LoggerLevel:
        """404 ``Logger {name} not found.`` for a logger that does not exist."""
        return _level(loggers.level(logger))

    @put(
        "/{logger:str}",
        status_code=200,
        summary="Set the level of a logger and its descendants",
        responses={200: WORKER_APPLIED, 204: CLUSTER_APPLIED, **error_responses(400, 404, 413, 415)},
    )
    async def set_level(
        self,
        herder: HerderDep,
        loggers: LoggersDep,
        logger: LoggerName,
        data: Annotated[LoggerLevelRequest, Body(description='{"level": "DEBUG"}')],
        log_scope: Annotated[
            str, QueryParameter(name="scope", description="worker (default) or cluster")
        ] = "worker",
    ) -> Response[Any]:
        """worker scope: 200 with the sorted names changed; cluster scope: 204 once the herder has
        recorded it for every worker (KIP-976)."""
        level_text = bodies.string_map({"level": data.level})["level"]
        level = parse_level(level_text)
        if level is None:
            raise NotFoundError(f"invalid log level '{level_text}'.")
        if log_scope.lower() == "cluster":
            # Written under log4j's name, which Java workers of the same cluster read too.
            await herder.set_cluster_logger_level(logger, level_name(level))
            return wire.empty(204)
        if log_scope.lower() != "worker":
            log.warning(
                "Received invalid scope '%s' in request to adjust logging level; using worker", log_scope
            )
        return Response(loggers.set_level(logger, level), status_code=200)
