"""``GET /connectors/{name}/restarts`` (kconnect's extension) against the in-memory herder."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from kconnect.worker_config import WorkerConfig
from kconnect_rest import create_app
from litestar import Litestar
from litestar.testing import TestClient

from tests import rest_expectations as expect
from tests.fake_herder import FakeHerder

SINK = {"connector.class": "FileStreamSinkConnector", "tasks.max": "2", "file": "out.txt", "topics": "t"}


@pytest.fixture
def client() -> Iterator[TestClient[Litestar]]:
    with TestClient(create_app(FakeHerder(), WorkerConfig.from_props({}))) as test_client:
        yield test_client


def test_the_restarts_of_a_connector_and_each_task(client: TestClient[Litestar]) -> None:
    assert client.post("/connectors", json={"name": "s", "config": SINK}).status_code == 201
    response = client.get("/connectors/s/restarts")
    assert response.status_code == 200
    never = {
        "count": 0,
        "last_failure": None,
        "last_failure_ms": None,
        "next_attempt_ms": None,
        "gave_up": False,
    }
    assert response.json() == {
        "name": "s",
        "enabled": False,
        "max_attempts": -1,
        "backoff_ms": 60000,
        "backoff_max_ms": 3600000,
        "connector": never,
        "tasks": [
            {"id": 0, **never, "count": 1, "last_failure": "boom", "last_failure_ms": 1_700_000_000_000},
            {"id": 1, **never},
        ],
    }


def test_the_restarts_of_an_unknown_connector_are_a_404(client: TestClient[Litestar]) -> None:
    expect.assert_error(client.get("/connectors/nope/restarts"), 404, "Connector nope not found")
