"""CORS as Kafka 4.3's Jetty ``CrossOriginHandler`` answers it (answers read from Java Kafka Connect)."""

from __future__ import annotations

import httpx
import pytest
from kconnect.worker_config import ConfigFileError, WorkerConfig
from kconnect_rest import create_app
from kconnect_rest.cors import CorsPolicy
from litestar import Litestar
from litestar.testing import TestClient

from tests.fake_herder import FakeHerder

ORIGIN = "access.control.allow.origin"
METHODS = "access.control.allow.methods"
CORS_HEADERS = (
    "vary",
    "access-control-allow-origin",
    "access-control-allow-methods",
    "access-control-allow-headers",
    "access-control-max-age",
    "access-control-allow-credentials",
)


def _client(**props: str) -> TestClient[Litestar]:
    keys = {ORIGIN: props.get("origin", ""), METHODS: props.get("methods", "")}
    return TestClient(create_app(FakeHerder(), WorkerConfig.from_props(keys)))


def _cors(headers: httpx.Headers) -> dict[str, str]:
    return {name: headers[name] for name in CORS_HEADERS if name in headers}


def _preflight(client: TestClient[Litestar], origin: str, method: str = "POST") -> httpx.Response:
    return client.options("/connectors", headers={"Origin": origin, "Access-Control-Request-Method": method})


def test_a_preflight_from_an_allowed_origin() -> None:
    with _client(origin="http://a.example,http://b.example") as client:
        response = client.options(
            "/connectors",
            headers={"Origin": "http://b.example", "Access-Control-Request-Method": "DELETE",
                     "Access-Control-Request-Headers": "X-Foo"},
        )  # fmt: skip
    assert response.status_code == 200
    assert _cors(response.headers) == {
        "vary": "Origin",
        "access-control-allow-origin": "http://b.example",
        "access-control-allow-methods": "GET,POST,HEAD",
        "access-control-allow-headers": "Content-Type",
        "access-control-max-age": "60",
    }
    # the preflight goes on to the resource: Jersey's OPTIONS answer
    assert response.headers["allow"] == "HEAD,POST,GET,OPTIONS"
    assert response.text == "HEAD, POST, GET, OPTIONS"


def test_a_simple_request_from_an_allowed_origin() -> None:
    with _client(origin="http://a.example") as client:
        response = client.get("/connectors", headers={"Origin": "http://a.example"})
        options = client.options("/connectors", headers={"Origin": "http://a.example"})  # no request method
    assert response.status_code == 200 and response.json() == []
    assert _cors(response.headers) == {"vary": "Origin", "access-control-allow-origin": "http://a.example"}
    assert _cors(options.headers) == {"vary": "Origin", "access-control-allow-origin": "http://a.example"}


def test_another_origin_is_served_without_cors_headers() -> None:
    with _client(origin="http://a.example") as client:
        preflight = _preflight(client, "http://evil.example")
        get = client.get("/connectors", headers={"Origin": "http://evil.example"})
        no_origin = client.get("/connectors")
    for response in (preflight, get, no_origin):
        assert response.status_code == 200
        assert _cors(response.headers) == {"vary": "Origin"}


def test_star_echoes_any_origin_and_methods_are_configurable() -> None:
    with _client(origin="*", methods="GET,PUT,DELETE") as client:
        response = _preflight(client, "http://x.example.com", "PUT")
    assert _cors(response.headers)["access-control-allow-origin"] == "http://x.example.com"
    assert _cors(response.headers)["access-control-allow-methods"] == "GET,PUT,DELETE"


def test_origins_are_regular_expressions_matched_whole() -> None:
    policy = CorsPolicy.from_props({ORIGIN: r"https://.*\.example\.com, http://b.com"})
    assert policy is not None
    assert policy.allows("https://x.example.com")
    assert policy.allows("http://b.com")
    assert not policy.allows("https://x.example.com.evil")
    assert not policy.allows("http://b.com:8080")
    assert policy.allows("http://other.org http://b.com")  # a list of origins: any one may match


def test_a_404_gets_the_headers_too() -> None:
    with _client(origin="http://a.example") as client:
        response = client.get("/nope", headers={"Origin": "http://a.example"})
    assert response.status_code == 404
    assert _cors(response.headers) == {"vary": "Origin", "access-control-allow-origin": "http://a.example"}


@pytest.mark.parametrize("origin", ["", "   "])
def test_blank_origin_is_no_cors(origin: str) -> None:
    assert CorsPolicy.from_props({ORIGIN: origin, METHODS: "GET"}) is None
    with _client(origin=origin) as client:
        response = _preflight(client, "http://a.example")
    assert _cors(response.headers) == {}


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({ORIGIN: "http://a.com,http://a.com"}, f"{ORIGIN}: duplicate element: http://a.com"),
        ({ORIGIN: "*", METHODS: "GET,GET"}, f"{METHODS}: duplicate element: GET"),
        ({ORIGIN: "http://[a.com"}, f"{ORIGIN}: 'http://[a.com' is not a valid regular expression: "),
    ],
)
def test_a_bad_value_is_a_start_up_error_naming_the_key(props: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigFileError) as raised:
        create_app(FakeHerder(), WorkerConfig.from_props(props, "worker.properties"))
    assert str(raised.value).startswith(f"worker.properties: {message}")
