"""The two reads monitoring polls most, answered without litestar's routing: the same bytes, cheaper.

Dashboards and operators' scripts poll ``GET /connectors`` and ``GET /connectors/{name}/status``
many times a second across a cluster. Through litestar each answer costs routing, the dependency
and signature models, a ``Response`` and its headers: some 50-80 µs of the worker's one event loop
for an answer that is a list of names. `FastReads` serves exactly these two requests (a GET or HEAD
without a query string) straight from the herder, with the body litestar would send (the same
`kconnect_rest.wire` Structs, encoded by msgspec) and the same headers; `ConnectApp` still wraps
``send`` for HEAD and the response header filters first, so CORS and
``response.http.headers.config`` apply as before. Anything else, and any answer that is not a 200
(an unknown connector, a worker not ready), goes through litestar as before, which answers it.

The app builds no `FastReads` when a REST extension is configured: an extension may authenticate,
authorize or rewrite any request, and it sees every request only on litestar's path.
"""

from __future__ import annotations

from urllib.parse import unquote

import msgspec
from kconnect.herder.api import Herder
from litestar.types import HTTPScope, Send

from kconnect_rest import wire

_STATUS_SUFFIX = "/status"
_PREFIX = "/connectors/"
_ENCODE = msgspec.json.Encoder().encode


class FastReads:
    """Answers ``GET /connectors`` and ``GET /connectors/{name}/status`` (no query) from the herder."""

    def __init__(self, herder: Herder) -> None:
        """Reads answered from `herder`."""
        self._herder = herder

    async def answer(self, scope: HTTPScope, send: Send) -> bool:
        """Send the answer and return True, or return False (litestar answers the request).

        `scope` has had its path re-derived from ``raw_path`` (`kconnect_rest.middleware.escape_path`),
        so an encoded ``/`` is still ``%2F`` inside a connector name.
        """
        if scope["method"] != "GET" or scope["query_string"] or scope.get("root_path"):
            return False
        path = scope["path"]
        try:
            if path == "/connectors":
                body = _ENCODE(await self._herder.connectors())
            elif path.startswith(_PREFIX) and path.endswith(_STATUS_SUFFIX):
                name = path[len(_PREFIX) : -len(_STATUS_SUFFIX)]
                if not name or "/" in name:
                    return False
                status = await self._herder.connector_status(unquote(name))
                body = _ENCODE(wire.connector_state_info(status))
            else:
                return False
        except Exception:  # litestar asks again, and answers as its handlers map the error
            return False
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))],
            }
        )
        await send({"type": "http.response.body", "body": body, "more_body": False})
        return True
