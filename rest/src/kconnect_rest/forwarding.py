"""Forwarding a write to the group's leader: the one place that handles `NotLeaderError`.

In distributed mode any worker accepts any call; a write only the leader may apply makes the
herder raise ``NotLeaderError(message, leader_url)``, and this module sends the same request to the
leader, as Kafka's ``HerderRequestHandler`` does:

1. The worker the client called (no ``forward`` query parameter) forwards with ``forward=true``;
   a worker receiving ``forward=true`` may forward once more, with ``forward=false``; a worker
   receiving ``forward=false`` that still is not the leader answers 409 (two hops are enough unless
   a rebalance moved the leader). No known leader: 409.
2. The forwarded request keeps the method, the raw path (``%2F`` stays encoded), the query
   parameters and the body's bytes; it carries the client's ``Authorization`` header (so a
   basic-auth extension on the leader sees the user's credentials) and, unlike Kafka, the internal
   request signature headers, which stay valid because the body is forwarded byte for byte.
3. The leader's status, body and headers come back to the client; a ``Location`` pointing at the
   leader is rewritten to the worker the client called (Kafka builds it from that worker's URL).
   An error answer keeps the leader's status and message; a leader that cannot be reached is a
   500 with Kafka's ``IO Error trying to forward REST request: ...``.

`LeaderForwarder.handle` is registered by `create_app` as the exception handler of
`NotLeaderError`; litestar's handlers are synchronous, so it returns a response whose ASGI answer
does the forwarding when it is sent.
"""

from __future__ import annotations

import logging
import ssl
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode

import httpx
import msgspec
from kconnect.errors import NotLeaderError
from litestar import Request, Response
from litestar.response.base import ASGIResponse
from litestar.types import Receive, Scope, Send

from kconnect_rest.errors import error_response
from kconnect_rest.wire import ErrorMessage

log = logging.getLogger(__name__)

FORWARD_PARAM = "forward"
"""The hidden query parameter that counts forwarding hops (Kafka's ``?forward=``)."""

NO_LEADER_MESSAGE = (
    "Cannot complete request momentarily due to no known leader URL, likely because a rebalance was underway."
)
"""Kafka's 409 text when the worker knows no leader to forward to."""

CONFLICTING_OPERATION_MESSAGE = (
    "Cannot complete request because of a conflicting operation (e.g. worker rebalance)"
)
"""Kafka's 409 text when a request already forwarded twice reached a worker that is not the leader."""

IO_ERROR_PREFIX = "IO Error trying to forward REST request: "
"""Kafka's 500 text (followed by the cause) when the leader cannot be reached."""

UNEXPECTED_STATUS_PREFIX = "Unexpected status code when handling forwarded request: "
"""Kafka's 500 text when the leader answers neither 2xx nor an error (a redirect, say)."""

FORWARDED_REQUEST_HEADERS = (
    "authorization",
    "content-type",
    "x-connect-authorization",
    "x-connect-request-signature-algorithm",
)
"""Request headers carried to the leader; any other header of the client's request is dropped."""

_DROPPED_RESPONSE_HEADERS = frozenset(
    {"content-length", "transfer-encoding", "connection", "keep-alive", "date", "server"}
)

DEFAULT_FORWARD_TIMEOUT_SECONDS = 90.0
"""How long a forwarded request may take (Kafka's REST request timeout, 90 s)."""


def forward_flag(scope: Scope) -> bool | None:
    """The incoming request's ``forward`` parameter: None if absent, else Java's Boolean.valueOf."""
    query = scope.get("query_string", b"").decode("latin-1")
    for name, value in parse_qsl(query, keep_blank_values=True):
        if name == FORWARD_PARAM:
            return value.lower() == "true"
    return None


def forward_url(leader_url: str, scope: Scope, recursive: bool) -> str:
    """The leader's URL for this request: same raw path and query, ``forward`` set for the next hop."""
    raw = scope.get("raw_path") or scope["path"].encode("latin-1")
    path = raw.decode("latin-1").split("?", 1)[0]
    query = scope.get("query_string", b"").decode("latin-1")
    params = [(k, v) for k, v in parse_qsl(query, keep_blank_values=True) if k != FORWARD_PARAM]
    params.insert(0, (FORWARD_PARAM, "true" if recursive else "false"))
    return f"{leader_url.rstrip('/')}{path}?{urlencode(params)}"


class _ForwardedAnswer(ASGIResponse):
    """The ASGI answer that sends the request to the leader, then relays what the leader said."""

    def __init__(self, forwarder: LeaderForwarder, request: Request[Any, Any, Any], url: str) -> None:
        super().__init__()
        self._forwarder = forwarder
        self._request = request
        self._url = url

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Called by litestar to send the answer: forward, then send the leader's (or an error) answer."""
        response = await self._forwarder.forward(self._request, self._url)
        answer = response.to_asgi_response(app=None, request=self._request)
        await answer(scope, receive, send)


class _ForwardingResponse(Response[Any]):
    """A response whose ASGI answer is produced by forwarding (see `_ForwardedAnswer`)."""

    def __init__(self, answer: _ForwardedAnswer) -> None:
        super().__init__(content=None)
        self._answer = answer

    def to_asgi_response(self, *args: Any, **kwargs: Any) -> ASGIResponse:
        """The forwarding answer; litestar calls this once, then awaits the answer."""
        return self._answer


class LeaderForwarder:
    """Sends requests the leader must apply to the leader; one per REST app.

    `create_app` registers `handle` for `NotLeaderError`; the HTTP client is made on first use and
    closed by `close` when the app shuts down.
    """

    def __init__(
        self,
        *,
        timeout_seconds: float = DEFAULT_FORWARD_TIMEOUT_SECONDS,
        verify: ssl.SSLContext | bool = True,
    ) -> None:
        """`verify` checks an https leader (`kconnect_rest.tls.client_verify`: the worker's trust store)."""
        self._timeout = timeout_seconds
        self._verify = verify
        self._client: httpx.AsyncClient | None = None

    def handle(self, request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
        """The exception handler of NotLeaderError: a 409 when the request cannot go on, else forward it."""
        assert isinstance(exc, NotLeaderError)
        flag = forward_flag(request.scope)
        if flag is False:
            log.error(
                "Request '%s %s' failed because it couldn't find the target Connect worker within two hops",
                request.method,
                request.url.path,
            )
            return error_response(409, CONFLICTING_OPERATION_MESSAGE)
        if exc.leader_url is None:
            return error_response(409, NO_LEADER_MESSAGE)
        url = forward_url(exc.leader_url, request.scope, recursive=flag is None)
        return _ForwardingResponse(_ForwardedAnswer(self, request, url))

    async def forward(self, request: Request[Any, Any, Any], url: str) -> Response[Any]:
        """Send `request` to `url` and return the leader's answer as this worker's response."""
        body = await request.body()
        headers = {k: v for k, v in request.headers.items() if k.lower() in FORWARDED_REQUEST_HEADERS}
        if body and "content-type" not in {k.lower() for k in headers}:
            headers["Content-Type"] = "application/json"
        headers["Accept"] = "application/json"
        log.debug("Forwarding request %s %s", request.method, url)
        try:
            reply = await self._http().request(request.method, url, content=body or None, headers=headers)
        except httpx.HTTPError as exc:
            log.error("IO error forwarding REST request %s %s: %s", request.method, url, exc)
            return error_response(500, IO_ERROR_PREFIX + (str(exc) or type(exc).__name__))
        return _relayed(reply, url, str(request.base_url))

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(
                timeout=self._timeout, follow_redirects=False, verify=self._verify
            )
        return self._client

    async def close(self) -> None:
        """Close the HTTP client (called when the app shuts down)."""
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()


def _relayed(reply: httpx.Response, url: str, base_url: str) -> Response[Any]:
    status = reply.status_code
    if status >= 400:
        return error_response(status, _error_message(reply), _kept_headers(reply.headers, url, base_url))
    if not 200 <= status < 300:
        return error_response(500, f"{UNEXPECTED_STATUS_PREFIX}{status}")
    return Response(
        content=reply.content,
        status_code=status,
        headers=_kept_headers(reply.headers, url, base_url),
        media_type=reply.headers.get("content-type"),
    )


def _error_message(reply: httpx.Response) -> str | None:
    try:
        parsed = msgspec.json.decode(reply.content, type=ErrorMessage)
    except msgspec.DecodeError:
        return reply.text.strip() or None
    return parsed.message


def _kept_headers(headers: httpx.Headers, url: str, base_url: str) -> Mapping[str, str]:
    kept = {k: v for k, v in headers.items() if k.lower() not in _DROPPED_RESPONSE_HEADERS}
    location = kept.pop("location", None)
    if location is not None:
        leader = httpx.URL(url)
        target = httpx.URL(location)
        if (target.host, target.port) == (leader.host, leader.port):
            location = base_url.rstrip("/") + target.raw_path.decode("ascii")
        kept["Location"] = location
    kept.pop("content-type", None)
    return kept
