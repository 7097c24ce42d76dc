"""Builds the REST app: Kafka Connect's API as litestar controllers over the herder."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from kconnect.cluster import ClusterState
from kconnect.distributed.request_signing import InterWorkerKeyConfig
from kconnect.errors import NotLeaderError
from kconnect.herder.api import Herder, InternalHerder
from kconnect.plugin_host import PluginHost
from kconnect.worker_config import WorkerConfig
from litestar import Litestar
from litestar.enums import ScopeType
from litestar.types import HTTPScope, LifeSpanReceive, LifeSpanScope, LifeSpanSend, Receive, Scope, Send

from kconnect_rest.controllers import CONTROLLERS
from kconnect_rest.controllers.internal import fence_zombies, put_task_configs
from kconnect_rest.dependencies import provide
from kconnect_rest.errors import exception_handlers
from kconnect_rest.extensions import RestExtensionFactory, build_extensions, enabled_factories
from kconnect_rest.fast_reads import FastReads
from kconnect_rest.forwarding import LeaderForwarder
from kconnect_rest.http_headers import ResponseHeaderFilters
from kconnect_rest.methods import answer_as_jersey
from kconnect_rest.middleware import PathParamDecoder, escape_path
from kconnect_rest.openapi import SCHEMA_PLUGINS, openapi_config
from kconnect_rest.request import ConnectRequest
from kconnect_rest.tls import client_verify

DEFAULT_MAX_BODY_SIZE = 10 * 1024 * 1024
"""Largest request body accepted (bytes); larger ones are a 413."""


class ConnectApp(Litestar):
    """The litestar app, routing on the raw path so ``%2F`` stays inside a connector name.

    HEAD, OPTIONS and empty answers follow Jersey (see `kconnect_rest.methods`); `header_filters`
    (CORS and ``response.http.headers.config``, `kconnect_rest.http_headers`) add their headers to
    every answer, a 404 included, as Kafka's Jetty context does.
    """

    def __init__(
        self,
        *,
        header_filters: ResponseHeaderFilters | None = None,
        fast_reads: FastReads | None = None,
        **kwargs: Any,
    ) -> None:
        """Litestar's app with `header_filters` around every HTTP answer (None: no headers added)
        and `fast_reads` answering the hottest reads before routing (None: litestar answers all)."""
        super().__init__(**kwargs)
        self.header_filters = header_filters
        self.fast_reads = fast_reads

    async def __call__(
        self, scope: Scope | LifeSpanScope, receive: Receive | LifeSpanReceive, send: Send | LifeSpanSend
    ) -> None:
        """Re-derive the path from ``raw_path`` (see `kconnect_rest.middleware`), then serve."""
        if scope["type"] == ScopeType.HTTP:
            escape_path(cast("Scope", scope))
            if self.header_filters is not None:
                send = self.header_filters.wrap(cast("HTTPScope", scope), cast("Send", send))
            send = answer_as_jersey(self, cast("HTTPScope", scope), cast("Send", send))
            if self.fast_reads is not None and await self.fast_reads.answer(cast("HTTPScope", scope), send):
                return
        await super().__call__(scope, receive, send)


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
    extension is not installed or fails to build. A write the herder refuses with NotLeaderError is
    forwarded to the leader (`kconnect_rest.forwarding`); an `InternalHerder` (distributed mode)
    also gets the inter-worker endpoints, and a bad ``inter.worker.*`` key is a ConfigFileError, as
    is a bad ``access.control.allow.*`` or ``response.http.headers.config`` key.
    """
    cluster_state = ClusterState(herder.cluster_view, herder.connector_status)
    factories = [
        *enabled_factories(plugin_host, worker_config),
        *((getattr(f, "__qualname__", repr(f)), f) for f in extensions),
    ]
    forwarder = LeaderForwarder(verify=client_verify(worker_config))
    internal = isinstance(herder, InternalHerder)
    key_config = (
        InterWorkerKeyConfig.from_props(worker_config.props, worker_config.source) if internal else None
    )
    header_filters = ResponseHeaderFilters.from_props(worker_config.props, worker_config.source)
    plugins = build_extensions(factories, worker_config, cluster_state)
    return ConnectApp(
        header_filters=header_filters,
        fast_reads=None if factories else FastReads(herder),
        route_handlers=[*CONTROLLERS, *([put_task_configs, fence_zombies] if internal else [])],
        dependencies={
            "herder": provide(herder),
            "worker_config": provide(worker_config),
            "loggers": provide(herder.loggers),
            "key_config": provide(key_config),
        },
        exception_handlers={**exception_handlers(), NotLeaderError: forwarder.handle},
        on_shutdown=[forwarder.close],
        middleware=[PathParamDecoder()],
        plugins=[*SCHEMA_PLUGINS, *plugins],
        openapi_config=openapi_config(),
        request_class=ConnectRequest,
        request_max_body_size=max_body_size,
        logging_config=None,
        debug=False,
    )
