"""Issue 3 end to end: loggers, the OpenAPI document, error shapes, basic auth and topic-tracking gates."""

from __future__ import annotations

import base64
import re
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from tests import rest_expectations as rx
from tests.harness import REPO_ROOT
from tests.integration.harness import Connectors, path_of
from tests.worker_process import WorkerProcess

pytestmark = pytest.mark.integration


# --- loggers -------------------------------------------------------------------------------------------


def test_loggers_list_get_and_set(rest_worker: WorkerProcess) -> None:
    listed = rest_worker.get("/admin/loggers")
    assert listed.status_code == 200
    for level in listed.json().values():
        rx.assert_logger_level(level)
    assert "root" in listed.json()

    before = rest_worker.get("/admin/loggers/kconnect.herder.standalone")
    assert before.status_code == 200
    rx.assert_logger_level(before.json())

    changed = rest_worker.request("PUT", "/admin/loggers/kconnect_rest", {"level": "debug"})
    assert changed.status_code == 200, changed.text
    assert "kconnect_rest" in changed.json() and changed.json() == sorted(changed.json())
    after = rest_worker.get("/admin/loggers/kconnect_rest").json()
    rx.assert_logger_level(after, "DEBUG")
    assert isinstance(after["last_modified"], int)
    assert rest_worker.get("/admin/loggers").json()["kconnect_rest"]["level"] == "DEBUG"

    cluster = rest_worker.request("PUT", "/admin/loggers/kconnect_rest?scope=cluster", {"level": "INFO"})
    rx.assert_empty(cluster, 204)
    rx.assert_logger_level(rest_worker.get("/admin/loggers/kconnect_rest").json(), "INFO")

    invalid = rest_worker.request("PUT", "/admin/loggers/kconnect_rest", {"level": "LOUD"})
    rx.assert_error(invalid, 404, rx.invalid_log_level("LOUD"))
    missing = rest_worker.request("PUT", "/admin/loggers/kconnect_rest", {})
    rx.assert_error(missing, 400, rx.LEVEL_MISSING)
    rx.assert_error(
        rest_worker.get("/admin/loggers/no.such.logger"), 404, rx.logger_not_found("no.such.logger")
    )


# --- OpenAPI -------------------------------------------------------------------------------------------

_PATHS = {
    "/",
    "/health",
    "/executor",  # kconnect's own: where the tasks run (docs/rest.md)
    "/connectors",
    "/connectors/{connector}",
    "/connectors/{connector}/config",
    "/connectors/{connector}/status",
    "/connectors/{connector}/tasks",
    "/connectors/{connector}/tasks/{task}/status",
    "/connectors/{connector}/tasks/{task}/restart",
    "/connectors/{connector}/pause",
    "/connectors/{connector}/resume",
    "/connectors/{connector}/stop",
    "/connectors/{connector}/restart",
    "/connectors/{connector}/restarts",  # kconnect's own: the automatic restarts' schedule (docs/rest.md)
    "/connectors/{connector}/offsets",
    "/connectors/{connector}/topics",
    "/connectors/{connector}/topics/reset",
    "/connector-plugins",
    "/connector-plugins/{plugin}/config",
    "/connector-plugins/{plugin}/config/validate",
    "/admin/loggers",
    "/admin/loggers/{logger}",
}


def test_the_openapi_document_lists_every_path_and_each_answers(rest_worker: WorkerProcess) -> None:
    rest_worker.wait_for("a healthy worker", lambda: rest_worker.get("/health").status_code == 200)
    response = rest_worker.get("/openapi")
    assert response.status_code == 200
    document = response.json()
    assert document["openapi"].startswith("3.")
    assert set(document["paths"]) == _PATHS
    assert rest_worker.get("/openapi/openapi.json").json() == document
    rx.assert_error(rest_worker.get("/openapi/swagger"), 404)

    # Every declared operation is routed (never 404 for an unknown route, never 405) and answers JSON.
    values = {"{connector}": "openapi-probe-missing", "{task}": "0", "{plugin}": "Nope", "{logger}": "nope"}
    for path, operations in document["paths"].items():
        concrete = path
        for placeholder, value in values.items():
            concrete = concrete.replace(placeholder, value)
        for method in operations:
            if method.upper() not in {"GET", "PUT", "POST", "PATCH", "DELETE"}:
                continue
            if method.upper() == "GET" or concrete.endswith(("/pause", "/resume", "/stop", "/restart")):
                answer = rest_worker.request(method.upper(), concrete)
            else:
                answer = rest_worker.request(method.upper(), concrete, {})
            assert answer.status_code != 405, (method, path)
            assert answer.status_code < 500, (method, path, answer.text)
            if answer.status_code >= 400:
                rx.assert_error(answer, answer.status_code)
            declared = {int(code) for code in operations[method]["responses"]}
            assert answer.status_code in declared, (method, path, answer.status_code, declared)


# --- HEAD, OPTIONS, empty answers and boolean query parameters, as Kafka's Jersey ---------------------------


def test_options_head_empty_answers_and_booleans_as_kafka(connectors: Connectors, tmp_path: Path) -> None:
    worker, name = connectors.worker, connectors.name()
    connectors.sink(name, tmp_path / "o")
    for path, allow in rx.KAFKA_ALLOW.items():
        for connector in (name, "nope"):
            concrete = path.replace("{c}", quote(connector)).replace("{p}", "FileStreamSink")
            rx.assert_options(worker.request("OPTIONS", concrete.replace("{l}", "root")), allow)
    for path in ("/", "/connectors", path_of(name), path_of(name) + "/config", "/connectors/nope"):
        rx.assert_head(worker.request("HEAD", path), worker.get(path))

    worker.wait_for_state(name, "RUNNING", tasks=1)
    for spelling in rx.JAVA_FALSE:
        params = {"includeTasks": spelling, "onlyFailed": spelling}
        rx.assert_empty(worker.request("POST", f"{path_of(name)}/restart", params=params), 204)
        plugins = worker.get("/connector-plugins", params={"connectorsOnly": spelling})
        assert plugins.status_code == 200 and "converter" in {p["type"] for p in plugins.json()}
    for spelling in rx.JAVA_TRUE:
        restarted = worker.request("POST", f"{path_of(name)}/restart", params={"includeTasks": spelling})
        assert restarted.status_code == 202 and restarted.json()["connector"]["state"] == "RESTARTING"
        plugins = worker.get("/connector-plugins", params={"connectorsOnly": spelling})
        assert {p["type"] for p in plugins.json()} == {"sink", "source"}
    assert {p["type"] for p in worker.get("/connector-plugins?connectorsOnly=").json()} == {"sink", "source"}

    # Every answer without a body has no Content-Type (Kafka's Jersey sends none).
    path = path_of(name)
    worker.wait_for_state(name, "RUNNING", tasks=1)
    rx.assert_empty(worker.request("PUT", f"{path}/pause"), 202)
    rx.assert_empty(worker.request("PUT", f"{path}/resume"), 202)
    rx.assert_empty(worker.request("PUT", f"{path}/topics/reset"), 202)
    rx.assert_empty(worker.request("POST", f"{path}/restart"), 204)
    worker.wait_for_state(name, "RUNNING", tasks=1)
    rx.assert_empty(worker.request("POST", f"{path}/tasks/0/restart"), 204)
    rx.assert_empty(
        worker.request("PUT", "/admin/loggers/kconnect.probe?scope=cluster", {"level": "INFO"}), 204
    )
    rx.assert_empty(worker.request("PUT", f"{path}/stop"), 204)
    rx.assert_empty(worker.request("DELETE", path, params={"forward": "garbage"}), 204)


def test_schemathesis_finds_the_live_document_true_to_the_worker(start_worker: Any) -> None:
    """Every schemathesis check (``-c all``) against a real worker's own document, with schemathesis.toml."""
    worker = start_worker()
    worker.wait_for("a healthy worker", lambda: worker.get("/health").status_code == 200)
    schemathesis = [sys.executable, "-m", "schemathesis.cli", "run", f"{worker.url}/openapi", "-c", "all"]
    run = subprocess.run(
        [*schemathesis, "--max-examples", "5", "--workers", "1", "--no-color"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    assert re.search(r"(\d+) generated, \1 passed", run.stdout), run.stdout[-2000:]  # it ran, and all passed


# --- error shapes --------------------------------------------------------------------------------------


def test_every_error_is_json_error_code_and_message(rest_worker: WorkerProcess) -> None:
    url = rest_worker.url
    rx.assert_error(rest_worker.get("/no/such/route"), 404, "HTTP 404 Not Found")
    rx.assert_error(rest_worker.request("DELETE", "/connectors"), 405, "HTTP 405 Method Not Allowed")
    rx.assert_error(rest_worker.request("POST", "/connector-plugins"), 405, "HTTP 405 Method Not Allowed")
    json_headers = {"Content-Type": "application/json"}
    malformed = httpx.post(f"{url}/connectors", content=b'{"name": ', headers=json_headers)
    rx.assert_error(malformed, 400)
    mistyped = httpx.post(f"{url}/connectors", content=b'{"name": 1, "config": []}', headers=json_headers)
    rx.assert_error(mistyped, 400)
    unknown_field = httpx.post(
        f"{url}/connectors", content=b'{"name": "x", "config": {}, "bogus": 1}', headers=json_headers
    )
    rx.assert_error(unknown_field, 400)
    wrong_type = httpx.post(f"{url}/connectors", content=b"name=x", headers={"Content-Type": "text/plain"})
    rx.assert_error(wrong_type, 415, "HTTP 415 Unsupported Media Type")
    big = httpx.put(
        f"{url}/connectors/x/config",
        content=b'{"k": "' + b"a" * (11 * 1024 * 1024) + b'"}',
        headers=json_headers,
        timeout=60,
    )
    rx.assert_error(big, 413)
    assert rest_worker.get("/connectors/x").status_code == 404, "an oversized body changed nothing"


# --- a worker with basic auth and no topic-tracking reset ------------------------------------------------


def _add_user(credentials: Path, user: str, password: str) -> None:
    """Add a user to the credentials file with the plugin's own CLI, as an operator would."""
    command = [sys.executable, "-m", "kconnect_basic_auth", "add-user", str(credentials), user]
    command.append("--password-stdin")
    subprocess.run(command, input=f"{password}\n", text=True, check=True, capture_output=True)


@pytest.fixture(scope="module")
def auth_worker(tmp_path_factory: pytest.TempPathFactory, kafka_bootstrap: str) -> Any:
    workdir = tmp_path_factory.mktemp("auth-worker")
    credentials = workdir / "credentials"
    _add_user(credentials, "alice", "s3cret")
    worker = WorkerProcess(
        workdir,
        {
            "bootstrap.servers": kafka_bootstrap,
            "offset.storage.file.filename": str(workdir / "connect.offsets"),
            "rest.extension.classes": (
                "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension"
            ),
            "rest.basic.auth.credentials.file": str(credentials),
            "topic.tracking.allow.reset": "false",
        },
    ).start()
    yield worker
    worker.stop()


def _basic(user: str, password: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


def test_basic_auth_requires_credentials_except_on_health(auth_worker: WorkerProcess) -> None:
    # /health is exempt; the worker is still starting Spark, so this is also KIP-1017's 503.
    first = auth_worker.get("/health")
    assert first.status_code in (200, 503)
    if first.status_code == 503:
        assert first.json() == {"status": "starting", "message": first.json()["message"]}
    for path in (
        "/",
        "/connectors",
        "/connectors/x/status",
        "/connector-plugins",
        "/admin/loggers",
        "/openapi",
    ):
        denied = auth_worker.get(path)
        rx.assert_error(denied, 401, "User cannot access the resource.")
        assert denied.headers["www-authenticate"] == 'Basic realm="kconnect"'
    # No route, nothing to protect: 404 before authentication, as Kafka's (post-matching) filter does.
    rx.assert_error(auth_worker.get("/nope"), 404)
    wrong = auth_worker.get("/connectors", headers=_basic("alice", "wrong"))
    rx.assert_error(wrong, 401)
    unknown = auth_worker.get("/connectors", headers=_basic("bob", "s3cret"))
    rx.assert_error(unknown, 401)
    post = auth_worker.request(
        "POST", "/connectors", {"name": "x", "config": {"connector.class": "FileStreamSink"}}
    )
    rx.assert_error(post, 401)

    ok = auth_worker.get("/connectors", headers=_basic("alice", "s3cret"))
    assert ok.status_code == 200 and ok.json() == []
    assert auth_worker.get("/", headers=_basic("alice", "s3cret")).status_code == 200
    auth_worker.wait_for("a healthy worker", lambda: auth_worker.get("/health").status_code == 200)
    assert auth_worker.get("/health").json()["status"] == "healthy"


def test_topic_tracking_reset_can_be_disabled(auth_worker: WorkerProcess) -> None:
    alice = _basic("alice", "s3cret")
    topics = auth_worker.get("/connectors/any/topics", headers=alice)
    assert topics.status_code == 200 and topics.json() == {"any": {"topics": []}}
    reset = httpx.put(f"{auth_worker.url}/connectors/any/topics/reset", headers=alice)
    rx.assert_error(reset, 403, rx.TOPIC_RESET_DISABLED)


def test_credentials_added_while_running_work_without_restart(
    auth_worker: WorkerProcess, tmp_path: Path
) -> None:
    credentials = Path(
        auth_worker.worker_file.read_text().split("rest.basic.auth.credentials.file=")[1].split()[0]
    )
    _add_user(credentials, "bob", "hunter2")
    assert auth_worker.get("/connectors", headers=_basic("bob", "hunter2")).status_code == 200
