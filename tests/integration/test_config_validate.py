"""``kconnect validate`` answers as a real worker's ``PUT /connector-plugins/{plugin}/config/validate``.

Each config is written to a file, validated by the command (run as a user runs it, in a process of
its own, with the worker's own file as ``--worker``), and sent to the worker's endpoint: ``-o json``
prints the endpoint's body, and the text output names the same errors on the same keys. The
standalone configs run on the shared standalone worker (`rest_worker`); a distributed worker with
exactly-once support enabled shows the distributed checks (a standalone worker's defaults skip them,
as a standalone worker does).
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.worker_process import WorkerProcess

pytestmark = pytest.mark.integration

SOURCE = "FileStreamSource"
CONFIGS: dict[str, dict[str, str]] = {
    "valid-source.properties": {
        "name": "valid-source",
        "connector.class": SOURCE,
        "tasks.max": "1",
        "file": "/tmp/kconnect-validate-in.txt",
        "topic": "validate-test",
    },
    "missing-required.properties": {"name": "missing-required", "connector.class": "FileStreamSink"},
    "bad-type.properties": {
        "name": "bad-type",
        "connector.class": SOURCE,
        "tasks.max": "two",
        "topic": "validate-test",
        "errors.tolerance": "some",
    },
    "unknown-class.properties": {"name": "unknown-class", "connector.class": "com.example.NoSuchConnector"},
    "bad-transform-alias.json": {
        "name": "bad-transform-alias",
        "connector.class": SOURCE,
        "topic": "validate-test",
        "transforms": "route,missing",
        "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
        "transforms.route.predicate": "nope",
        "transforms.missing.type": "com.example.NoSuchTransform",
    },
    "bad-converter.properties": {
        "name": "bad-converter",
        "connector.class": SOURCE,
        "topic": "validate-test",
        "value.converter": "com.example.NoSuchConverter",
    },
}


def _write(directory: Path, file_name: str, config: dict[str, str]) -> Path:
    path = directory / file_name
    if file_name.endswith(".json"):
        rest = {key: value for key, value in config.items() if key != "name"}
        path.write_text(json.dumps({"name": config["name"], "config": rest}), encoding="utf-8")
    else:
        path.write_text("".join(f"{key}={value}\n" for key, value in config.items()), encoding="utf-8")
    return path


def _kconnect(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kconnect_rest.cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def _endpoint(worker: WorkerProcess, config: dict[str, str]) -> tuple[int, Any]:
    plugin = config["connector.class"]
    response = worker.request("PUT", f"/connector-plugins/{plugin}/config/validate", config)
    return response.status_code, response.json()


def _errors_on_keys(body: dict[str, Any]) -> list[tuple[str, str]]:
    if "configs" not in body:
        return [("connector.class", body["message"])]
    return [
        (c["value"]["name"], error) for c in body["configs"] if c["value"] for error in c["value"]["errors"]
    ]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    directory = tmp_path_factory.mktemp("validate")
    return {name: _write(directory, name, config) for name, config in CONFIGS.items()}


@pytest.fixture(scope="module")
def json_answers(rest_worker: WorkerProcess, files: dict[str, Path]) -> list[Any]:
    """`kconnect validate -o json` of every file at once, with the shared worker's file."""
    result = _kconnect("validate", "-o", "json", "--worker", rest_worker.worker_file, *files.values())
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == len(files), result.stdout
    return [json.loads(line) for line in lines]


@pytest.mark.parametrize("file_name", list(CONFIGS))
def test_json_output_is_the_endpoints_body(
    rest_worker: WorkerProcess, json_answers: list[Any], file_name: str
) -> None:
    status, body = _endpoint(rest_worker, CONFIGS[file_name])
    answer = json_answers[list(CONFIGS).index(file_name)]
    assert answer == body
    if "configs" not in body:
        assert answer["error_code"] == status
    else:
        assert status == 200


def test_text_output_names_each_error_on_its_key_and_exits_1(
    rest_worker: WorkerProcess, files: dict[str, Path]
) -> None:
    result = _kconnect("validate", "--worker", rest_worker.worker_file, *files.values())
    expected: list[str] = []
    for file_name, path in files.items():
        _, body = _endpoint(rest_worker, CONFIGS[file_name])
        expected += [f"{path}: {key}: {message}" for key, message in _errors_on_keys(body)]
    assert result.returncode == 1, result.stderr
    *error_lines, summary = result.stdout.splitlines()
    assert error_lines == expected
    assert len(expected) >= 6  # every invalid file has at least one error
    assert summary == f"6 files: 1 valid, 5 invalid ({len(expected)} errors)"


def test_a_valid_file_exits_0_and_an_unreadable_one_2(files: dict[str, Path], tmp_path: Path) -> None:
    valid = _kconnect("validate", files["valid-source.properties"])
    assert (valid.returncode, valid.stdout) == (0, "1 file valid\n"), valid.stderr
    missing = _kconnect("validate", files["valid-source.properties"], tmp_path / "nope.properties")
    assert missing.returncode == 2
    assert missing.stdout == ""
    assert missing.stderr.splitlines() == [
        f"kconnect validate: {tmp_path / 'nope.properties'}: cannot read: No such file or directory"
    ]
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    bad_json = _kconnect("validate", broken)
    assert bad_json.returncode == 2
    assert bad_json.stderr.startswith(f"kconnect validate: {broken}: not valid JSON")
    assert "Traceback" not in bad_json.stderr


@pytest.fixture(scope="module")
def distributed_worker(
    tmp_path_factory: pytest.TempPathFactory, kafka_bootstrap: str
) -> Iterator[WorkerProcess]:
    """One distributed kconnect worker with exactly-once source support enabled."""
    group = f"validate-{uuid.uuid4().hex[:8]}"
    props = {
        "bootstrap.servers": kafka_bootstrap,
        "group.id": group,
        "config.storage.topic": f"{group}-configs",
        "offset.storage.topic": f"{group}-offsets",
        "status.storage.topic": f"{group}-status",
        "config.storage.replication.factor": "1",
        "offset.storage.replication.factor": "1",
        "status.storage.replication.factor": "1",
        "exactly.once.source.support": "enabled",
    }
    worker = WorkerProcess(tmp_path_factory.mktemp("validate-distributed"), props, mode="distributed").start()

    def answers() -> bool:
        try:
            return _endpoint(worker, CONFIGS["valid-source.properties"])[0] == 200
        except httpx.HTTPError:
            return False

    worker.wait_for("the validate endpoint to answer", answers, timeout=120)
    yield worker
    worker.stop()


def test_a_distributed_worker_file_adds_the_exactly_once_checks(
    distributed_worker: WorkerProcess, tmp_path: Path
) -> None:
    config = {**CONFIGS["valid-source.properties"], "transaction.boundary": "connector"}
    path = _write(tmp_path, "eos.properties", config)
    status, body = _endpoint(distributed_worker, config)
    assert status == 200
    errors = _errors_on_keys(body)
    assert [key for key, _ in errors] == ["transaction.boundary"]

    distributed = _kconnect("validate", "-o", "json", "--worker", distributed_worker.worker_file, path)
    assert distributed.returncode == 1, distributed.stderr
    assert json.loads(distributed.stdout) == body
    text = _kconnect("validate", "--worker", distributed_worker.worker_file, path)
    assert text.stdout.splitlines()[:-1] == [f"{path}: {key}: {message}" for key, message in errors]

    standalone = _kconnect("validate", path)  # a standalone worker's defaults: no exactly-once checks
    assert (standalone.returncode, standalone.stdout) == (0, "1 file valid\n"), standalone.stderr
