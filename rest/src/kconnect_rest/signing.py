"""Internal request signatures in HTTP headers (KIP-507), checked the way Kafka's leader checks them.

A signed request carries ``X-Connect-Authorization`` (the base64 HMAC of the body's bytes under the
cluster's session key) and ``X-Connect-Request-Signature-Algorithm`` (a Java Mac name such as
``HmacSHA256``). `signature_headers` makes them; `verify_request` checks them for the internal
endpoints and raises Kafka's errors:

* a header missing: 400 ``Internal request missing required signature``;
* an algorithm the worker does not know, or a signature that is not base64: 400 with the reason;
* an algorithm not in ``inter.worker.verification.algorithms``: 400 with Kafka's text;
* a signature that does not match: 403 ``Internal request contained invalid signature.``;
* no session key read yet: 409 (retry), where Kafka fails the request with a 500.

The HMAC and the ``inter.worker.*`` keys live in the kernel (`kconnect.distributed.request_signing`).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping

from kconnect.distributed.request_signing import (
    InterWorkerKeyConfig,
    UnsupportedAlgorithmError,
    sign,
    signature_matches,
)
from kconnect.errors import BadRequestError, ConflictError
from kconnect.model import SessionKey
from litestar.exceptions import PermissionDeniedException

SIGNATURE_HEADER = "X-Connect-Authorization"
SIGNATURE_ALGORITHM_HEADER = "X-Connect-Request-Signature-Algorithm"

MISSING_SIGNATURE_MESSAGE = "Internal request missing required signature"
INVALID_SIGNATURE_MESSAGE = "Internal request contained invalid signature."
NO_SESSION_KEY_MESSAGE = "Cannot verify internal request: this worker has not read a session key yet"


def signature_headers(session_key: SessionKey, body: bytes, algorithm: str) -> dict[str, str]:
    """The two headers that sign `body` with `session_key` (the sending worker adds them)."""
    signature = base64.b64encode(sign(session_key.key, body, algorithm)).decode("ascii")
    return {SIGNATURE_HEADER: signature, SIGNATURE_ALGORITHM_HEADER: algorithm}


def unsupported_verification_message(algorithm: str, allowed: tuple[str, ...]) -> str:
    """Kafka's 400 text for a signature algorithm this worker's config does not permit."""
    return (
        f"This worker does not support the '{algorithm}' key signing algorithm used by other workers. "
        f"This worker is currently configured to use: [{', '.join(allowed)}]. "
        "Check that all workers' configuration files permit the same set of signature algorithms, "
        "and correct any misconfigured worker and restart it."
    )


def verify_request(
    headers: Mapping[str, str], body: bytes, session_key: SessionKey | None, config: InterWorkerKeyConfig
) -> None:
    """Raise BadRequestError, a 403 or ConflictError unless `body` is signed with `session_key`.

    Called by the internal endpoints before the herder sees the request; `headers` are looked up
    case-insensitively by the caller's mapping (litestar's request headers are).
    """
    algorithm = headers.get(SIGNATURE_ALGORITHM_HEADER)
    encoded = headers.get(SIGNATURE_HEADER)
    if algorithm is None or encoded is None:
        raise BadRequestError(MISSING_SIGNATURE_MESSAGE)
    try:
        sign(b"", b"", algorithm)
    except UnsupportedAlgorithmError as exc:
        raise BadRequestError(f"{algorithm} Mac not available: {exc}") from None
    try:
        signature = base64.b64decode(encoded, validate=True)
    except binascii.Error as exc:
        raise BadRequestError(f"Invalid signature encoding: {exc}") from None
    if algorithm not in config.verification_algorithms:
        raise BadRequestError(unsupported_verification_message(algorithm, config.verification_algorithms))
    if session_key is None:
        raise ConflictError(NO_SESSION_KEY_MESSAGE)
    if not signature_matches(session_key.key, body, algorithm, signature):
        raise PermissionDeniedException(detail=INVALID_SIGNATURE_MESSAGE)
