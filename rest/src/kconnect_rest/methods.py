"""HEAD, OPTIONS and empty answers as Kafka's REST server (Jersey) gives them.

Jersey answers HEAD on every resource that has a GET (GET's status and headers, no body) and
OPTIONS on every resource with the methods it allows, as ``Allow: HEAD,GET,OPTIONS`` and the same
list as a ``text/plain`` body ``HEAD, GET, OPTIONS``. An answer without a body (202 pause, 204
stop, ...) carries no ``Content-Type``. Litestar does none of this by itself: it has no HEAD for
GET routes, its automatic OPTIONS answer is a 204 whose ``Allow`` can miss methods of a path
served by two handlers, and it labels empty answers ``application/json``.

`ConnectApp` wraps every HTTP request with `answer_as_jersey` before routing. The request still
goes through routing, middleware and guards (a REST extension's authentication applies to HEAD
and OPTIONS too); only the answer's start and body are rewritten on their way out.
"""

from __future__ import annotations

from litestar import Litestar
from litestar.exceptions import MethodNotAllowedException, NotFoundException
from litestar.types import HTTPResponseStartEvent, HTTPScope, Message, Send
from litestar.utils import normalize_path

JERSEY_ORDER = ("HEAD", "DELETE", "POST", "GET", "OPTIONS", "PUT", "PATCH")
"""The order Jersey lists methods in (its HashSet's iteration order, read from Kafka 4.3.1's answers)."""

_NO_METHOD = "TRACE"  # no route serves it, so routing answers with every method the path has


def allowed_methods(app: Litestar, path: str) -> list[str] | None:
    """The methods a path allows, in Jersey's order (HEAD wherever GET is); None if no route matches."""
    try:
        app.asgi_router.handle_routing(path=normalize_path(path), method=_NO_METHOD)
    except NotFoundException:
        return None
    except MethodNotAllowedException as exc:
        routed = {m.strip().upper() for m in (exc.headers or {}).get("allow", "").split(",") if m.strip()}
    else:  # pragma: no cover - a route that answers TRACE: it lists only itself
        routed = {_NO_METHOD}
    routed |= {"OPTIONS"} | ({"HEAD"} if "GET" in routed else set())
    return [m for m in JERSEY_ORDER if m in routed] + sorted(routed - set(JERSEY_ORDER))


def _headers(message: Message) -> list[tuple[bytes, bytes]]:
    return [(bytes(k), bytes(v)) for k, v in message.get("headers", [])]  # type: ignore[attr-defined]


def _without(headers: list[tuple[bytes, bytes]], *names: bytes) -> list[tuple[bytes, bytes]]:
    return [(k, v) for k, v in headers if k.lower() not in names]


def _value(headers: list[tuple[bytes, bytes]], name: bytes) -> bytes | None:
    return next((v for k, v in headers if k.lower() == name), None)


def _unchanged(message: HTTPResponseStartEvent) -> bool:
    """Whether an answer's start goes out as it is: it has a body, and no ``Allow`` to reorder."""
    if message["status"] in (204, 304):
        return False
    length = None
    for name, value in message.get("headers", ()):
        name = name.lower()
        if name == b"allow":
            return False
        if name == b"content-length" and length is None:
            length = value
    return length != b"0"


def answer_as_jersey(app: Litestar, scope: HTTPScope, send: Send) -> Send:
    """Serve HEAD as GET without the body, answer OPTIONS with Jersey's list, drop empty answers' type.

    Called by `ConnectApp` for each HTTP request before routing; returns the `send` to use.
    A HEAD request is routed as GET from here on (so a path without GET answers 405, as Jersey does).
    """
    method = scope["method"]
    if method == "HEAD":
        scope["method"] = "GET"
    body: bytes | None = b"" if method == "HEAD" else None  # what replaces the body, if anything

    async def send_as_jersey(message: Message) -> None:
        nonlocal body
        if message["type"] == "http.response.start" and not _unchanged(message):
            headers, status = _headers(message), message["status"]
            if _value(headers, b"allow") is not None:
                allowed = allowed_methods(app, scope["path"][len(scope.get("root_path", "")) :]) or []
                headers = [*_without(headers, b"allow"), (b"allow", ",".join(allowed).encode())]
                if method == "OPTIONS" and status == 204:  # litestar's own OPTIONS answer
                    body, status = ", ".join(allowed).encode(), 200
                    headers = _without(headers, b"content-type", b"content-length")
                    headers += [(b"content-type", b"text/plain"), (b"content-length", b"%d" % len(body))]
            if status in (204, 304) or _value(headers, b"content-length") == b"0":
                headers = _without(headers, b"content-type")
            message = {**message, "status": status, "headers": headers}  # type: ignore[typeddict-item]
        elif message["type"] == "http.response.body" and body is not None:
            message = {**message, "body": body}  # type: ignore[typeddict-item]
            body = b""  # any further chunk of the replaced body is dropped
        await send(message)

    return send_as_jersey
