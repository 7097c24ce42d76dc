"""Forwarding a write to the leader (Kafka's ``?forward=``): URLs, hops, what is relayed, in process.

A follower's herder raises NotLeaderError; the leader is a `RecordingLeader` (httpx MockTransport)
or another app reached through ``httpx.ASGITransport``. No network.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from kconnect.worker_config import WorkerConfig
from kconnect_rest import create_app
from kconnect_rest.forwarding import (
    CONFLICTING_OPERATION_MESSAGE,
    IO_ERROR_PREFIX,
    NO_LEADER_MESSAGE,
    UNEXPECTED_STATUS_PREFIX,
    forward_flag,
    forward_url,
)
from kconnect_rest.signing import signature_headers
from litestar import Litestar
from litestar.testing import TestClient
from litestar.types import Scope

from tests import rest_expectations as expect
from tests.fake_herder import FakeHerder
from tests.unit.kconnect_rest.leader_fakes import (
    SESSION_KEY,
    TASKS_BODY,
    FollowerHerder,
    InternalFakeHerder,
    RecordingLeader,
    send_to_leader,
)

WORKER_URL = "http://worker-1.example:8083"
LEADER_URL = "http://leader.example:8083/"
CONFIG = {"connector.class": "FileStreamSinkConnector", "tasks.max": "1", "topics": "t", "file": "f"}
CREATE_BODY = json.dumps({"name": "a", "config": CONFIG}).encode()
CREATED = {"name": "a", "config": {**CONFIG, "name": "a"}, "tasks": [], "type": "sink"}
AUTH = "Basic dXNlcjpwYXNzd29yZA=="


def scope(raw_path: bytes | None, query: bytes = b"", path: str = "/") -> Scope:
    fields: dict[str, Any] = {"type": "http", "path": path, "query_string": query}
    if raw_path is not None:
        fields["raw_path"] = raw_path
    return fields  # type: ignore[return-value]


# --- forward_flag and forward_url --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        (b"", None),
        (b"expand=status", None),
        (b"forward=true", True),
        (b"forward=TRUE", True),
        (b"expand=info&forward=true", True),
        (b"forward=false", False),
        (b"forward=", False),
        (b"forward=yes", False),  # Java's Boolean.valueOf: only "true" is true
    ],
)
def test_forward_flag(query: bytes, expected: bool | None) -> None:
    assert forward_flag(scope(b"/connectors", query)) is expected


FORWARD_URLS = [
    # leader, raw path, query, recursive, expected
    (LEADER_URL, b"/connectors", b"", True, "http://leader.example:8083/connectors?forward=true"),
    (LEADER_URL, b"/connectors", b"forward=true", False, "http://leader.example:8083/connectors?forward=false"),
    ("http://leader.example:8083", b"/connectors/a%2Fb/config", b"", True,
     "http://leader.example:8083/connectors/a%2Fb/config?forward=true"),
    (LEADER_URL, b"/connectors/a%2Fb/restart", b"includeTasks=true&onlyFailed=false", True,
     "http://leader.example:8083/connectors/a%2Fb/restart?forward=true&includeTasks=true&onlyFailed=false"),
    (LEADER_URL, b"/connectors/a/restart", b"forward=true&includeTasks=true", False,
     "http://leader.example:8083/connectors/a/restart?forward=false&includeTasks=true"),
    (LEADER_URL, b"/connectors", b"expand=status&expand=info", True,
     "http://leader.example:8083/connectors?forward=true&expand=status&expand=info"),
    (LEADER_URL, b"/connectors/a?forward=true", b"forward=true", False,  # a raw path carrying the query
     "http://leader.example:8083/connectors/a?forward=false"),
]  # fmt: skip


@pytest.mark.parametrize(("leader", "raw_path", "query", "recursive", "expected"), FORWARD_URLS)
def test_forward_url(leader: str, raw_path: bytes, query: bytes, recursive: bool, expected: str) -> None:
    assert forward_url(leader, scope(raw_path, query), recursive) == expected


def test_forward_url_without_raw_path_uses_the_path() -> None:
    url = forward_url(LEADER_URL, scope(None, b"", "/connectors/a/pause"), recursive=True)
    assert url == "http://leader.example:8083/connectors/a/pause?forward=true"


# --- LeaderForwarder, in process ---------------------------------------------------------------------------


def follower(leader: RecordingLeader, leader_url: str | None = LEADER_URL) -> TestClient[Litestar]:
    app = create_app(FollowerHerder(leader_url), WorkerConfig.from_props({}))
    return TestClient(send_to_leader(app, leader.transport()), base_url=WORKER_URL)


@pytest.fixture
def created_leader() -> RecordingLeader:
    return RecordingLeader(
        httpx.Response(201, json=CREATED, headers={"Location": "http://leader.example:8083/connectors/a"})
    )


def test_a_write_is_forwarded_with_method_body_and_credentials(created_leader: RecordingLeader) -> None:
    with follower(created_leader) as client:
        response = client.post(
            "/connectors",
            content=CREATE_BODY,
            headers={"Content-Type": "application/json", "Authorization": AUTH, "X-Trace": "t-1"},
        )
    (sent,) = created_leader.requests
    assert (sent.method, str(sent.url)) == ("POST", "http://leader.example:8083/connectors?forward=true")
    assert sent.content == CREATE_BODY
    assert sent.headers["authorization"] == AUTH
    assert sent.headers["content-type"] == "application/json"
    assert "x-trace" not in sent.headers
    assert response.status_code == 201
    assert response.json() == CREATED
    assert response.headers["location"] == "http://worker-1.example:8083/connectors/a"


def test_a_location_on_another_host_is_kept() -> None:
    leader = RecordingLeader(httpx.Response(201, json=CREATED, headers={"Location": "http://other:9000/c/a"}))
    with follower(leader) as client:
        response = client.post(
            "/connectors", content=CREATE_BODY, headers={"Content-Type": "application/json"}
        )
    assert response.headers["location"] == "http://other:9000/c/a"


def test_an_encoded_name_is_forwarded_encoded_and_a_204_relayed() -> None:
    leader = RecordingLeader(httpx.Response(204))
    with follower(leader) as client:
        response = client.delete("/connectors/a%2Fb", headers={"Authorization": AUTH})
    (sent,) = leader.requests
    assert (sent.method, sent.url.raw_path) == ("DELETE", b"/connectors/a%2Fb?forward=true")
    assert sent.headers["authorization"] == AUTH
    assert sent.content == b""
    expect.assert_empty(response, 204)


def test_a_forwarded_request_is_forwarded_once_more_with_forward_false() -> None:
    leader = RecordingLeader(httpx.Response(202))
    with follower(leader) as client:
        response = client.put("/connectors/a/pause?forward=true")
    assert [str(r.url) for r in leader.requests] == [
        "http://leader.example:8083/connectors/a/pause?forward=false"
    ]
    assert leader.requests[0].method == "PUT"
    expect.assert_empty(response, 202)


def test_the_second_hop_keeps_the_credentials_and_says_forward_false() -> None:
    config = WorkerConfig.from_props({})
    worker_1 = create_app(FollowerHerder("http://worker-2.example:8083/"), config)
    worker_2 = create_app(FollowerHerder(LEADER_URL), config)
    leader = RecordingLeader(httpx.Response(202))
    chain(worker_1, worker_2)
    send_to_leader(worker_2, leader.transport())
    with TestClient(worker_1, base_url=WORKER_URL) as client:
        response = client.put("/connectors/a%2Fb/pause", headers={"Authorization": AUTH})
    (sent,) = leader.requests
    assert (sent.method, sent.url.raw_path) == ("PUT", b"/connectors/a%2Fb/pause?forward=false")
    assert sent.headers["authorization"] == AUTH
    expect.assert_empty(response, 202)


def test_query_parameters_are_kept_and_the_leaders_body_relayed() -> None:
    snapshot = {
        "name": "a",
        "connector": {"state": "RESTARTING", "worker_id": "leader.example:8083"},
        "tasks": [],
        "type": "sink",
    }
    leader = RecordingLeader(httpx.Response(202, json=snapshot))
    with follower(leader) as client:
        response = client.post("/connectors/a/restart?includeTasks=true&onlyFailed=true")
    assert [str(r.url) for r in leader.requests] == [
        "http://leader.example:8083/connectors/a/restart?forward=true&includeTasks=true&onlyFailed=true"
    ]
    assert (response.status_code, response.json()) == (202, snapshot)
    assert response.headers["content-type"].startswith("application/json")


@pytest.mark.parametrize("query", ["?forward=false", "?forward=False", "?forward=no"])
def test_a_request_that_already_made_two_hops_is_a_conflict(
    created_leader: RecordingLeader, query: str
) -> None:
    with follower(created_leader) as client:
        response = client.put(f"/connectors/a/pause{query}")
    expect.assert_error(response, 409, CONFLICTING_OPERATION_MESSAGE)
    assert created_leader.requests == []


@pytest.mark.parametrize("query", ["", "?forward=true"])
def test_no_known_leader_is_a_conflict(created_leader: RecordingLeader, query: str) -> None:
    with follower(created_leader, leader_url=None) as client:
        response = client.put(f"/connectors/a/pause{query}")
    expect.assert_error(response, 409, NO_LEADER_MESSAGE)
    assert created_leader.requests == []


def test_no_known_leader_after_two_hops_is_still_the_two_hops_conflict(
    created_leader: RecordingLeader,
) -> None:
    """Kafka's HerderRequestHandler checks the forward flag before the leader URL."""
    with follower(created_leader, leader_url=None) as client:
        response = client.put("/connectors/a/pause?forward=false")
    expect.assert_error(response, 409, CONFLICTING_OPERATION_MESSAGE)


@pytest.mark.parametrize(
    ("error", "cause"),
    [
        (httpx.ConnectError("[Errno 111] Connection refused"), "[Errno 111] Connection refused"),
        (httpx.ReadTimeout(""), "ReadTimeout"),
    ],
)
def test_an_unreachable_leader_is_a_500_io_error(error: Exception, cause: str) -> None:
    leader = RecordingLeader(error)
    with follower(leader) as client:
        response = client.put("/connectors/a/pause")
    expect.assert_error(response, 500, IO_ERROR_PREFIX + cause)
    assert response.json()["message"].startswith("IO Error trying to forward REST request: ")


@pytest.mark.parametrize(
    ("reply", "status", "message"),
    [
        (httpx.Response(404, json={"error_code": 404, "message": "Connector a not found"}), 404,
         "Connector a not found"),
        (httpx.Response(409, json={"error_code": 409, "message": "Connector a already exists"}), 409,
         "Connector a already exists"),
        (httpx.Response(502, text="Bad Gateway\n"), 502, "Bad Gateway"),
        (httpx.Response(307, headers={"Location": "http://elsewhere/"}), 500,
         UNEXPECTED_STATUS_PREFIX + "307"),
    ],
)  # fmt: skip
def test_the_leaders_error_is_relayed(reply: httpx.Response, status: int, message: str) -> None:
    with follower(RecordingLeader(reply)) as client:
        response = client.put("/connectors/a/pause")
    expect.assert_error(response, status, message)


def test_reads_are_answered_locally(created_leader: RecordingLeader) -> None:
    with follower(created_leader) as client:
        assert client.get("/connectors").json() == []
    assert created_leader.requests == []


# --- two and three workers, in process ---------------------------------------------------------------------


def chain(*apps: Litestar) -> None:
    """Make each app forward to the next one, whatever leader URL its herder names."""
    for app, leader in itertools.pairwise(apps):
        send_to_leader(app, httpx.ASGITransport(app=leader))


@pytest.fixture
def leader_herder() -> FakeHerder:
    return FakeHerder()


@pytest.fixture
def three_workers(leader_herder: FakeHerder) -> Iterator[TestClient[Litestar]]:
    """worker-1 (not the leader, knows worker-2 as leader) -> worker-2 (not the leader) -> the leader."""
    config = WorkerConfig.from_props({})
    worker_1 = create_app(FollowerHerder("http://worker-2.example:8083/"), config)
    worker_2 = create_app(FollowerHerder(LEADER_URL), config)
    leader = create_app(leader_herder, config)
    chain(worker_1, worker_2, leader)
    with TestClient(worker_1, base_url=WORKER_URL) as client:
        yield client


def test_a_create_on_a_follower_is_applied_by_the_leader_two_hops_away(
    three_workers: TestClient[Litestar], leader_herder: FakeHerder
) -> None:
    response = three_workers.post(
        "/connectors",
        content=CREATE_BODY,
        headers={"Content-Type": "application/json", "Authorization": AUTH},
    )
    assert response.status_code == 201, response.text
    expect.assert_connector_info(response.json(), "a", type="sink", tasks=1)
    assert response.headers["location"] == "http://worker-1.example:8083/connectors/a"
    assert sorted(leader_herder.connectors_by_name) == ["a"]


def test_the_leaders_refusal_comes_back_through_both_hops(
    three_workers: TestClient[Litestar], leader_herder: FakeHerder
) -> None:
    response = three_workers.put("/connectors/missing/pause")
    expect.assert_error(response, 404, expect.connector_not_found("missing"))


def test_a_signed_internal_request_stays_valid_when_forwarded() -> None:
    """The body is forwarded byte for byte, so the leader verifies the follower's signature."""
    config = WorkerConfig.from_props({})
    follower_app = create_app(InternalFakeHerder(SESSION_KEY, leader_url=LEADER_URL), config)
    leader_herder = InternalFakeHerder(SESSION_KEY)
    chain(follower_app, create_app(leader_herder, config))
    headers = {"Content-Type": "application/json", **signature_headers(SESSION_KEY, TASKS_BODY, "HmacSHA256")}
    with TestClient(follower_app, base_url=WORKER_URL) as client:
        response = client.post("/connectors/a%2Fb/tasks", content=TASKS_BODY, headers=headers)
    assert response.status_code == 204, response.text
    assert leader_herder.written == [("a/b", json.loads(TASKS_BODY))]
