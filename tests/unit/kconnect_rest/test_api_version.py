"""Which versions a client reads: Kafka Connect's in `GET /`'s ``version``, kconnect's elsewhere."""

from __future__ import annotations

import pytest
from kconnect import __version__
from kconnect.worker_config import WorkerConfig
from kconnect_rest import create_app
from kconnect_rest.api_version import KAFKA_CONNECT_VERSION, SERVER_HEADER
from kconnect_rest.cli import main
from kconnect_testkit.jars import KAFKA_VERSION
from litestar.testing import TestClient

from tests.fake_herder import FakeHerder


def test_the_served_api_version_is_the_kafka_release_the_tests_run_against() -> None:
    assert KAFKA_CONNECT_VERSION == KAFKA_VERSION


def test_root_reports_kafka_connects_version_and_kconnects_own() -> None:
    with TestClient(create_app(FakeHerder(), WorkerConfig.from_props({}))) as client:
        body = client.get("/").json()
    assert body["version"] == KAFKA_CONNECT_VERSION
    assert "kconnect_version" not in body
    with TestClient(create_app(FakeHerder(), WorkerConfig.from_props({}))) as client:
        assert client.get("/executor").json()["kconnect_version"] == __version__
    # kcctl compares the major.minor of `version` with 3.5 before it reads offsets or stops a connector
    major, minor = (int(part) for part in body["version"].split(".")[:2])
    assert (major, minor) >= (3, 5)


def test_the_server_header_names_kconnect_and_its_version() -> None:
    assert SERVER_HEADER == f"kconnect/{__version__}"


def test_kconnect_version_names_both(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == (
        f"kconnect {__version__} (serves the REST API of Kafka Connect {KAFKA_CONNECT_VERSION})"
    )
