"""Bodies a careless or hostile client sends get a 400 in Kafka's error shape, never a 500 (issue 16)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from kconnect.worker_config import WorkerConfig
from kconnect_rest import create_app
from kconnect_rest.bodies import MAX_CONNECTOR_NAME_LENGTH
from kconnect_rest.request import TOO_DEEP_MESSAGE
from litestar import Litestar
from litestar.testing import TestClient

from tests import rest_expectations as expect
from tests.fake_herder import FakeHerder

SINK = {"connector.class": "FileStreamSinkConnector", "file": "out.txt", "topics": "t"}
DEEP = "[" * 100_000 + "]" * 100_000
JSON = {"content-type": "application/json"}


@pytest.fixture
def client() -> Iterator[TestClient[Litestar]]:
    with TestClient(create_app(FakeHerder(), WorkerConfig.from_props({}))) as test_client:
        yield test_client


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/connectors", DEEP),
        ("POST", "/connectors", '{"name": "n", "config": ' + DEEP + "}"),
        ("PUT", "/connectors/n/config", DEEP),
        ("PUT", "/connector-plugins/FileStreamSink/config/validate", DEEP),
        ("PATCH", "/connectors/n/offsets", '{"offsets": [{"partition": ' + DEEP + ', "offset": {}}]}'),
    ],
)
def test_json_nested_100000_deep_is_400(
    client: TestClient[Litestar], method: str, path: str, body: str
) -> None:
    response = client.request(method, path, content=body, headers=JSON)
    expect.assert_error(response, 400, TOO_DEEP_MESSAGE)
    assert client.get("/connectors").json() == []


@pytest.mark.parametrize(
    ("method", "path", "body", "message"),
    [
        (
            "POST",
            "/connectors",
            b'{"name": "\xff\xfe", "config": {}}',
            "byte 0xff at offset 10 (invalid start byte)",
        ),
        (
            "PUT",
            "/connectors/n/config",
            b'{"connector.class": "FileStreamSink", "file": "o\xc3"}',
            "byte 0xc3 at offset 48 (invalid continuation byte)",
        ),
        (
            "PUT",
            "/connector-plugins/FileStreamSink/config/validate",
            b'{"a": "\xff"}',
            "byte 0xff at offset 7 (invalid start byte)",
        ),
    ],
)
def test_a_body_that_is_not_utf8_is_400_naming_the_byte(
    client: TestClient[Litestar], method: str, path: str, body: bytes, message: str
) -> None:
    response = client.request(method, path, content=body, headers=JSON)
    expect.assert_error(response, 400, f"Request body is not valid UTF-8: {message}")
    assert client.get("/connectors").json() == []


def test_a_name_longer_than_the_limit_is_400_on_create_and_on_put(client: TestClient[Litestar]) -> None:
    too_long = "n" * (MAX_CONNECTOR_NAME_LENGTH + 1)
    message = f"Connector name is too long: {len(too_long)} characters, at most 249 are accepted"
    expect.assert_error(client.post("/connectors", json={"name": too_long, "config": SINK}), 400, message)
    expect.assert_error(client.put(f"/connectors/{too_long}/config", json=SINK), 400, message)
    huge = "n" * (1 << 20)
    expect.assert_error(
        client.post("/connectors", json={"name": huge, "config": SINK}), 400, contains="1048576 characters"
    )
    assert client.get("/connectors").json() == []


def test_a_name_at_the_limit_is_created_with_its_location(client: TestClient[Litestar]) -> None:
    name = "é" * MAX_CONNECTOR_NAME_LENGTH  # two bytes each, percent-encoded in the Location
    response = client.post("/connectors", json={"name": name, "config": SINK})
    assert response.status_code == 201, response.text
    assert response.headers["location"].endswith("/connectors/" + "%C3%A9" * MAX_CONNECTOR_NAME_LENGTH)
    assert client.get("/connectors").json() == [name]
