"""Internal request signatures in HTTP headers (KIP-507): the headers, each refusal, the internal endpoint."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

import httpx
import pytest
from kconnect.distributed.request_signing import InterWorkerKeyConfig
from kconnect.errors import BadRequestError, ConflictError
from kconnect.model import SessionKey
from kconnect.worker_config import WorkerConfig
from kconnect_rest import create_app
from kconnect_rest.signing import signature_headers, verify_request
from litestar import Litestar
from litestar.exceptions import PermissionDeniedException
from litestar.testing import TestClient

from tests import rest_expectations as expect
from tests.unit.kconnect_rest.leader_fakes import SESSION_KEY, TASKS_BODY, InternalFakeHerder

OTHER_KEY = SessionKey(bytes(32), "HmacSHA256", 0)
BODY = TASKS_BODY
DEFAULT = InterWorkerKeyConfig()
BOTH = InterWorkerKeyConfig(verification_algorithms=("HmacSHA256", "HmacSHA512"))
NO_KEY = "Cannot verify internal request: this worker has not read a session key yet"
SUPPORTED = (
    "[HmacMD5, HmacSHA1, HmacSHA224, HmacSHA256, HmacSHA384, HmacSHA512, HmacSHA512/224, "
    "HmacSHA512/256, HmacSHA3-224, HmacSHA3-256, HmacSHA3-384, HmacSHA3-512]"
)


def expected_signature(key: bytes, body: bytes) -> str:
    return base64.b64encode(hmac.new(key, body, hashlib.sha256).digest()).decode("ascii")


def headers(signature: str, algorithm: str = "HmacSHA256") -> dict[str, str]:
    return {"X-Connect-Authorization": signature, "X-Connect-Request-Signature-Algorithm": algorithm}


# --- signature_headers + verify_request -------------------------------------------------------------------


def test_signature_headers_carry_the_base64_hmac_and_the_algorithm() -> None:
    assert signature_headers(SESSION_KEY, BODY, "HmacSHA256") == headers(
        expected_signature(SESSION_KEY.key, BODY)
    )


@pytest.mark.parametrize(("algorithm", "config"), [("HmacSHA256", DEFAULT), ("HmacSHA512", BOTH)])
def test_a_good_signature_passes(algorithm: str, config: InterWorkerKeyConfig) -> None:
    verify_request(signature_headers(SESSION_KEY, BODY, algorithm), BODY, SESSION_KEY, config)


@pytest.mark.parametrize(
    "sent",
    [{}, {"X-Connect-Authorization": "c2ln"}, {"X-Connect-Request-Signature-Algorithm": "HmacSHA256"}],
)
def test_a_missing_header_is_a_bad_request(sent: dict[str, str]) -> None:
    with pytest.raises(BadRequestError) as info:
        verify_request(sent, BODY, SESSION_KEY, DEFAULT)
    assert str(info.value) == "Internal request missing required signature"


def test_an_unknown_algorithm_is_a_bad_request() -> None:
    with pytest.raises(BadRequestError) as info:
        verify_request(headers("c2ln", "HmacFoo"), BODY, SESSION_KEY, DEFAULT)
    assert str(info.value) == (
        "HmacFoo Mac not available: the algorithm is not supported by this worker; "
        f"the supported algorithms are: {SUPPORTED}"
    )


def test_an_algorithm_not_in_the_verification_list_is_a_bad_request() -> None:
    with pytest.raises(BadRequestError) as info:
        verify_request(signature_headers(SESSION_KEY, BODY, "HmacSHA512"), BODY, SESSION_KEY, DEFAULT)
    assert str(info.value) == (
        "This worker does not support the 'HmacSHA512' key signing algorithm used by other workers. "
        "This worker is currently configured to use: [HmacSHA256]. "
        "Check that all workers' configuration files permit the same set of signature algorithms, "
        "and correct any misconfigured worker and restart it."
    )


@pytest.mark.parametrize("signature", ["not base64!", "c2ln=x", "abc"])
def test_a_signature_that_is_not_base64_is_a_bad_request(signature: str) -> None:
    with pytest.raises(BadRequestError) as info:
        verify_request(headers(signature), BODY, SESSION_KEY, DEFAULT)
    assert str(info.value).startswith("Invalid signature encoding: ")


def test_no_session_key_yet_is_a_conflict() -> None:
    with pytest.raises(ConflictError) as info:
        verify_request(signature_headers(SESSION_KEY, BODY, "HmacSHA256"), BODY, None, DEFAULT)
    assert str(info.value) == NO_KEY


@pytest.mark.parametrize(
    ("signed_with", "signed_body"),
    [(OTHER_KEY, BODY), (SESSION_KEY, BODY + b" "), (SESSION_KEY, b"")],
    ids=["other key", "other body", "empty body"],
)
def test_a_wrong_signature_is_forbidden(signed_with: SessionKey, signed_body: bytes) -> None:
    with pytest.raises(PermissionDeniedException) as info:
        verify_request(signature_headers(signed_with, signed_body, "HmacSHA256"), BODY, SESSION_KEY, DEFAULT)
    assert (info.value.status_code, info.value.detail) == (
        403,
        "Internal request contained invalid signature.",
    )


# --- the internal endpoint, in process ---------------------------------------------------------------------


def post_tasks(herder: InternalFakeHerder, sent: dict[str, str]) -> httpx.Response:
    """POST the task configs of connector ``a/b`` to a worker serving `herder`."""
    app: Litestar = create_app(herder, WorkerConfig.from_props({}))
    with TestClient(app) as client:
        return client.post(
            "/connectors/a%2Fb/tasks", content=BODY, headers={"Content-Type": "application/json", **sent}
        )


def test_a_signed_task_configs_request_reaches_the_herder() -> None:
    herder = InternalFakeHerder(SESSION_KEY)
    response = post_tasks(herder, signature_headers(SESSION_KEY, BODY, "HmacSHA256"))
    assert response.status_code == 204
    assert herder.written == [("a/b", json.loads(BODY))]


@pytest.mark.parametrize(
    ("session_key", "sent", "status", "message"),
    [
        (SESSION_KEY, {}, 400, "Internal request missing required signature"),
        (SESSION_KEY, signature_headers(OTHER_KEY, BODY, "HmacSHA256"), 403,
         "Internal request contained invalid signature."),
        (None, signature_headers(SESSION_KEY, BODY, "HmacSHA256"), 409,
         NO_KEY + "; please retry the request"),
    ],
)  # fmt: skip
def test_a_refused_signature_is_answered_with_kafkas_error(
    session_key: SessionKey | None, sent: dict[str, str], status: int, message: str
) -> None:
    herder = InternalFakeHerder(session_key)
    response = post_tasks(herder, sent)
    expect.assert_error(response, status, message)
    assert herder.written == []


def test_an_unsigned_request_passes_when_the_group_does_not_sign() -> None:
    herder = InternalFakeHerder(None, signed=False)
    assert post_tasks(herder, {}).status_code == 204
    assert herder.written == [("a/b", json.loads(BODY))]


def put_fence(herder: InternalFakeHerder, sent: dict[str, str]) -> httpx.Response:
    app: Litestar = create_app(herder, WorkerConfig.from_props({}))
    with TestClient(app) as client:
        return client.put("/connectors/a%2Fb/fence", content=b"", headers=sent)


def test_a_signed_fencing_request_reaches_the_herder_and_a_wrong_one_does_not() -> None:
    herder = InternalFakeHerder(SESSION_KEY)
    assert put_fence(herder, signature_headers(SESSION_KEY, b"", "HmacSHA256")).status_code == 204
    assert herder.fenced == ["a/b"]
    expect.assert_error(put_fence(herder, {}), 400, "Internal request missing required signature")
    wrong = signature_headers(OTHER_KEY, b"", "HmacSHA256")
    expect.assert_error(put_fence(herder, wrong), 403, "Internal request contained invalid signature.")
    assert herder.fenced == ["a/b"]
