"""``response.http.headers.config`` (KIP-577): headers Kafka's REST server puts on every answer.

The value is a comma-separated list of rules ``[action] [header name]:[header value]``, a rule
double-quoted if it holds a comma (Jetty's ``csvSplit``). Actions are ``set`` (replace), ``add``
(append), ``setDate`` and ``addDate`` (the value is milliseconds added to the time of the answer,
sent as an HTTP date). The worker checks the value at start as Kafka's ``RestServerConfig`` does,
with its error texts; Jetty's ``HeaderFilter`` then applies the rules, which we follow too: the
action is matched without case by the check but with case by the filter (``ADD`` sets, ``SetDate``
is a date), and the rules apply *before* the REST resource answers, so a header the resource sets
itself (``Content-Type``, ``Content-Length``, ``Allow``...) keeps the resource's value.

`ResponseHeaderFilters` is what Kafka's Jetty context puts in front of Jersey: the CORS handler
(`kconnect_rest.cors`), then these rules. `ConnectApp` wraps every HTTP answer with it.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from email.utils import formatdate

from kconnect.worker_config import ConfigFileError
from litestar.types import HTTPScope, Message, Send

from kconnect_rest.cors import CorsPolicy

RESPONSE_HTTP_HEADERS_CONFIG = "response.http.headers.config"
HEADER_ACTIONS = ("set", "add", "setDate", "addDate")
"""The actions Kafka accepts, in the order its error text lists them."""

Headers = list[tuple[bytes, bytes]]

_JAVA_LONG = re.compile(r"[+-]?[0-9]+")
_LONG_MAX = 2**63 - 1


def csv_split(value: str) -> list[str]:
    """Split `value` as Jetty's ``StringUtil.csvSplit``: items trimmed, ``"..."`` quotes removed
    (a backslash escapes inside them), ``a,,b`` keeps an empty item and a trailing comma is dropped."""
    items: list[str] = []
    out: list[str] = []
    state = "pre"  # pre: before an item, data, quote, slosh (after \ in quotes), post: after "..."
    for ch in value:
        if state == "pre":
            if ch == '"':
                state = "quote"
            elif ch == ",":
                items.append("")
            elif not ch.isspace():
                out, state = [ch], "data"
        elif state == "data":
            if ch == ",":
                items.append("".join(out).rstrip())
                out, state = [], "pre"
            else:
                out.append(ch)
        elif state == "quote":
            if ch == "\\":
                state = "slosh"
            elif ch == '"':
                items.append("".join(out))
                out, state = [], "post"
            else:
                out.append(ch)
        elif state == "slosh":
            out.append(ch)
            state = "quote"
        elif ch == ",":  # post
            state = "pre"
    if state == "data":
        items.append("".join(out).rstrip())
    elif state in ("quote", "slosh"):
        items.append("".join(out))
    return items


def _java_split(text: str, separator: str) -> list[str]:
    """Java's ``String.split`` of a literal: trailing empty strings are dropped."""
    parts = text.split(separator)
    while parts and not parts[-1]:
        parts.pop()
    return parts if text else [""]


def check_header_rule(rule: str) -> None:
    """Raise ValueError with Kafka's text if `rule` is not ``[action] [header name]:[header value]``
    (Kafka's ``RestServerConfig.validateHttpResponseHeaderConfig``)."""
    tokens = re.split(r"\s+", rule.strip(), maxsplit=1)
    if len(tokens) != 2:
        raise ValueError(
            f"Invalid format of header config '{rule}'. Expected: '[action] [header name]:[header value]'"
        )
    action, header = tokens[0].strip(), tokens[1]
    if not any(action.lower() == known.lower() for known in HEADER_ACTIONS):
        raise ValueError(
            f"Invalid header config action: '{action}'. Expected one of [{', '.join(HEADER_ACTIONS)}]"
        )
    name_value = _java_split(header.strip(), ":")
    if len(name_value) != 2:
        raise ValueError(
            f"Invalid format of header name and header value pair '{header}'. "
            "Expected: '[header name]:[header value]'"
        )
    name = name_value[0].strip()
    if not name or re.search(r"\s", name):
        raise ValueError(f"Invalid header name '{name}'. The '[header name]' cannot contain whitespace")


@dataclass(frozen=True)
class HeaderRule:
    """One checked rule, read as Jetty's ``HeaderFilter`` reads it."""

    name: str
    value: str
    add: bool
    """Append to the header's values (the action starts with ``add``) rather than replace them."""
    date_offset_ms: int | None
    """For ``setDate`` / ``addDate`` (an action ending in ``Date``): milliseconds added to now."""

    @classmethod
    def parse(cls, rule: str) -> HeaderRule:
        """Read a rule `check_header_rule` accepted; ValueError if a date rule's value is not a number."""
        action, header = re.split(r"\s+", rule.strip(), maxsplit=1)
        name, value = (part.strip() for part in header.strip().split(":", 1))
        offset = None
        if action.endswith("Date"):
            if not _JAVA_LONG.fullmatch(value) or abs(int(value)) > _LONG_MAX:
                raise ValueError(
                    f"Invalid header config '{rule}': the value of a date action must be a number of "
                    f"milliseconds, not '{value}'"
                )
            offset = int(value)
        return cls(name, value, action.startswith("add"), offset)

    def header(self, now_ms: int) -> tuple[bytes, bytes]:
        """The header this rule writes into an answer made at `now_ms`."""
        value = self.value
        if self.date_offset_ms is not None:
            value = formatdate((now_ms + self.date_offset_ms) // 1000, usegmt=True)
        return self.name.encode("latin-1"), value.encode("latin-1")


@dataclass(frozen=True)
class ResponseHeaderRules:
    """The rules of ``response.http.headers.config``, in order."""

    rules: tuple[HeaderRule, ...]

    @classmethod
    def from_props(
        cls, props: Mapping[str, str], source: str = "<worker config>"
    ) -> ResponseHeaderRules | None:
        """Check and read the worker key; None when it is blank (Kafka's default).

        Called once at start-up by `create_app`. ConfigFileError names `source`, the key and
        Kafka's reason (the first bad rule), or a date rule whose value is not a number.
        """
        raw = props.get(RESPONSE_HTTP_HEADERS_CONFIG, "").strip()
        if not raw:
            return None
        try:
            items = csv_split(raw)
            for item in items:
                check_header_rule(item)
            return cls(tuple(HeaderRule.parse(item) for item in items))
        except ValueError as exc:
            raise ConfigFileError(f"{source}: {RESPONSE_HTTP_HEADERS_CONFIG}: {exc}") from None

    def apply(self, headers: Headers, now_ms: int) -> Headers:
        """`headers` with the rules applied in order: ``set`` replaces same-named headers, ``add`` appends."""
        result = list(headers)
        for rule in self.rules:
            name, value = rule.header(now_ms)
            if not rule.add:
                result = [(k, v) for k, v in result if k.lower() != name.lower()]
            result.append((name, value))
        return result


def _request_headers(scope: HTTPScope) -> dict[bytes, bytes]:
    """The request's headers by lower-case name (the first of each)."""
    found: dict[bytes, bytes] = {}
    for name, value in scope["headers"]:
        found.setdefault(name.lower(), value)
    return found


@dataclass(frozen=True)
class ResponseHeaderFilters:
    """What Kafka's Jetty context does to every answer before Jersey writes its own headers."""

    cors: CorsPolicy | None
    rules: ResponseHeaderRules | None

    @classmethod
    def from_props(
        cls, props: Mapping[str, str], source: str = "<worker config>"
    ) -> ResponseHeaderFilters | None:
        """Both filters from the worker keys; None if neither is configured. ConfigFileError on a bad key."""
        cors = CorsPolicy.from_props(props, source)
        rules = ResponseHeaderRules.from_props(props, source)
        return None if cors is None and rules is None else cls(cors, rules)

    def headers_for(self, method: str, request_headers: Mapping[bytes, bytes], now_ms: int) -> Headers:
        """The headers the filters put on an answer made at `now_ms` to a request
        (`request_headers` by lower-case name)."""
        headers: Headers = []
        if self.cors is not None:
            headers = self.cors.headers_for(method, request_headers)
        if self.rules is not None:
            headers = self.rules.apply(headers, now_ms)
        return headers

    def wrap(self, scope: HTTPScope, send: Send) -> Send:
        """The `send` to use for this request: it adds the filters' headers to the answer's start.

        Called by `ConnectApp` for every HTTP request, before routing (so 404s get them too). A
        header the app set itself wins over a filter's header of the same name, as in Kafka.
        """
        method, request_headers = scope["method"], _request_headers(scope)  # before HEAD is routed as GET

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                own: Sequence[tuple[bytes, bytes]] = [
                    (bytes(k), bytes(v)) for k, v in message.get("headers", [])
                ]
                own_names = {name.lower() for name, _ in own}
                added = self.headers_for(method, request_headers, int(time.time() * 1000))
                kept = [(name, value) for name, value in added if name.lower() not in own_names]
                message = {**message, "headers": [*kept, *own]}  # type: ignore[typeddict-item]
            await send(message)

        return send_with_headers
