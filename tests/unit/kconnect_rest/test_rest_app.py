"""The REST layer against an in-memory herder: paths, codes, shapes, texts, encoding, OpenAPI."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest
from kconnect import __version__
from kconnect.cluster import ClusterState
from kconnect.errors import ConflictError
from kconnect.herder.api import WorkerHealth
from kconnect.herder.loggers import Loggers, level_name, parse_level
from kconnect.worker_config import WorkerConfig
from kconnect_rest import create_app
from kconnect_rest.bodies import string_map
from litestar import Litestar, get
from litestar.config.app import AppConfig
from litestar.plugins import InitPluginProtocol
from litestar.response.base import ASGIResponse
from litestar.testing import TestClient
from litestar.types import ASGIApp, Receive, Scope, Send

from tests import rest_expectations as expect
from tests.fake_herder import CLUSTER_ID, SINK_CLASS, FakeHerder

SINK = {"connector.class": "FileStreamSinkConnector", "tasks.max": "2", "file": "out.txt", "topics": "t"}


@pytest.fixture
def herder() -> FakeHerder:
    return FakeHerder()


def _client(herder: FakeHerder, props: dict[str, str] | None = None, **kwargs: Any) -> TestClient[Litestar]:
    return TestClient(create_app(herder, WorkerConfig.from_props(props or {}), **kwargs))


@pytest.fixture
def client(herder: FakeHerder) -> Iterator[TestClient[Litestar]]:
    with _client(herder) as test_client:
        yield test_client


def create(client: TestClient[Litestar], name: str = "local-file-sink", **extra: Any) -> Any:
    response = client.post("/connectors", json={"name": name, "config": SINK, **extra})
    assert response.status_code == 201, response.text
    return response


# --- root ---------------------------------------------------------------------------------------------------


def test_root_answers_version_commit_and_cluster_id(client: TestClient[Litestar]) -> None:
    body = client.get("/").json()
    assert list(body) == ["version", "commit", "kafka_cluster_id"]
    assert body["kafka_cluster_id"] == CLUSTER_ID


@pytest.mark.parametrize(("status", "code"), [("healthy", 200), ("starting", 503), ("unhealthy", 500)])
def test_health_codes(herder: FakeHerder, client: TestClient[Litestar], status: str, code: int) -> None:
    herder.health_status = WorkerHealth(status, "msg")
    response = client.get("/health")
    assert response.status_code == code
    assert response.json() == {"status": status, "message": "msg"}


def test_executor_reports_slots_hosts_and_their_tasks(client: TestClient[Litestar]) -> None:
    create(client)
    response = client.get("/executor")
    assert response.status_code == 200 and response.headers["content-type"] == "application/json"
    assert response.json() == {
        "kconnect_version": __version__,
        "executor": "fake",
        "slots": 1,
        "slots_used": 1,
        "tasks_per_host": 100,
        "hosts": [
            {
                "id": 1,
                "state": "RUNNING",
                "capacity": 100,
                "dedicated": False,
                "tasks": [
                    {"connector": "local-file-sink", "task": 0},
                    {"connector": "local-file-sink", "task": 1},
                ],
                "cpu": 0.42,
            },
            {"id": 2, "state": "WAITING", "capacity": 1, "dedicated": True, "tasks": [], "cpu": None},
        ],
        "unplaced": [],
    }


# --- connectors ---------------------------------------------------------------------------------------------


def test_create_answers_201_with_location_and_info(client: TestClient[Litestar]) -> None:
    response = create(client)
    assert response.headers["location"].endswith("/connectors/local-file-sink")
    assert response.headers["location"].startswith("http")
    expect.assert_connector_info(response.json(), "local-file-sink", type="sink", tasks=2)


def test_create_stringifies_numbers_and_booleans(client: TestClient[Litestar]) -> None:
    config = {**SINK, "tasks.max": 1, "errors.log.enable": True, "x": 1.5}
    response = client.post("/connectors", json={"name": "n", "config": config})
    assert response.status_code == 201
    expected = {"tasks.max": "1", "errors.log.enable": "true", "x": "1.5"}
    assert expected.items() <= response.json()["config"].items()


def test_create_duplicate_is_409(client: TestClient[Litestar]) -> None:
    create(client)
    response = client.post("/connectors", json={"name": "local-file-sink", "config": SINK})
    expect.assert_error(response, 409, expect.already_exists("local-file-sink"))


def test_create_invalid_config_is_400_with_kafka_message(client: TestClient[Litestar]) -> None:
    response = client.post("/connectors", json={"config": SINK})
    expect.assert_error(
        response, 400, contains="Invalid value  for configuration name: String may not be empty"
    )
    assert response.json()["message"].startswith(
        "Connector configuration is invalid and contains the following 1"
    )


def test_create_name_is_trimmed_and_checked_against_config(client: TestClient[Litestar]) -> None:
    response = client.post("/connectors", json={"name": "  a ", "config": SINK})
    assert response.json()["name"] == "a"
    response = client.post("/connectors", json={"name": "b", "config": {**SINK, "name": "c"}})
    expect.assert_error(response, 400, expect.name_mismatch("c", "b"))


def test_create_null_value_is_400(client: TestClient[Litestar]) -> None:
    response = client.post("/connectors", json={"name": "a", "config": {**SINK, "file": None}})
    expect.assert_error(response, 400, expect.NULL_CONFIG_VALUE)


@pytest.mark.parametrize(("state", "status", "tasks"), [("paused", "PAUSED", 0), ("STOPPED", "STOPPED", 0)])
def test_create_with_initial_state(client: TestClient[Litestar], state: str, status: str, tasks: int) -> None:
    response = create(client, initial_state=state)
    expect.assert_connector_info(response.json(), "local-file-sink", tasks=tasks)
    expect.assert_status(
        client.get("/connectors/local-file-sink/status").json(), "local-file-sink", state=status
    )


@pytest.mark.parametrize(
    "body",
    [
        {"name": "a", "config": SINK, "initial_state": "SLEEPING"},
        {"name": "a", "config": SINK, "unknown": 1},
        {"name": "a"},
        {"name": "a", "config": {"k": [1]}},
        [],
    ],
)
def test_create_mistyped_body_is_400(client: TestClient[Litestar], body: Any) -> None:
    expect.assert_error(client.post("/connectors", json=body), 400)


def test_list_and_expand(client: TestClient[Litestar]) -> None:
    create(client, "b")
    create(client, "a")
    assert client.get("/connectors").json() == ["a", "b"]
    both = client.get("/connectors?expand=status&expand=info").json()
    assert set(both) == {"a", "b"}
    expect.assert_status(both["a"]["status"], "a", state="RUNNING", tasks=2)
    expect.assert_connector_info(both["a"]["info"], "a")
    only_status = client.get("/connectors", params={"expand": "status"}).json()
    assert set(only_status["a"]) == {"status"}
    assert client.get("/connectors?expand=status,info").json() == {"a": {}, "b": {}}


def test_get_connector_config_status_tasks(client: TestClient[Litestar]) -> None:
    create(client)
    expect.assert_connector_info(client.get("/connectors/local-file-sink").json(), "local-file-sink", tasks=2)
    assert client.get("/connectors/local-file-sink/config").json() == {**SINK, "name": "local-file-sink"}
    status = client.get("/connectors/local-file-sink/status").json()
    expect.assert_status(status, "local-file-sink", state="RUNNING", tasks=2)
    assert "trace" not in status["connector"] and status["connector"]["version"] == "0.1.0"
    tasks = client.get("/connectors/local-file-sink/tasks").json()
    assert len(tasks) == 2
    for task in tasks:
        expect.assert_task_info(task, "local-file-sink")
    expect.assert_task_state(client.get("/connectors/local-file-sink/tasks/1/status").json(), 1)


def test_failed_task_shows_trace(herder: FakeHerder, client: TestClient[Litestar]) -> None:
    create(client)
    herder.connectors_by_name["local-file-sink"].failed_tasks.add(0)
    task = client.get("/connectors/local-file-sink/tasks/0/status").json()
    assert task["state"] == "FAILED" and task["trace"]


@pytest.mark.parametrize(
    ("method", "path", "message"),
    [
        ("GET", "/connectors/nope", expect.connector_not_found("nope")),
        ("GET", "/connectors/nope/config", expect.connector_not_found("nope")),
        ("GET", "/connectors/nope/status", expect.no_status_for_connector("nope")),
        ("GET", "/connectors/nope/tasks", expect.connector_not_found("nope")),
        ("GET", "/connectors/nope/tasks/0/status", expect.no_status_for_task("nope", 0)),
        ("DELETE", "/connectors/nope", expect.connector_not_found("nope")),
        ("PUT", "/connectors/nope/pause", None),
        ("PUT", "/connectors/nope/resume", None),
        ("PUT", "/connectors/nope/stop", None),
        ("POST", "/connectors/nope/restart", None),
        ("POST", "/connectors/nope/restart?includeTasks=true", None),
        ("POST", "/connectors/nope/tasks/0/restart", None),
        ("GET", "/connectors/nope/offsets", expect.connector_not_found("nope")),
        ("DELETE", "/connectors/nope/offsets", expect.connector_not_found("nope")),
    ],
)
def test_unknown_connector_is_404(
    client: TestClient[Litestar], method: str, path: str, message: str | None
) -> None:
    expect.assert_error(client.request(method, path), 404, message)


def test_put_config_creates_then_updates(client: TestClient[Litestar]) -> None:
    created = client.put("/connectors/c/config", json=SINK)
    assert created.status_code == 201 and created.headers["location"].endswith("/connectors/c")
    expect.assert_connector_info(created.json(), "c", tasks=2)
    updated = client.put("/connectors/c/config", json={**SINK, "tasks.max": 3})
    assert updated.status_code == 200 and "location" not in updated.headers
    assert updated.json()["config"]["tasks.max"] == "3"
    expect.assert_error(
        client.put("/connectors/c/config", json={**SINK, "name": "d"}), 400, expect.name_mismatch("d", "c")
    )
    expect.assert_error(
        client.put("/connectors/c/config", json={**SINK, "file": None}), 400, expect.NULL_CONFIG_VALUE
    )


def test_patch_config_removes_nulls(client: TestClient[Litestar]) -> None:
    create(client)
    body = client.patch("/connectors/local-file-sink/config", json={"file": None, "tasks.max": 4}).json()
    assert "file" not in body["config"] and body["config"]["tasks.max"] == "4"
    expect.assert_error(
        client.patch("/connectors/nope/config", json={"a": "b"}), 404, expect.connector_not_found("nope")
    )


def test_delete(client: TestClient[Litestar]) -> None:
    create(client)
    expect.assert_empty(client.delete("/connectors/local-file-sink"), 204)
    expect.assert_error(client.get("/connectors/local-file-sink"), 404)


# --- lifecycle ----------------------------------------------------------------------------------------------


def test_pause_resume_stop(client: TestClient[Litestar]) -> None:
    create(client)
    for _ in range(2):  # idempotent
        expect.assert_empty(client.put("/connectors/local-file-sink/pause"), 202)
    expect.assert_status(
        client.get("/connectors/local-file-sink/status").json(), "local-file-sink", state="PAUSED"
    )
    expect.assert_empty(client.put("/connectors/local-file-sink/resume"), 202)
    expect.assert_empty(client.put("/connectors/local-file-sink/stop"), 204)
    status = client.get("/connectors/local-file-sink/status").json()
    expect.assert_status(status, "local-file-sink", state="STOPPED", tasks=0)
    assert client.get("/connectors/local-file-sink/tasks").json() == []


def test_restart_plain_is_204_and_with_params_202_snapshot(
    herder: FakeHerder, client: TestClient[Litestar]
) -> None:
    create(client)
    herder.connectors_by_name["local-file-sink"].failed_tasks.add(1)
    expect.assert_empty(client.post("/connectors/local-file-sink/restart"), 204)
    response = client.post("/connectors/local-file-sink/restart?includeTasks=true&onlyFailed=true")
    assert response.status_code == 202
    body = response.json()
    expect.assert_status(body, "local-file-sink", state="RUNNING")
    assert [t["state"] for t in body["tasks"]] == ["RUNNING", "RESTARTING"]
    body = client.post("/connectors/local-file-sink/restart", params={"includeTasks": "true"}).json()
    assert body["connector"]["state"] == "RESTARTING"
    assert {t["state"] for t in body["tasks"]} == {"RESTARTING"}
    expect.assert_empty(client.post("/connectors/local-file-sink/tasks/0/restart"), 204)


# --- offsets ------------------------------------------------------------------------------------------------


def test_offsets_flow(client: TestClient[Litestar]) -> None:
    create(client)
    assert client.get("/connectors/local-file-sink/offsets").json() == {"offsets": []}
    offsets = {
        "offsets": [{"partition": {"kafka_topic": "t", "kafka_partition": 0}, "offset": {"kafka_offset": 5}}]
    }
    path = "/connectors/local-file-sink/offsets"
    expect.assert_error(client.patch(path, json=offsets), 400, expect.not_stopped("local-file-sink"))
    expect.assert_error(client.delete(path), 400, expect.not_stopped("local-file-sink"))
    client.put("/connectors/local-file-sink/stop")
    altered = client.patch(path, json=offsets)
    assert altered.status_code == 200 and altered.json() == {"message": expect.OFFSETS_ALTERED}
    assert client.get(path).json() == offsets
    reset = client.delete(path)
    assert reset.status_code == 200 and reset.json() == {"message": expect.OFFSETS_RESET}


@pytest.mark.parametrize("body", [{}, {"offsets": []}, {"offsets": None}])
def test_empty_offsets_are_400_before_existence(client: TestClient[Litestar], body: Any) -> None:
    expect.assert_error(client.patch("/connectors/nope/offsets", json=body), 400, expect.EMPTY_OFFSETS)


@pytest.mark.parametrize("body", [[], {"key": []}, {"offsets": [{"partition": 1}]}])
def test_mistyped_offsets_are_400(client: TestClient[Litestar], body: Any) -> None:
    expect.assert_error(client.patch("/connectors/nope/offsets", json=body), 400)


# --- topics -------------------------------------------------------------------------------------------------


def test_topics(herder: FakeHerder, client: TestClient[Litestar]) -> None:
    create(client)
    herder.connectors_by_name["local-file-sink"].topics = ["t2", "t1"]
    assert client.get("/connectors/local-file-sink/topics").json() == {
        "local-file-sink": {"topics": ["t1", "t2"]}
    }
    assert client.get("/connectors/nope/topics").json() == {"nope": {"topics": []}}
    expect.assert_empty(client.put("/connectors/local-file-sink/topics/reset"), 202)
    assert client.get("/connectors/local-file-sink/topics").json() == {"local-file-sink": {"topics": []}}


def test_topic_tracking_switches(herder: FakeHerder) -> None:
    with _client(herder, {"topic.tracking.enable": "false"}) as client:
        expect.assert_error(client.get("/connectors/a/topics"), 403, expect.TOPIC_TRACKING_DISABLED)
        expect.assert_error(client.put("/connectors/a/topics/reset"), 403, expect.TOPIC_TRACKING_DISABLED)
    with _client(herder, {"topic.tracking.allow.reset": "false"}) as client:
        expect.assert_error(client.put("/connectors/a/topics/reset"), 403, expect.TOPIC_RESET_DISABLED)


# --- plugins ------------------------------------------------------------------------------------------------


def test_connector_plugins(client: TestClient[Litestar]) -> None:
    plugins = client.get("/connector-plugins").json()
    assert [p["type"] for p in plugins] == ["sink", "source"]
    for plugin in plugins:
        expect.assert_plugin_info(plugin)
    everything = client.get("/connector-plugins?connectorsOnly=false").json()
    assert {p["type"] for p in everything} == {"sink", "source", "converter", "transformation"}
    converter = next(p for p in everything if p["type"] == "converter")
    assert "version" not in converter  # "undefined" is omitted


def test_plugin_config(client: TestClient[Litestar]) -> None:
    keys = client.get("/connector-plugins/FileStreamSinkConnector/config").json()
    for key in keys:
        expect.assert_config_key_info(key)
    response = client.get("/connector-plugins/Nope/config")
    expect.assert_error(response, 404, expect.unknown_plugin("Nope"))


def test_validate(client: TestClient[Litestar]) -> None:
    path = "/connector-plugins/FileStreamSinkConnector/config/validate"
    body = client.put(path, json={"connector.class": SINK_CLASS, "tasks.max": 1}).json()
    expect.assert_config_infos(body, SINK_CLASS)
    assert body["error_count"] == 1
    expect.assert_error(client.put(path, json={"name": "x"}), 400, contains="contains no connector type")
    mismatch = client.put(path, json={"connector.class": "FileStreamSource"})
    expect.assert_error(
        mismatch, 400, expect.plugin_type_mismatch("FileStreamSource", "FileStreamSinkConnector")
    )
    unknown = client.put("/connector-plugins/Nope/config/validate", json={"connector.class": "Nope"})
    expect.assert_error(unknown, 500, contains="Failed to find any class that implements Connector")


# --- loggers ------------------------------------------------------------------------------------------------


def test_loggers(client: TestClient[Litestar], herder: FakeHerder) -> None:
    name = "kconnect.test_rest_app.lg"
    logging.getLogger(f"{name}.child")
    everything = client.get("/admin/loggers").json()
    expect.assert_logger_level(everything["root"])
    expect.assert_error(
        client.get("/admin/loggers/no.such.logger.xyz"), 404, expect.logger_not_found("no.such.logger.xyz")
    )
    changed = client.put(f"/admin/loggers/{name}", json={"level": "debug"})
    assert changed.status_code == 200 and changed.json() == [name, f"{name}.child"]
    level = client.get(f"/admin/loggers/{name}").json()
    expect.assert_logger_level(level, "DEBUG")
    assert isinstance(level["last_modified"], int)
    again = client.put(f"/admin/loggers/{name}", json={"level": "DEBUG"})
    assert again.status_code == 200
    assert client.get(f"/admin/loggers/{name}").json()["last_modified"] == level["last_modified"]
    assert client.get("/admin/loggers").json()[name]["level"] == "DEBUG"
    expect.assert_empty(client.put(f"/admin/loggers/{name}?scope=cluster", json={"level": "warning"}), 204)
    assert herder.cluster_logger_levels == [(name, "WARN")]  # log4j's name, as Java workers read it
    assert herder.loggers.level(name)[0] == "WARN"
    expect.assert_error(
        client.put(f"/admin/loggers/{name}?scope=cluster", json={"level": "LOUD"}),
        404,
        expect.invalid_log_level("LOUD"),
    )
    assert herder.cluster_logger_levels == [(name, "WARN")]
    expect.assert_error(
        client.put(f"/admin/loggers/{name}", json={"level": "LOUD"}), 404, expect.invalid_log_level("LOUD")
    )
    expect.assert_error(client.put(f"/admin/loggers/{name}", json={}), 400, expect.LEVEL_MISSING)
    logging.getLogger(name).setLevel(logging.NOTSET)
    logging.getLogger(f"{name}.child").setLevel(logging.NOTSET)


def test_level_names_round_trip() -> None:
    for name in ("OFF", "FATAL", "ERROR", "WARN", "INFO", "DEBUG", "TRACE", "ALL"):
        level = parse_level(name.lower())
        assert level is not None and level_name(level) == name
    assert parse_level("LOUD") is None
    assert Loggers().level("root")[0] == level_name(logging.getLogger().getEffectiveLevel())


# --- errors, encoding, plumbing -----------------------------------------------------------------------------


def test_every_error_is_json(client: TestClient[Litestar]) -> None:
    expect.assert_error(client.get("/no/such/path"), 404, "HTTP 404 Not Found")
    expect.assert_error(client.delete("/connector-plugins"), 405, "HTTP 405 Method Not Allowed")
    bad_json = client.post("/connectors", content=b"{nope", headers={"content-type": "application/json"})
    expect.assert_error(bad_json, 400)
    form = client.post(
        "/connectors", content=b"a=b", headers={"content-type": "application/x-www-form-urlencoded"}
    )
    expect.assert_error(form, 415, "HTTP 415 Unsupported Media Type")
    expect.assert_error(client.post("/connectors"), 400, "Request body is missing")
    expect.assert_error(client.get("/connectors/a/tasks/x/status"), 404)
    expect.assert_error(client.get("/openapi/elsewhere"), 404)


def test_oversized_body_is_413(herder: FakeHerder) -> None:
    with _client(herder, max_body_size=100) as client:
        response = client.put("/connectors/a/config", json={"k": "v" * 200})
        expect.assert_error(response, 413)


def test_conflict_says_retry(herder: FakeHerder, client: TestClient[Litestar]) -> None:
    herder.busy = True
    response = client.get("/connectors/a")
    expect.assert_error(response, 409, contains="retry")


def test_unexpected_exception_is_logged_500(
    herder: FakeHerder, client: TestClient[Litestar], caplog: pytest.LogCaptureFixture
) -> None:
    herder.crash = RuntimeError("disk on fire")
    with caplog.at_level(logging.ERROR, logger="kconnect_rest.errors"):
        expect.assert_error(client.get("/connectors/a"), 500, "disk on fire")
    assert "disk on fire" in caplog.text


@pytest.mark.parametrize("name", ["with space", "üñí€ødé", "a/b", "50%", "a%2Fb", "x?y#z"])
def test_names_url_encoded_on_every_path(client: TestClient[Litestar], name: str) -> None:
    from urllib.parse import quote

    encoded = quote(name, safe="")
    created = create(client, name)
    assert created.headers["location"].endswith(f"/connectors/{encoded}")
    expect.assert_connector_info(client.get(f"/connectors/{encoded}").json(), name)
    expect.assert_status(client.get(f"/connectors/{encoded}/status").json(), name)
    expect.assert_task_state(client.get(f"/connectors/{encoded}/tasks/0/status").json(), 0)
    expect.assert_empty(client.put(f"/connectors/{encoded}/pause"), 202)
    assert client.put(f"/connectors/{encoded}/config", json=SINK).status_code == 200
    assert client.get(f"/connectors/{encoded}/topics").json() == {name: {"topics": []}}
    expect.assert_empty(client.delete(f"/connectors/{encoded}"), 204)


def test_string_map_coercion() -> None:
    assert string_map({"a": 1, "b": True, "c": False, "d": "x"}) == {
        "a": "1",
        "b": "true",
        "c": "false",
        "d": "x",
    }


# --- HEAD, OPTIONS, empty answers, boolean query parameters (as Kafka's Jersey) ----------------------------

EMPTY_ANSWERS = [
    ("PUT", "/connectors/local-file-sink/pause", None, 202),
    ("PUT", "/connectors/local-file-sink/resume", None, 202),
    ("PUT", "/connectors/local-file-sink/topics/reset", None, 202),
    ("POST", "/connectors/local-file-sink/restart", None, 204),
    ("POST", "/connectors/local-file-sink/tasks/0/restart", None, 204),
    ("PUT", "/admin/loggers/kconnect.test?scope=cluster", {"level": "INFO"}, 204),
    ("PUT", "/connectors/local-file-sink/stop", None, 204),
    ("DELETE", "/connectors/local-file-sink", None, 204),
]


def test_every_empty_answer_has_no_content_type(client: TestClient[Litestar]) -> None:
    create(client)
    for method, path, body, status in EMPTY_ANSWERS:
        expect.assert_empty(client.request(method, path, json=body), status)


@pytest.mark.parametrize(("path", "allow"), sorted(expect.KAFKA_ALLOW.items()))
def test_options_lists_the_methods_a_path_allows_as_kafka(
    client: TestClient[Litestar], path: str, allow: str
) -> None:
    create(client)
    for name in ("local-file-sink", "nope"):  # Jersey answers by path, whether the connector exists or not
        concrete = path.replace("{c}", name).replace("{p}", "FileStreamSink").replace("{l}", "root")
        expect.assert_options(client.options(concrete), allow)


def test_options_on_an_unknown_path_is_404_and_a_wrong_method_405_with_allow(
    client: TestClient[Litestar],
) -> None:
    expect.assert_error(client.options("/no/such"), 404, "HTTP 404 Not Found")
    expect.assert_error(client.options("/connectors/a/tasks/x/status"), 404)
    wrong = client.delete("/connectors")
    expect.assert_error(wrong, 405, "HTTP 405 Method Not Allowed")
    assert wrong.headers["allow"] == expect.KAFKA_ALLOW["/connectors"]


def test_head_answers_as_get_without_a_body(client: TestClient[Litestar]) -> None:
    create(client)
    for path in ("/", "/connectors", "/connectors/local-file-sink", "/connectors/nope", "/connector-plugins"):
        expect.assert_head(client.head(path), client.get(path))
    expect.assert_error(client.get("/connectors/local-file-sink/pause"), 405)
    head = client.head("/connectors/local-file-sink/pause")  # no GET there: 405, as Jersey
    assert head.status_code == 405 and head.content == b""


class _KeyRequired(InitPluginProtocol):
    """An extension whose middleware answers 401 without an ``x-key`` header (as basic auth does)."""

    def on_app_init(self, app_config: AppConfig) -> AppConfig:
        def key_required(app: ASGIApp) -> ASGIApp:
            async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
                if scope["type"] == "http" and (b"x-key", b"1") not in scope["headers"]:
                    await ASGIResponse(body=b"", status_code=401)(scope, receive, send)
                    return
                await app(scope, receive, send)

            return guarded

        app_config.middleware.append(key_required)
        return app_config


def test_head_and_options_pass_through_an_extensions_middleware(herder: FakeHerder) -> None:
    with _client(herder, extensions=[lambda config, state: _KeyRequired()]) as client:
        assert client.options("/connectors").status_code == 401
        assert client.head("/connectors").status_code == 401
        expect.assert_options(client.options("/connectors", headers={"x-key": "1"}), "HEAD,POST,GET,OPTIONS")
        keyed = {"x-key": "1"}
        expect.assert_head(
            client.head("/connectors", headers=keyed), client.get("/connectors", headers=keyed)
        )


@pytest.mark.parametrize(
    ("method", "path", "body", "message"),
    [
        ("PUT", "/connectors/c/config", {**SINK, "file": None}, expect.NULL_CONFIG_VALUE),
        (
            "PUT",
            "/connector-plugins/FileStreamSink/config/validate",
            {**SINK, "x": None},
            expect.NULL_CONFIG_VALUE,
        ),
        ("POST", "/connectors", {"name": "c", "config": {**SINK, "x": None}}, expect.NULL_CONFIG_VALUE),
        ("POST", "/connectors", {"name": "c", "config": SINK, "initial_state": "bogus"}, None),
        ("PUT", "/admin/loggers/x", {"level": None}, expect.LEVEL_MISSING),
        ("PUT", "/admin/loggers/x", {"other": "INFO"}, expect.LEVEL_MISSING),
        ("PATCH", "/connectors/c/offsets", {}, expect.EMPTY_OFFSETS),
        (
            "POST",
            "/connectors",
            {"name": "c", "config": SINK, "bogus": 1},
            "Object contains unknown field `bogus`",
        ),
    ],
)
def test_what_the_document_forbids_is_a_400_with_kafkas_text(
    client: TestClient[Litestar], method: str, path: str, body: Any, message: str | None
) -> None:
    response = client.request(method, path, json=body)
    expect.assert_error(response, 400, message, contains="initial_state" if message is None else "")
    assert client.get("/connectors").json() == []


@pytest.mark.parametrize("value", expect.JAVA_TRUE)
def test_boolean_query_parameters_true_in_any_case(
    herder: FakeHerder, client: TestClient[Litestar], value: str
) -> None:
    create(client)
    restarted = client.post("/connectors/local-file-sink/restart", params={"includeTasks": value})
    assert restarted.status_code == 202
    assert {t["state"] for t in restarted.json()["tasks"]} == {"RESTARTING"}
    failed_only = client.post("/connectors/local-file-sink/restart", params={"onlyFailed": value})
    assert failed_only.status_code == 202 and failed_only.json()["connector"]["state"] == "RUNNING"
    plugins = client.get("/connector-plugins", params={"connectorsOnly": value})
    assert {p["type"] for p in plugins.json()} == {"sink", "source"}


@pytest.mark.parametrize("value", expect.JAVA_FALSE)
def test_boolean_query_parameters_anything_else_is_false_never_400(
    client: TestClient[Litestar], value: str
) -> None:
    create(client)
    params = {"includeTasks": value, "onlyFailed": value}
    expect.assert_empty(client.post("/connectors/local-file-sink/restart", params=params), 204)
    plugins = client.get("/connector-plugins", params={"connectorsOnly": value})
    assert plugins.status_code == 200 and "converter" in {p["type"] for p in plugins.json()}
    listed = client.get("/connectors", params={"expand": value, "forward": value})
    assert listed.status_code == 200 and listed.json() == {"local-file-sink": {}}
    expect.assert_empty(client.delete("/connectors/local-file-sink", params={"forward": value}), 204)


def test_an_empty_boolean_query_parameter_takes_the_default(client: TestClient[Litestar]) -> None:
    create(client)
    expect.assert_empty(client.post("/connectors/local-file-sink/restart?includeTasks=&onlyFailed="), 204)
    plugins = client.get("/connector-plugins?connectorsOnly=").json()  # default true, as Kafka 4.3.1
    assert {p["type"] for p in plugins} == {"sink", "source"}


# --- OpenAPI ------------------------------------------------------------------------------------------------


def test_openapi_document_declares_every_route_and_error_shape(client: TestClient[Litestar]) -> None:
    document = client.get("/openapi").json()
    assert client.get("/openapi/openapi.json").json() == document
    paths = document["paths"]
    for path in (
        "/", "/health", "/connectors", "/connectors/{connector}", "/connectors/{connector}/config",
        "/connectors/{connector}/status", "/connectors/{connector}/tasks",
        "/connectors/{connector}/tasks/{task}/status", "/connectors/{connector}/tasks/{task}/restart",
        "/connectors/{connector}/pause", "/connectors/{connector}/resume", "/connectors/{connector}/stop",
        "/connectors/{connector}/restart", "/connectors/{connector}/offsets",
        "/connectors/{connector}/topics",
        "/connectors/{connector}/topics/reset", "/connector-plugins", "/connector-plugins/{plugin}/config",
        "/connector-plugins/{plugin}/config/validate", "/admin/loggers", "/admin/loggers/{logger}",
    ):  # fmt: skip
        assert path in paths, path
    schemas = document["components"]["schemas"]
    for path, item in paths.items():
        for method, operation in item.items():
            if method not in {"get", "put", "post", "patch", "delete"}:
                continue
            for code, response in operation["responses"].items():
                if int(code) >= 400 and not (path == "/health"):
                    schema = response["content"]["application/json"]["schema"]
                    assert schema == {"$ref": "#/components/schemas/ErrorMessage"}, (path, method, code)
    assert set(schemas["ErrorMessage"]["properties"]) == {"error_code", "message"}
    assert "class" in schemas["PluginInfo"]["properties"]
    restart = paths["/connectors/{connector}/restart"]["post"]["responses"]
    assert {"202", "204", "404"} <= set(restart)
    assert {"201", "200"} <= set(paths["/connectors/{connector}/config"]["put"]["responses"])


# --- REST extensions ----------------------------------------------------------------------------------------


class _HelloExtension(InitPluginProtocol):
    def __init__(self, cluster_state: ClusterState) -> None:
        self.cluster_state = cluster_state

    def on_app_init(self, app_config: AppConfig) -> AppConfig:
        state = self.cluster_state

        @get("/hello", sync_to_thread=False)
        def hello() -> dict[str, Any]:
            return {"connectors": sorted(state.connectors), "cluster": state.kafka_cluster_id}

        app_config.route_handlers.append(hello)
        return app_config


def test_extension_sees_a_live_read_only_cluster_view(herder: FakeHerder) -> None:
    seen: list[Any] = []

    def factory(worker_config: WorkerConfig, cluster_state: ClusterState) -> InitPluginProtocol:
        seen.append(cluster_state)
        return _HelloExtension(cluster_state)

    with _client(herder, extensions=[factory]) as client:
        create(client, "x")
        assert client.get("/hello").json() == {"connectors": ["x"], "cluster": CLUSTER_ID}
    assert not hasattr(seen[0], "pause_connector")


def test_conflict_error_class_maps_to_409(herder: FakeHerder, client: TestClient[Litestar]) -> None:
    async def busy(name: str) -> None:
        raise ConflictError("")

    herder.pause_connector = busy  # type: ignore[method-assign]
    expect.assert_error(client.put("/connectors/a/pause"), 409, contains="retry")
