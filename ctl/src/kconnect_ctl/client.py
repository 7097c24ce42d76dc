"""The HTTP edge: one client of a Kafka Connect REST API, its answers and failures as `CtlError`.

Commands call `ConnectClient.call` with a method and a path; it returns the response of a 2xx and
raises `Refused` (the server's Kafka-style ``message``) for a 4xx/5xx and `Unreachable` when
no answer came. Nothing else in kconnect_ctl does network I/O.
"""

from __future__ import annotations

import ssl
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

import httpx

from kconnect_ctl.contexts import Context
from kconnect_ctl.errors import BadInput, Refused, Unreachable

#: Seconds a request may take by default: Kafka's own REST timeout is 90 s for a write.
DEFAULT_TIMEOUT_S = 90.0


def connector_path(name: str, *rest: str) -> str:
    """``/connectors/<name>/...`` with the name URL-encoded (a ``/`` or a space in it included)."""
    return "/".join(["/connectors", quote(name, safe=""), *rest])


def server_message(response: httpx.Response) -> str:
    """The one line a refusal is shown as: Kafka's ``{"error_code", "message"}`` body's message with
    its lines joined, else the body's first line, else the status and its reason."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, Mapping) and isinstance(body.get("message"), str) and body["message"].strip():
        return " ".join(line.strip() for line in body["message"].splitlines() if line.strip())
    text = response.text.strip()
    if text and not text.startswith("<"):
        return text.splitlines()[0]
    return f"{response.status_code} {response.reason_phrase}".strip()


def unreachable_reason(error: httpx.TransportError, timeout: float) -> str:
    """Why no answer came, in a few words: the OS's reason (``connection refused``), the TLS
    failure (``certificate verify failed: ...``) or ``timed out after N s``."""
    if isinstance(error, httpx.TimeoutException):
        return f"timed out after {timeout:g} s"
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, ssl.SSLCertVerificationError):
            return f"certificate verify failed: {cause.verify_message}"
        if isinstance(cause, ssl.SSLError):
            return f"TLS handshake failed: {cause.reason or cause}"
        if isinstance(cause, OSError) and cause.strerror:
            return cause.strerror[0].lower() + cause.strerror[1:]
        cause = cause.__cause__ or cause.__context__
    return str(error) or type(error).__name__


class ConnectClient:
    """The REST API of one cluster, as a `Context` describes it (URL, basic auth, TLS files).

    Made once per command by `kconnect_ctl.cli` and closed when the command ends.
    """

    def __init__(self, context: Context, timeout: float = DEFAULT_TIMEOUT_S) -> None:
        self.url = context.cluster.rstrip("/")
        if not self.url.startswith(("http://", "https://")):
            raise BadInput(f"cluster URL {context.cluster!r} must start with http:// or https://")
        self.timeout = timeout
        auth = None if context.username is None else (context.username, context.password or "")
        self._http = httpx.Client(
            base_url=self.url,
            auth=auth,
            verify=_verify(context),
            timeout=timeout,
            headers={"Accept": "application/json"},
        )

    def close(self) -> None:
        """Close the connections."""
        self._http.close()

    def call(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str] | str | None = None,
        body: Any = None,
    ) -> httpx.Response:
        """Send one request; the 2xx response, else `Refused` or `Unreachable`."""
        try:
            response = self._http.request(method, path, params=params, json=body)
        except httpx.TransportError as e:
            raise Unreachable(f"cannot reach {self.url}: {unreachable_reason(e, self.timeout)}") from None
        if response.status_code >= 400:
            raise Refused(server_message(response), response.status_code)
        return response

    def get(self, path: str, params: Mapping[str, str] | str | None = None) -> Any:
        """GET `path` and return its JSON body (`Refused` if the answer is not JSON: not a Connect API)."""
        response = self.call("GET", path, params=params)
        try:
            return response.json()
        except ValueError:
            raise Refused(f"{self.url}{path}: the answer is not JSON", response.status_code) from None


def _verify(context: Context) -> ssl.SSLContext | bool:
    """The TLS settings of `context`: off with ``insecure``, else the system's trust store or the
    context's CA file, with the client certificate and key when given."""
    if context.insecure and context.client_cert is None:
        return False
    try:
        tls = ssl.create_default_context(cafile=context.ca_cert)
        if context.insecure:
            tls.check_hostname = False
            tls.verify_mode = ssl.CERT_NONE
        if context.client_cert is not None:
            tls.load_cert_chain(context.client_cert, context.client_key)
    except (OSError, ssl.SSLError) as e:
        files = [f for f in (context.ca_cert, context.client_cert, context.client_key) if f]
        raise BadInput(f"{', '.join(files)}: {getattr(e, 'strerror', None) or e}") from None
    return tls
