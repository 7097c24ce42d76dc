"""The litestar side of the extension: the middleware that answers 401, and the plugin that adds it.

`basic_auth_extension` (`kconnect_basic_auth.plugin`) imports this module when the REST server is
built, so a process that serves no REST API (a Spark task process) never imports litestar.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from litestar.config.app import AppConfig
from litestar.enums import ScopeType
from litestar.exceptions import NotAuthorizedException
from litestar.middleware import ASGIMiddleware
from litestar.openapi.spec import Components, SecurityScheme
from litestar.plugins import InitPluginProtocol
from litestar.types import ASGIApp, Receive, Scope, Send

from kconnect_basic_auth.plugin import REALM, UNAUTHORIZED_MESSAGE

if TYPE_CHECKING:
    from kconnect_basic_auth.plugin import CredentialStore

INTERNAL_REQUESTS = (
    ("POST", re.compile(r"^/?connectors/[^/]+/tasks/?$")),
    ("PUT", re.compile(r"^/?connectors/[^/]+/fence/?$")),
)
"""Requests workers send each other: authenticated by the cluster's request signature (KIP-507),
never by a user's password, so they pass without basic credentials (Kafka's JaasBasicAuthFilter)."""


class BasicAuthMiddleware(ASGIMiddleware):
    """Answers 401 to any HTTP request on a non-exempt path without valid basic credentials."""

    scopes = (ScopeType.HTTP,)

    def __init__(self, store: CredentialStore, exempt_paths: frozenset[str]) -> None:
        self._store = store
        self._exempt = exempt_paths

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        """Let exempt paths, internal requests and valid credentials through; raise a 401 otherwise."""
        if _normalized(scope["path"]) not in self._exempt and not _internal(scope):
            header = next((v.decode("latin-1") for k, v in scope["headers"] if k == b"authorization"), None)
            if not self._store.authorized(header):
                raise NotAuthorizedException(
                    detail=UNAUTHORIZED_MESSAGE, headers={"WWW-Authenticate": f'Basic realm="{REALM}"'}
                )
        await next_app(scope, receive, send)


class BasicAuthPlugin(InitPluginProtocol):
    """Adds `BasicAuthMiddleware` to the app and declares basic auth in the OpenAPI document."""

    def __init__(self, store: CredentialStore, exempt_paths: frozenset[str]) -> None:
        self._middleware = BasicAuthMiddleware(store, exempt_paths)

    def on_app_init(self, app_config: AppConfig) -> AppConfig:
        """Called by litestar once, when the REST app is built."""
        app_config.middleware.append(self._middleware)
        openapi = app_config.openapi_config
        if openapi is not None:
            scheme = SecurityScheme(type="http", scheme="basic", description=f'realm="{REALM}"')
            components = openapi.components
            if isinstance(components, Components):
                components.security_schemes = {**(components.security_schemes or {}), "basicAuth": scheme}
            openapi.security = [*(openapi.security or []), {"basicAuth": []}]
        return app_config


def _internal(scope: Scope) -> bool:
    path = scope.get("raw_path", b"").decode("latin-1").split("?", 1)[0] or scope["path"]
    method = scope.get("method", "")
    return any(method == m and pattern.match(path) for m, pattern in INTERNAL_REQUESTS)


def _normalized(path: str) -> str:
    return path.strip().rstrip("/") or "/"


def parse_exempt_paths(raw: str) -> frozenset[str]:
    """The paths of ``rest.basic.auth.exempt.paths`` (comma-separated), normalized as request paths are."""
    return frozenset(_normalized(p) for p in raw.split(",") if p.strip())
