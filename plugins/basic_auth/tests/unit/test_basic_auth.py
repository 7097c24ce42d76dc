"""The basic-auth REST extension: credentials file, CLI, 401s, exempt paths, hook registration."""

from __future__ import annotations

import base64
import io
import re
from pathlib import Path
from typing import Any

import pytest
from kconnect.errors import ConnectError
from kconnect.plugin_host import PluginHost, PluginType
from kconnect.worker_config import WorkerConfig
from kconnect_basic_auth import plugin
from kconnect_basic_auth.__main__ import main
from kconnect_basic_auth.credentials import Credentials, add_user, hash_password, verify_password
from kconnect_rest import create_app
from litestar.testing import TestClient

from tests import rest_expectations as expect
from tests.fake_herder import FakeHerder


def _basic(user: str, password: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


@pytest.fixture
def credentials_file(tmp_path: Path) -> Path:
    path = tmp_path / "credentials"
    add_user(path, "alice", "s3cret")
    return path


def _client(credentials_file: Path, **props: str) -> TestClient[Any]:
    config = WorkerConfig.from_props({plugin.CREDENTIALS_FILE_CONFIG: str(credentials_file), **props})
    return TestClient(create_app(FakeHerder(), config, extensions=[plugin.basic_auth_extension]))


def test_hashes_are_salted_and_verified() -> None:
    # "-" and "!" are outside the base64 alphabet, so the salt and hash can never spell the password.
    password = "pw-secret!"
    first, second = hash_password(password), hash_password(password)
    assert first != second and password not in first
    assert verify_password(first, password) and not verify_password(first, password.upper())
    assert not verify_password("garbage", password)


def test_file_round_trip_and_replace(credentials_file: Path) -> None:
    add_user(credentials_file, "bob", "one")
    add_user(credentials_file, "bob", "two")
    credentials = Credentials.load(credentials_file)
    assert set(credentials.users) == {"alice", "bob"}
    assert credentials.check("bob", "two") and not credentials.check("bob", "one")
    assert not credentials.check("nobody", "two")
    assert credentials_file.stat().st_mode & 0o077 == 0


def test_cli_add_user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "creds"
    monkeypatch.setattr("sys.stdin", io.StringIO("hunter2\n"))
    assert main(["add-user", str(path), "carol", "--password-stdin"]) == 0
    assert Credentials.load(path).check("carol", "hunter2")


def test_requests_without_valid_credentials_are_401(credentials_file: Path) -> None:
    with _client(credentials_file) as client:
        for headers in (
            {},
            _basic("alice", "wrong"),
            _basic("mallory", "s3cret"),
            {"Authorization": "Basic !!"},
        ):
            response = client.get("/connectors", headers=headers)
            expect.assert_error(response, 401, plugin.UNAUTHORIZED_MESSAGE)
            assert response.headers["www-authenticate"] == 'Basic realm="kconnect"'
        assert client.get("/connectors", headers=_basic("alice", "s3cret")).json() == []
        assert client.get("/health").status_code == 200
        expect.assert_error(client.get("/openapi"), 401)


def test_exempt_paths_are_configurable(credentials_file: Path) -> None:
    with _client(credentials_file, **{plugin.EXEMPT_PATHS_CONFIG: "/, /connector-plugins"}) as client:
        assert client.get("/").status_code == 200
        assert client.get("/connector-plugins").status_code == 200
        expect.assert_error(client.get("/health"), 401)


def test_new_users_are_picked_up_without_restart(credentials_file: Path) -> None:
    with _client(credentials_file) as client:
        expect.assert_error(client.get("/connectors", headers=_basic("dave", "pw")), 401)
        add_user(credentials_file, "dave", "pw")
        assert client.get("/connectors", headers=_basic("dave", "pw")).status_code == 200


def test_missing_credentials_file_setting_names_the_key() -> None:
    with pytest.raises(ConnectError, match=re.escape(plugin.CREDENTIALS_FILE_CONFIG)):
        create_app(FakeHerder(), WorkerConfig.from_props({}), extensions=[plugin.basic_auth_extension])


def test_enabled_by_kafkas_rest_extension_classes(credentials_file: Path) -> None:
    host = PluginHost.load(disabled=())
    assert plugin.basic_auth_extension in [p.cls for p in host.plugins(PluginType.REST_EXTENSION)]
    props = {plugin.CREDENTIALS_FILE_CONFIG: str(credentials_file)}
    with TestClient(create_app(FakeHerder(), WorkerConfig.from_props(props), host)) as client:
        assert client.get("/connectors").status_code == 200  # installed but not enabled
    enabled = {**props, "rest.extension.classes": plugin.KAFKA_CLASS_NAME}
    with TestClient(create_app(FakeHerder(), WorkerConfig.from_props(enabled), host)) as client:
        expect.assert_error(client.get("/connectors"), 401)
    with pytest.raises(ConnectError, match=r"rest\.extension\.classes"):
        create_app(FakeHerder(), WorkerConfig.from_props({"rest.extension.classes": "Nope"}), host)


def test_internal_requests_pass_without_credentials_and_are_checked_by_their_signature(
    credentials_file: Path,
) -> None:
    """Kafka's JaasBasicAuthFilter: POST /connectors/{c}/tasks is authenticated by the cluster's
    request signature, not by a user; every other request still needs credentials."""
    from kconnect_rest.signing import signature_headers

    from tests.unit.kconnect_rest.leader_fakes import SESSION_KEY, TASKS_BODY, InternalFakeHerder

    herder = InternalFakeHerder(SESSION_KEY)
    config = WorkerConfig.from_props({plugin.CREDENTIALS_FILE_CONFIG: str(credentials_file)})
    app = create_app(herder, config, extensions=[plugin.basic_auth_extension])
    signed = {"Content-Type": "application/json", **signature_headers(SESSION_KEY, TASKS_BODY, "HmacSHA256")}
    with TestClient(app) as client:
        response = client.post("/connectors/a%2Fb/tasks?forward=true", content=TASKS_BODY, headers=signed)
        assert response.status_code == 204, response.text
        assert [name for name, _ in herder.written] == ["a/b"]
        unsigned = client.post("/connectors/c/tasks", content=TASKS_BODY)
        expect.assert_error(unsigned, 400, "Internal request missing required signature")
        expect.assert_error(client.get("/connectors/c/tasks"), 401, plugin.UNAUTHORIZED_MESSAGE)
        expect.assert_error(client.post("/connectors/c/tasks/0/restart"), 401, plugin.UNAUTHORIZED_MESSAGE)
