"""The curl examples of Confluent's "Managing Connectors" guide, run as written against localhost:8083.

Port 8083 is fixed by the guide, so the test runs in private network and mount namespaces
(`tests.private_net`) with its own broker and worker: it clashes with nothing on the machine.

The commands below are copied verbatim from the guide (``shared/seeds/003_*.txt``) and run by a
real ``curl`` (through ``bash``, so ``| jq`` works as in the guide) against a real kconnect worker
on the real broker and Spark. Each answer is checked against the one the guide prints; worker ids
and versions aside, as the guide's are those of the author's machine.

What the guide leaves to the reader, and how it is filled in here:
- "Instructions for starting a worker ... are here": a standalone worker with ``listeners=
  http://localhost:8083``; the guide's FileStreamSink writes ``test.sink.txt`` in the worker's
  directory and reads ``connect-test`` on the session broker.
- ``--data @config.json`` ("a file containing the JSON-formatted configuration"): config.json holds
  the same JSON as the guide's inline ``--data``.
- The guide's plugin list comes from a Confluent Platform install (replicator, JDBC, HDFS); here
  only the FileStream connectors it also lists are installed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests import private_net
from tests.worker_process import WorkerProcess, write_properties

pytestmark = pytest.mark.integration

CREATE = (
    """curl -X POST -H "Content-Type: application/json" --data '{"name": "local-file-sink", "config": """
    """{"connector.class":"FileStreamSinkConnector", "tasks.max":"1", "file":"test.sink.txt", """
    """"topics":"connect-test" }}' http://localhost:8083/connectors"""
)
CREATE_FROM_FILE = """curl -X POST -H "Content-Type: application/json" --data @config.json http://localhost:8083/connectors"""
VERSION = "curl localhost:8083/ | jq"
PLUGINS = "curl localhost:8083/connector-plugins | jq"
LIST = "curl localhost:8083/connectors"
RESTART = "curl -X POST localhost:8083/connectors/local-file-sink/restart"
TASKS = "curl localhost:8083/connectors/local-file-sink/tasks | jq"
RESTART_TASK = "curl -X POST localhost:8083/connectors/local-file-sink/tasks/0/restart"
PAUSE = "curl -X PUT localhost:8083/connectors/local-file-sink/pause"
RESUME = "curl -X PUT localhost:8083/connectors/local-file-sink/resume"
UPDATE = (
    """curl -X PUT -H "Content-Type: application/json" --data '"""
    """{"connector.class":"FileStreamSinkConnector","file":"test.sink.txt","tasks.max":"2","""
    """"topics":"connect-test","name":"local-file-sink"}' """
    """localhost:8083/connectors/local-file-sink/config"""
)
STATUS = "curl localhost:8083/connectors/local-file-sink/status | jq"
GET = "curl localhost:8083/connectors/local-file-sink | jq"
DELETE = "curl -X DELETE localhost:8083/connectors/local-file-sink"

GUIDE_CONFIG = {
    "connector.class": "FileStreamSinkConnector",
    "file": "test.sink.txt",
    "tasks.max": "2",
    "topics": "connect-test",
    "name": "local-file-sink",
}
GUIDE_TASKS = [{"connector": "local-file-sink", "task": 0}, {"connector": "local-file-sink", "task": 1}]


@pytest.fixture
def guide_worker(tmp_path: Path, kafka_bootstrap: str) -> Any:
    """A worker listening on http://localhost:8083, the address every example of the guide uses."""
    for tool in ("curl", "jq"):
        if shutil.which(tool) is None:
            pytest.fail(f"the guide's examples need `{tool}` on PATH")
    worker_file = write_properties(
        tmp_path / "worker.properties",
        {
            "bootstrap.servers": kafka_bootstrap,
            "listeners": "http://localhost:8083",
            "offset.storage.file.filename": str(tmp_path / "connect.offsets"),
            "offset.flush.interval.ms": "1000",
        },
    )
    worker = WorkerProcess.from_files(tmp_path, worker_file, [], url="http://localhost:8083").start()
    yield worker
    worker.stop()


def _curl(command: str, cwd: Path) -> str:
    """Run one example as written; returns what it prints (curl's progress meter goes to stderr)."""
    done = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=cwd, capture_output=True, text=True)
    assert done.returncode == 0, (command, done.returncode, done.stderr)
    return done.stdout


def _json(command: str, cwd: Path) -> Any:
    return json.loads(_curl(command, cwd))


def _wait_for(what: str, check: Any, worker: WorkerProcess, timeout: float = 90.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = check()
        if result:
            return result
        time.sleep(0.25)
    raise AssertionError(f"timed out waiting for {what}\n{worker.log_tail()}")


def test_the_guides_curl_examples_answer_as_the_guide_shows(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    if not private_net.inside():
        private_net.rerun_inside(request)
        return
    guide_worker: WorkerProcess = request.getfixturevalue("guide_worker")
    cwd = tmp_path

    # Distributed Example: create the connector (the guide prints no answer; Kafka's is the info).
    created = json.loads(_curl(CREATE, cwd))
    assert created == {
        "name": "local-file-sink",
        "config": {
            "connector.class": "FileStreamSinkConnector",
            "tasks.max": "1",
            "file": "test.sink.txt",
            "topics": "connect-test",
            "name": "local-file-sink",
        },
        "tasks": [{"connector": "local-file-sink", "task": 0}],
        "type": "sink",
    }

    # Get the worker's version information: {"version", "commit"} (Kafka >= 3.x adds kafka_cluster_id).
    version = _json(VERSION, cwd)
    assert set(version) == {"version", "commit", "kafka_cluster_id"}
    assert all(isinstance(v, str) and v for v in version.values())

    # List the connector plugins: objects with "class", the guide's FileStream and JDBC connectors among them.
    plugins = _json(PLUGINS, cwd)
    classes = [p["class"] for p in plugins]
    assert "org.apache.kafka.connect.file.FileStreamSourceConnector" in classes
    assert "org.apache.kafka.connect.file.FileStreamSinkConnector" in classes
    assert "io.confluent.connect.jdbc.JdbcSinkConnector" in classes
    assert "io.confluent.connect.jdbc.JdbcSourceConnector" in classes

    # Listing active connectors: printed without jq, exactly the guide's line.
    assert _curl(LIST, cwd) == '["local-file-sink"]'

    # Restarting a connector: no response printed.
    assert _curl(RESTART, cwd) == ""

    # Getting tasks: the guide's task.class, topics and file (Kafka 4 also copies the rest of the config).
    _wait_for("the task", lambda: _json(TASKS, cwd), guide_worker)
    [task] = _json(TASKS, cwd)
    assert set(task) == {"id", "config"}
    assert task["id"] == {"connector": "local-file-sink", "task": 0}
    assert task["config"]["task.class"] == "org.apache.kafka.connect.file.FileStreamSinkTask"
    assert task["config"]["topics"] == "connect-test" and task["config"]["file"] == "test.sink.txt"

    # Restarting a task, pausing, resuming: no response printed.
    _wait_for("the task RUNNING", lambda: _json(STATUS, cwd)["tasks"][0]["state"] == "RUNNING", guide_worker)
    assert _curl(RESTART_TASK, cwd) == ""
    assert _curl(PAUSE, cwd) == ""
    _wait_for("PAUSED", lambda: _json(STATUS, cwd)["connector"]["state"] == "PAUSED", guide_worker)
    assert _curl(RESUME, cwd) == ""

    # Updating connector configuration: the guide's answer, field for field (plus 4.x's "type").
    updated = json.loads(_curl(UPDATE, cwd))
    assert updated == {
        "name": "local-file-sink",
        "config": GUIDE_CONFIG,
        "tasks": GUIDE_TASKS,
        "type": "sink",
    }

    # Getting connector status: both tasks RUNNING once they started (the guide shows the settled state).
    def settled() -> Any:
        status = _json(STATUS, cwd)
        states = [status["connector"]["state"], *(t["state"] for t in status["tasks"])]
        return status if states == ["RUNNING"] * 3 else None

    status = _wait_for("the connector and both tasks RUNNING", settled, guide_worker)
    worker_id = status["connector"]["worker_id"]
    assert worker_id.endswith(":8083")
    assert status["name"] == "local-file-sink" and status["type"] == "sink"
    assert status["connector"] == {
        "state": "RUNNING",
        "worker_id": worker_id,
        "version": status["connector"]["version"],
    }
    assert [{k: t[k] for k in ("state", "id", "worker_id")} for t in status["tasks"]] == [
        {"state": "RUNNING", "id": 0, "worker_id": worker_id},
        {"state": "RUNNING", "id": 1, "worker_id": worker_id},
    ]

    # Getting connector configuration.
    assert _json(GET, cwd) == {
        "name": "local-file-sink",
        "config": GUIDE_CONFIG,
        "tasks": GUIDE_TASKS,
        "type": "sink",
    }

    # Deleting a connector: no response printed; it is gone.
    assert _curl(DELETE, cwd) == ""
    assert _curl(LIST, cwd) == "[]"

    # The guide's alternative: the same configuration from a file.
    (cwd / "config.json").write_text(
        '{"name": "local-file-sink", "config": {"connector.class":"FileStreamSinkConnector", '
        '"tasks.max":"1", "file":"test.sink.txt", "topics":"connect-test" }}',
        encoding="utf-8",
    )
    assert json.loads(_curl(CREATE_FROM_FILE, cwd)) == created
    assert _curl(DELETE, cwd) == ""
