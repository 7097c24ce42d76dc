"""Builds the REST app: Kafka Connect's API as litestar controllers over the herder."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

from kconnect import __version__
from kconnect.herder.api import Herder
from kconnect.plugin_host import PluginHost
from kconnect.worker_config import WorkerConfig
from litestar import Litestar, Request, Router
from litestar.enums import ScopeType
from litestar.exceptions import NotFoundException
from litestar.openapi.config import OpenAPIConfig
from litestar.openapi.plugins import JsonRenderPlugin
from litestar.types import HTTPScope, LifeSpanReceive, LifeSpanScope, LifeSpanSend, Receive, Scope, Send

from kconnect_rest.controllers import CONTROLLERS
from kconnect_rest.dependencies import provide
from kconnect_rest.errors import exception_handlers
from kconnect_rest.extensions import (
    ClusterState,
    RestExtensionFactory,
    build_extensions,
    enabled_factories,
)
from kconnect_rest.loggers import Loggers
from kconnect_rest.methods import answer_as_jersey
from kconnect_rest.middleware import PathParamDecoder, escape_path

DEFAULT_MAX_BODY_SIZE = 10 * 1024 * 1024
"""Largest request body accepted (bytes); larger ones are a 413."""

OPENAPI_PATH = "/openapi"
OPENAPI_DOCUMENTS = frozenset({OPENAPI_PATH, f"{OPENAPI_PATH}/openapi.json"})
"""Where the live OpenAPI document is served (both paths give the same JSON)."""


class ConnectApp(Litestar):
    """The litestar app, routing on the raw path so ``%2F`` stays inside a connector name.

    HEAD, OPTIONS and empty answers follow Jersey (see `kconnect_rest.methods`).
    """

    async def __call__(
        self, scope: Scope | LifeSpanScope, receive: Receive | LifeSpanReceive, send: Send | LifeSpanSend
    ) -> None:
        """Re-derive the path from ``raw_path`` (see `kconnect_rest.middleware`), then serve."""
        if scope["type"] == ScopeType.HTTP:
            escape_path(cast("Scope", scope))
            send = answer_as_jersey(self, cast("HTTPScope", scope), cast("Send", send))
        await super().__call__(scope, receive, send)


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


async def _only_documents(request: Request[Any, Any, Any]) -> None:
    # litestar adds an HTML "not found" page under the OpenAPI path; every error here is JSON.
    if request.scope["path"].rstrip("/") not in OPENAPI_DOCUMENTS:
        raise NotFoundException()


def create_app(
    herder: Herder,
    worker_config: WorkerConfig,
    plugin_host: PluginHost | None = None,
    extensions: Sequence[RestExtensionFactory] = (),
    *,
    max_body_size: int = DEFAULT_MAX_BODY_SIZE,
) -> Litestar:
    """The REST app for one worker.

    Called once by the worker (and by tests) with its herder. REST extensions are the plugin
    host's REST_EXTENSION plugins named by ``rest.extension.classes``, then `extensions`; each
    factory gets `worker_config` and a read-only `ClusterState`. Raises PluginError if an
    extension is not installed or fails to build.
    """
    cluster_state = ClusterState(herder.cluster_view)
    factories = [
        *enabled_factories(plugin_host, worker_config),
        *((getattr(f, "__qualname__", repr(f)), f) for f in extensions),
    ]
    openapi_router = Router(
        path=OPENAPI_PATH, route_handlers=[], include_in_schema=False, before_request=_only_documents
    )
    return ConnectApp(
        route_handlers=list(CONTROLLERS),
        dependencies={
            "herder": provide(herder),
            "worker_config": provide(worker_config),
            "loggers": provide(Loggers()),
            "commit": provide(commit_id()),
        },
        exception_handlers=exception_handlers(),
        middleware=[PathParamDecoder()],
        plugins=build_extensions(factories, worker_config, cluster_state),
        openapi_config=OpenAPIConfig(
            title="kconnect REST API",
            version=__version__,
            description="Apache Kafka Connect's REST API, served by kconnect.",
            render_plugins=[JsonRenderPlugin(path=["/", "/openapi.json"])],
            openapi_router=openapi_router,
        ),
        request_max_body_size=max_body_size,
        logging_config=None,
        debug=False,
    )
