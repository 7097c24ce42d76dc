"""Request plumbing every route shares: percent-encoded names and JSON-only bodies.

ASGI servers percent-decode the path before routing, so a connector named ``a/b`` (sent as
``a%2Fb``) would be routed as two segments. `escape_path` re-derives the path from ``raw_path``
with each segment decoded but its ``%`` and ``/`` re-escaped; routing then sees one segment per
name, and `PathParamDecoder` decodes the path parameters before the handler runs.
"""

from __future__ import annotations

from urllib.parse import unquote

from litestar.enums import ScopeType
from litestar.exceptions import HTTPException
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Receive, Scope, Send

_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


def _escape_segment(segment: str) -> str:
    return unquote(segment).replace("%", "%25").replace("/", "%2F")


def escape_path(scope: Scope) -> None:
    """Rewrite ``scope["path"]`` from ``raw_path`` so an encoded ``/`` stays inside its segment.

    Called for every HTTP request before routing (by the app's ``__call__``); a request without
    ``raw_path`` keeps the server's path.
    """
    raw = scope.get("raw_path")
    if not raw:
        return
    raw_text = raw.decode("latin-1").split("?", 1)[0]  # some clients' raw_path carries the query
    root_path = scope.get("root_path", "")
    if root_path and raw_text.startswith(root_path):
        raw_text = raw_text[len(root_path) :]
    if "%" in raw_text:  # without one, every segment escapes to itself: the raw path is the path
        raw_text = "/".join(_escape_segment(segment) for segment in raw_text.split("/"))
    scope["path"] = raw_text


def _is_json(content_type: str) -> bool:
    media_type = content_type.split(";", 1)[0].strip().lower()
    return media_type in ("application/json", "*/*") or media_type.endswith("+json")


class PathParamDecoder(ASGIMiddleware):
    """Decodes string path parameters that `escape_path` left escaped, and refuses non-JSON bodies.

    Runs after routing, before the handler. A POST, PUT or PATCH whose ``Content-Type`` is not JSON
    is a 415 (Jersey's ``@Consumes(application/json)``); a request without one is read as JSON.
    """

    scopes = (ScopeType.HTTP,)

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        """Decode ``scope["path_params"]`` in place, check the content type, call the handler."""
        params = scope.get("path_params")
        if params:
            scope["path_params"] = {k: unquote(v) if isinstance(v, str) else v for k, v in params.items()}
        if scope.get("method") in _BODY_METHODS:
            for name, value in scope["headers"]:
                if name == b"content-type" and not _is_json(value.decode("latin-1")):
                    raise HTTPException(status_code=415)
        await next_app(scope, receive, send)
