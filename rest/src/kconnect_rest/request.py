"""The app's request class: a JSON body that cannot be parsed is the client's error (400), never a 500.

Litestar turns msgspec's DecodeError into a 400, but its wording is msgspec's and changes between
versions (0.23 refuses invalid UTF-8 itself, earlier versions raised UnicodeDecodeError), and nesting
deeper than the parser recurses escapes as a RecursionError (about 1,000 levels: no request body of
the Connect API nests more than four). `ConnectRequest.json` checks the body is UTF-8 before parsing
it and answers both with a 400 that says what was wrong, in Kafka's error body like every other
refusal (`kconnect_rest.errors`).
"""

from __future__ import annotations

from typing import Any

from litestar import Request
from litestar.exceptions import ClientException


def not_utf8_message(exc: UnicodeDecodeError) -> str:
    """The 400's text for a body that is not UTF-8: the first bad byte and where it is in the body."""
    byte = exc.object[exc.start]
    return f"Request body is not valid UTF-8: byte 0x{byte:02x} at offset {exc.start} ({exc.reason})"


TOO_DEEP_MESSAGE = "Request body is not valid JSON: it is nested too deeply"
"""The 400's text for a body whose arrays or objects nest deeper than the parser recurses."""


class ConnectRequest(Request[Any, Any, Any]):
    """Litestar's request, whose `json` refuses an undecodable body with a 400 (`ClientException`)."""

    async def json(self) -> Any:
        """The parsed body; ClientException (400) for invalid UTF-8 or too deep a nesting.

        Called by litestar when it extracts a handler's ``data``; the body is parsed once and cached.
        """
        try:
            (await self.body()).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ClientException(not_utf8_message(exc)) from None
        try:
            return await super().json()
        except RecursionError:
            raise ClientException(TOO_DEEP_MESSAGE) from None
