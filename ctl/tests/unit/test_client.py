"""The HTTP edge's pure parts: the one line a refusal or an unreachable cluster is shown as."""

from __future__ import annotations

import re
import ssl

import httpx
import pytest
from kconnect_ctl.client import ConnectClient, connector_path, server_message, unreachable_reason
from kconnect_ctl.contexts import Context
from kconnect_ctl.errors import BadInput


def response(status: int, **kwargs: object) -> httpx.Response:
    return httpx.Response(status, request=httpx.Request("GET", "http://x/"), **kwargs)  # type: ignore[arg-type]


def test_a_refusal_is_the_servers_message_on_one_line() -> None:
    message = "Connector configuration is invalid and contains the following 1 error(s):\nbad\n\nsee validate"
    got = server_message(response(400, json={"error_code": 400, "message": message}))
    assert got == "Connector configuration is invalid and contains the following 1 error(s): bad see validate"


def test_a_refusal_without_kafkas_body_is_its_first_line_or_its_status() -> None:
    assert server_message(response(502, text="bad gateway\nmore")) == "bad gateway"
    assert server_message(response(404, text="<html><body>nginx</body></html>")) == "404 Not Found"
    assert server_message(response(500, json={"error_code": 500, "message": ""})).startswith("{")


def test_why_a_cluster_is_unreachable_in_a_few_words() -> None:
    refused = httpx.ConnectError("[Errno 111] Connection refused")
    refused.__cause__ = ConnectionRefusedError(111, "Connection refused")
    assert unreachable_reason(refused, 90) == "connection refused"
    assert unreachable_reason(httpx.ReadTimeout("slow"), 2.5) == "timed out after 2.5 s"
    verify = ssl.SSLCertVerificationError(1, "x")
    verify.verify_message = "self-signed certificate"
    tls = httpx.ConnectError("tls")
    tls.__cause__ = verify
    assert unreachable_reason(tls, 90) == "certificate verify failed: self-signed certificate"
    assert unreachable_reason(httpx.ConnectError("odd"), 90) == "odd"


def test_connector_names_are_url_encoded_in_paths() -> None:
    assert connector_path("a b/c", "tasks", "0", "restart") == "/connectors/a%20b%2Fc/tasks/0/restart"


def test_a_cluster_url_needs_a_scheme_and_tls_files_must_exist() -> None:
    with pytest.raises(BadInput, match="must start with http:// or https://"):
        ConnectClient(Context("localhost:8083"))
    with pytest.raises(BadInput, match=re.escape("/no/ca.pem: No such file or directory")):
        ConnectClient(Context("https://a", ca_cert="/no/ca.pem"))
    ConnectClient(Context("https://a", insecure=True)).close()
