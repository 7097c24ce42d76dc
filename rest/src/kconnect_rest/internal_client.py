"""Sends a follower's internal requests to the leader, signed (`kconnect.herder.api.LeaderRequests`).

The distributed herder is handed one `InternalRequestClient` by the worker; the kernel itself
speaks no HTTP. The body is serialised once and those exact bytes are signed and sent.
"""

from __future__ import annotations

import logging
import ssl
from collections.abc import Mapping, Sequence
from urllib.parse import quote

import httpx
import msgspec
from kconnect.distributed.request_signing import InterWorkerKeyConfig
from kconnect.errors import ConnectError
from kconnect.model import SessionKey

from kconnect_rest.forwarding import DEFAULT_FORWARD_TIMEOUT_SECONDS, FORWARD_PARAM
from kconnect_rest.signing import signature_headers

log = logging.getLogger(__name__)


class InternalRequestClient:
    """Signed requests from this worker to the leader; `close` when the worker stops."""

    def __init__(
        self,
        key_config: InterWorkerKeyConfig,
        *,
        timeout_seconds: float = DEFAULT_FORWARD_TIMEOUT_SECONDS,
        verify: ssl.SSLContext | bool = True,
    ) -> None:
        """`verify` checks an https leader (`kconnect_rest.tls.client_verify`: the worker's trust store)."""
        self._key_config = key_config
        self._client = httpx.AsyncClient(timeout=timeout_seconds, follow_redirects=False, verify=verify)

    async def put_task_configs(
        self,
        leader_url: str,
        connector: str,
        configs: Sequence[Mapping[str, str]],
        session_key: SessionKey | None,
    ) -> None:
        """POST the task configs to the leader (``?forward=true``, as Kafka's follower does).

        Raises ConnectError naming the leader and its answer (or the I/O error); the caller retries.
        """
        body = msgspec.json.encode([dict(c) for c in configs])
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if session_key is not None:
            headers |= signature_headers(session_key, body, self._key_config.signature_algorithm)
        url = f"{leader_url.rstrip('/')}/connectors/{quote(connector, safe='')}/tasks?{FORWARD_PARAM}=true"
        try:
            reply = await self._client.post(url, content=body, headers=headers)
        except httpx.HTTPError as exc:
            raise ConnectError(
                f"Request to leader {leader_url} to write task configs of {connector} failed: {exc}"
            ) from exc
        if reply.status_code >= 300:
            raise ConnectError(
                f"Request to leader {leader_url} to write task configs of {connector} failed: "
                f"{reply.status_code} {reply.text.strip()}"
            )
        log.debug("Sent %d task configs of %s to the leader %s", len(configs), connector, leader_url)

    async def close(self) -> None:
        """Close the HTTP client."""
        await self._client.aclose()
