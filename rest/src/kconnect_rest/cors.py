"""Cross-origin requests: ``access.control.allow.origin`` and ``access.control.allow.methods``.

Kafka 4.3's REST server puts Jetty 12's ``CrossOriginHandler`` in front of its resources when
``access.control.allow.origin`` is not blank, and `CorsPolicy` gives the same answers:

- the origin key is a comma-separated list of ``*`` (any origin) or regular expressions matched
  against the whole ``Origin`` header (``https://.*\\.example\\.com``); a repeated item or a bad
  expression stops the worker at start;
- every answer then carries ``Vary: Origin``; an answer to a request whose ``Origin`` is allowed
  carries ``Access-Control-Allow-Origin`` with that origin (echoed, also for ``*``);
- a preflight (``OPTIONS`` with ``Access-Control-Request-Method``) from an allowed origin also gets
  ``Access-Control-Allow-Methods`` (the methods key, else ``GET,POST,HEAD``),
  ``Access-Control-Allow-Headers: Content-Type`` and ``Access-Control-Max-Age: 60``, and still goes
  on to the resource, whose own ``OPTIONS`` answer (``Allow`` and its body) it is;
- a request from another origin is served as if CORS were off, apart from ``Vary``.

No ``Access-Control-Allow-Credentials`` is sent (Jetty 12.0's default), and the requested method
or headers are not checked: the browser compares them with the lists.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from kconnect.worker_config import ConfigFileError

ACCESS_CONTROL_ALLOW_ORIGIN_CONFIG = "access.control.allow.origin"
ACCESS_CONTROL_ALLOW_METHODS_CONFIG = "access.control.allow.methods"
DEFAULT_ALLOWED_METHODS = ("GET", "POST", "HEAD")
"""Jetty's methods when ``access.control.allow.methods`` is blank."""
PREFLIGHT_MAX_AGE_SECONDS = 60
ALLOWED_HEADERS = "Content-Type"


def _list(props: Mapping[str, str], key: str, source: str) -> list[str]:
    """The key's comma-separated items as Kafka splits them (no trimming, trailing empties dropped);
    ConfigFileError on a repeated item, which makes Kafka's ``Set.of`` fail at start."""
    raw = props.get(key, "").strip()
    items = raw.split(",") if raw else []
    while items and not items[-1]:
        items.pop()
    for index, item in enumerate(items):
        if item in items[:index]:
            raise ConfigFileError(f"{source}: {key}: duplicate element: {item}")
    return items


@dataclass(frozen=True)
class CorsPolicy:
    """Which origins may call the REST API from a browser, and what a preflight is told."""

    any_origin: bool
    origin_patterns: tuple[re.Pattern[str], ...]
    allowed_methods: tuple[str, ...] = DEFAULT_ALLOWED_METHODS

    @classmethod
    def from_props(cls, props: Mapping[str, str], source: str = "<worker config>") -> CorsPolicy | None:
        """Read the two worker keys; None when ``access.control.allow.origin`` is blank (no CORS).

        Called once at start-up. ConfigFileError names `source`, the key and the bad item.
        """
        origins = [item.strip() for item in _list(props, ACCESS_CONTROL_ALLOW_ORIGIN_CONFIG, source)]
        if not any(origins):
            return None
        methods = tuple(_list(props, ACCESS_CONTROL_ALLOW_METHODS_CONFIG, source)) or DEFAULT_ALLOWED_METHODS
        patterns: list[re.Pattern[str]] = []
        for origin in origins:
            if origin and origin != "*":
                try:
                    patterns.append(re.compile(origin))
                except re.error as exc:
                    raise ConfigFileError(
                        f"{source}: {ACCESS_CONTROL_ALLOW_ORIGIN_CONFIG}: {origin!r} is not a valid "
                        f"regular expression: {exc}"
                    ) from None
        return cls("*" in origins, tuple(patterns), methods)

    def allows(self, origin: str) -> bool:
        """Whether an ``Origin`` header (one origin, or several separated by spaces) is allowed."""
        if self.any_origin:
            return True
        return any(p.fullmatch(o) for o in origin.split(" ") if o.strip() for p in self.origin_patterns)

    def headers_for(self, method: str, request_headers: Mapping[bytes, bytes]) -> list[tuple[bytes, bytes]]:
        """The CORS headers of the answer to a request (`request_headers` by lower-case name)."""
        headers = [(b"Vary", b"Origin")]  # the answer depends on Origin even when there is none
        origin = request_headers.get(b"origin")
        if origin is None or not self.allows(origin.decode("latin-1")):
            return headers
        headers.append((b"Access-Control-Allow-Origin", origin))
        if method == "OPTIONS" and b"access-control-request-method" in request_headers:
            headers += [
                (b"Access-Control-Allow-Methods", ",".join(self.allowed_methods).encode("latin-1")),
                (b"Access-Control-Allow-Headers", ALLOWED_HEADERS.encode()),
                (b"Access-Control-Max-Age", str(PREFLIGHT_MAX_AGE_SECONDS).encode()),
            ]
        return headers
