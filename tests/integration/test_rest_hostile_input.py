"""Issue 16 end to end: bodies a careless or hostile client sends get a 4xx in Kafka's error shape, the
worker keeps answering and nothing is stored (real worker, real Kafka, real Spark)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from tests import rest_expectations as rx
from tests.integration.harness import Connectors, path_of
from tests.worker_process import WorkerProcess

pytestmark = pytest.mark.integration

DEEP = "[" * 100_000 + "]" * 100_000
TOO_DEEP = "Request body is not valid JSON: it is nested too deeply"


def _send(worker: WorkerProcess, method: str, path: str, content: str | bytes) -> httpx.Response:
    return httpx.request(
        method,
        worker.url + path,
        content=content,
        headers={"Content-Type": "application/json"},
        timeout=30,
    )


def _still_healthy_and_nothing_stored(worker: WorkerProcess, *names: str) -> None:
    root = worker.get("/")
    assert root.status_code == 200, root.text
    listed = worker.get("/connectors")
    assert listed.status_code == 200, listed.text
    for name in names:
        assert name not in listed.json()
        rx.assert_error(worker.get(path_of(name)), 404, rx.connector_not_found(name))


def test_json_nested_100000_levels_deep_is_400(connectors: Connectors) -> None:
    worker, name = connectors.worker, connectors.name()
    for method, path, body in [
        ("POST", "/connectors", DEEP),
        ("POST", "/connectors", f'{{"name": "{name}", "config": {DEEP}}}'),
        ("PUT", f"{path_of(name)}/config", DEEP),
        ("PUT", "/connector-plugins/FileStreamSink/config/validate", DEEP),
    ]:
        rx.assert_error(_send(worker, method, path, body), 400, TOO_DEEP)
    _still_healthy_and_nothing_stored(worker, name)


def test_a_body_that_is_not_utf8_is_400(connectors: Connectors, tmp_path: Path) -> None:
    worker, name = connectors.worker, connectors.name()
    create = f'{{"name": "{name}", "config": {{"connector.class": "FileStreamSink", "topics": "t\xff"}}}}'
    put = '{"connector.class": "FileStreamSink", "topics": "t", "file": "\xc3"}'
    for method, path, body, bad in [
        ("POST", "/connectors", create.encode("latin-1"), b"\xff"),
        ("PUT", f"{path_of(name)}/config", put.encode("latin-1"), b"\xc3"),
        ("PUT", "/connector-plugins/FileStreamSink/config/validate", put.encode("latin-1"), b"\xc3"),
    ]:
        where = f"byte 0x{bad[0]:02x} at offset {body.index(bad)}"
        rx.assert_error(
            _send(worker, method, path, body), 400, contains=f"Request body is not valid UTF-8: {where}"
        )
    _still_healthy_and_nothing_stored(worker, name)


def test_a_connector_name_of_1_mb_is_400_at_once(connectors: Connectors, tmp_path: Path) -> None:
    worker = connectors.worker
    huge = "n" * (1 << 20)
    config = {"connector.class": "FileStreamSink", "topics": connectors.topic, "file": str(tmp_path / "o")}
    response = worker.request("POST", "/connectors", {"name": huge, "config": config})
    rx.assert_error(
        response, 400, f"Connector name is too long: {len(huge)} characters, at most 249 are accepted"
    )
    over = "n" * 250
    response = worker.request("PUT", f"{path_of(over)}/config", config)
    rx.assert_error(response, 400, "Connector name is too long: 250 characters, at most 249 are accepted")
    _still_healthy_and_nothing_stored(worker, huge[:300], over)
    assert all(len(listed) <= 249 for listed in worker.get("/connectors").json())


def test_a_connector_name_at_the_limit_is_created_and_reachable(
    connectors: Connectors, tmp_path: Path
) -> None:
    worker, name = connectors.worker, connectors.name("€" * 240)  # 249 characters, 3 bytes each
    assert len(name) == 249
    config = {"connector.class": "FileStreamSink", "topics": connectors.topic, "file": str(tmp_path / "o")}
    response = worker.request("POST", "/connectors", {"name": name, "config": config})
    assert response.status_code == 201, response.text
    assert httpx.get(response.headers["location"], timeout=30).json()["name"] == name
    worker.wait_for_state(name, "RUNNING", tasks=1)


def _stopped_source(connectors: Connectors, tmp_path: Path) -> tuple[str, dict[str, Any]]:
    name = connectors.name()
    source_file = tmp_path / "in.txt"
    source_file.write_text("a\nb\n", encoding="utf-8")
    connectors.source(name, source_file, initial_state="STOPPED")
    return name, {"partition": {"filename": str(source_file)}, "offset": {"position": 2}}


def test_offsets_with_a_deeply_nested_partition_are_400(connectors: Connectors, tmp_path: Path) -> None:
    worker = connectors.worker
    name, _good = _stopped_source(connectors, tmp_path)
    offsets_path = f"{path_of(name)}/offsets"
    body = '{"offsets": [{"partition": ' + DEEP + ', "offset": {"position": 1}}]}'
    rx.assert_error(_send(worker, "PATCH", offsets_path, body), 400, TOO_DEEP)
    nested: Any = "/x"
    for _ in range(500):  # parses, and is refused by Kafka's offset format rule
        nested = {"k": nested}
    response = worker.request(
        "PATCH", offsets_path, {"offsets": [{"partition": {"filename": nested}, "offset": {"position": 1}}]}
    )
    rx.assert_error(
        response, 400, "Offsets may only contain primitive types as values, but field filename contains MAP"
    )
    assert worker.get(offsets_path).json() == {"offsets": []}


def test_an_offset_of_the_wrong_type_is_400_and_the_source_still_runs(
    connectors: Connectors, tmp_path: Path
) -> None:
    worker = connectors.worker
    name, good = _stopped_source(connectors, tmp_path)
    offsets_path = f"{path_of(name)}/offsets"
    bad = {"offsets": [{"partition": {"filename": "/x"}, "offset": {"position": "NaN"}}]}
    rx.assert_error(
        worker.request("PATCH", offsets_path, bad),
        400,
        "The value for the 'position' key in the offset is expected to be a Long value",
    )
    assert worker.get(offsets_path).json() == {"offsets": []}
    altered = worker.request("PATCH", offsets_path, {"offsets": [good]})
    assert altered.status_code == 200, altered.text
    assert worker.get(offsets_path).json() == {"offsets": [good]}
    rx.assert_empty(worker.request("PUT", f"{path_of(name)}/resume"), 202)
    worker.wait_for_state(name, "RUNNING", tasks=1)
