"""Kafka's own FileStream connectors (``connect-file`` 4.3.1 from Maven Central, on ``plugin.path``)
run on kconnect: the connector instance in the facade JVM, each task in a Spark task on an
executor JVM (the embedded local Spark), reporting over the control channel as Python tasks do.

The Python FileStream plugin is installed too: its classes answer to Kafka's names, so the configs
reach Kafka's Java classes with ``connector.plugin.version=4.3.1`` (KIP-891). A sample-like file
goes through a topic into a file: the sink is identical to the source; status
shows RUNNING with the worker's id; pause, resume, stop and restart act on the Java tasks; a
restart resumes from the committed source offset with no line lost or repeated; a sink that cannot
open its file is FAILED with Java's stack trace; a Python FileStreamSource feeds a Java
FileStreamSink; a Java connector naming a Python-only transformation is refused at validate.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kconnect_java.stages import not_java
from kconnect_testkit.plugin_jars import fetch_connect_file

from plugins.java.tests.integration.java_worker import java_worker
from tests.worker_process import WorkerProcess

pytestmark = pytest.mark.integration

SOURCE = "org.apache.kafka.connect.file.FileStreamSourceConnector"
SINK = "org.apache.kafka.connect.file.FileStreamSinkConnector"
STRING = "org.apache.kafka.connect.storage.StringConverter"
#: Kafka's Java classes rather than the Python FileStream plugin's, which share their names.
JAVA = {"connector.plugin.version": "4.3.1"}


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory, kafka_bootstrap: str) -> Iterator[WorkerProcess]:
    """A standalone kconnect worker with Kafka's connect-file 4.3.1 on its plugin.path."""
    folder = tmp_path_factory.mktemp("java-tasks")
    with java_worker(folder, kafka_bootstrap, str(fetch_connect_file("4.3.1")), STRING) as ours:
        yield ours


def _create(worker: WorkerProcess, name: str, config: dict[str, str]) -> None:
    response = worker.request("PUT", f"/connectors/{name}/config", {"name": name, **config})
    assert response.status_code in (200, 201), response.text


def _pipeline(worker: WorkerProcess, folder: Path) -> tuple[str, str, Path, Path]:
    """A Java source from `folder`/in.txt to a fresh topic and a Java sink from it to out.txt."""
    stem = uuid.uuid4().hex[:8]
    source, sink, topic = f"src-{stem}", f"sink-{stem}", f"java-lines-{stem}"
    source_file, sink_file = folder / f"in-{stem}.txt", folder / f"out-{stem}.txt"
    source_file.write_text("", encoding="utf-8")
    _create(worker, source, {"connector.class": SOURCE, "file": str(source_file), "topic": topic, **JAVA})
    _create(worker, sink, {"connector.class": SINK, "file": str(sink_file), "topics": topic, **JAVA})
    return source, sink, source_file, sink_file


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines() if path.is_file() else []


def _append(path: Path, lines: list[str]) -> None:
    with path.open("a", encoding="utf-8") as out:
        out.writelines(line + "\n" for line in lines)


def _wait_copied(worker: WorkerProcess, source_file: Path, sink_file: Path) -> None:
    worker.wait_for("the sink file to equal the source", lambda: _lines(sink_file) == _lines(source_file))


def _states(status: dict[str, Any]) -> list[str]:
    return [status["connector"]["state"], *(task["state"] for task in status["tasks"])]


def test_java_file_pipeline_copies_pauses_resumes_and_restarts(worker: WorkerProcess, tmp_path: Path) -> None:
    source, sink, source_file, sink_file = _pipeline(worker, tmp_path)
    # ASCII, as Kafka's sample: FileStreamSourceTask's offset counts characters and a restart skips
    # that many bytes, so on Java Connect too a restart lands mid-line after a non-ASCII character.
    first = [f"line {i} of Kafka's sample, with spaces  " for i in range(200)]
    _append(source_file, first)
    for name in (source, sink):
        status = worker.wait_for_state(name, "RUNNING", tasks=1, fail_fast=True)
        assert status["tasks"][0]["worker_id"] == status["connector"]["worker_id"]
    _wait_copied(worker, source_file, sink_file)

    assert worker.request("PUT", f"/connectors/{source}/pause").status_code == 202
    worker.wait_for_state(source, "PAUSED", tasks=1)
    _append(source_file, ["written while paused"])
    assert worker.request("PUT", f"/connectors/{source}/resume").status_code == 202
    worker.wait_for_state(source, "RUNNING", tasks=1, fail_fast=True)
    _wait_copied(worker, source_file, sink_file)

    # A restart resumes from the committed offset: nothing lost, nothing read twice.
    restart = worker.request("POST", f"/connectors/{source}/restart?includeTasks=true")
    assert restart.status_code in (202, 204), restart.text
    worker.wait_for_state(source, "RUNNING", tasks=1, fail_fast=True)
    _append(source_file, [f"after the restart {i}" for i in range(50)])
    _wait_copied(worker, source_file, sink_file)

    assert worker.request("PUT", f"/connectors/{sink}/stop").status_code == 204
    worker.wait_for("the sink to be STOPPED", lambda: _states(worker.status(sink)) == ["STOPPED"])
    _append(source_file, ["written while the sink is stopped"])
    assert worker.request("PUT", f"/connectors/{sink}/resume").status_code == 202
    worker.wait_for_state(sink, "RUNNING", tasks=1, fail_fast=True)
    _wait_copied(worker, source_file, sink_file)
    assert len(_lines(sink_file)) == 252
    for name in (source, sink):
        assert worker.request("DELETE", f"/connectors/{name}").status_code == 204


def test_a_python_source_feeds_a_java_sink(worker: WorkerProcess, tmp_path: Path) -> None:
    stem = uuid.uuid4().hex[:8]
    source, sink, topic = f"py-src-{stem}", f"java-sink-{stem}", f"mixed-{stem}"
    source_file, sink_file = tmp_path / "in.txt", tmp_path / "out.txt"
    _append(source_file, [f"mixed line {i}" for i in range(100)])
    _create(worker, source, {"connector.class": "FileStreamSource", "file": str(source_file), "topic": topic})
    _create(worker, sink, {"connector.class": SINK, "file": str(sink_file), "topics": topic, **JAVA})
    for name in (source, sink):
        worker.wait_for_state(name, "RUNNING", tasks=1, fail_fast=True)
    _wait_copied(worker, source_file, sink_file)
    for name in (source, sink):
        assert worker.request("DELETE", f"/connectors/{name}").status_code == 204


def test_a_java_task_that_fails_shows_javas_stack_trace(worker: WorkerProcess, tmp_path: Path) -> None:
    name = f"failing-{uuid.uuid4().hex[:8]}"
    missing = tmp_path / "no-such-folder" / "out.txt"
    _create(worker, name, {"connector.class": SINK, "file": str(missing), "topics": "java-failing", **JAVA})
    worker.wait_for("the sink task to fail", lambda: worker.status(name)["tasks"][0]["state"] == "FAILED")
    status = worker.status(name)
    trace = status["tasks"][0]["trace"]
    assert "org.apache.kafka.connect.errors.ConnectException" in trace
    assert "at org.apache.kafka.connect.file.FileStreamSinkTask.start" in trace
    assert status["connector"]["state"] == "RUNNING"


def test_a_java_connector_with_a_python_transformation_is_refused_at_validate(worker: WorkerProcess) -> None:
    python_only = "kconnect_transforms.insert_field.InsertFieldValue"  # no Java class of that name
    config = {
        "name": "with-python-smt",
        "connector.class": SINK,
        "topics": "t",
        "file": "/tmp/out.txt",
        "transforms": "kafkas,python",
        # Kafka's SMT names are kconnect's Python ports too; for a Java connector, Kafka's Java class.
        "transforms.kafkas.type": "org.apache.kafka.connect.transforms.InsertField$Value",
        "transforms.kafkas.static.field": "f",
        "transforms.kafkas.static.value": "v",
        "transforms.python.type": python_only,
        "transforms.python.static.field": "f",
        "transforms.python.static.value": "v",
        **JAVA,
    }
    response = worker.request("PUT", "/connector-plugins/FileStreamSinkConnector/config/validate", config)
    assert response.status_code == 200, response.text
    errors = {
        c["value"]["name"]: c["value"]["errors"] for c in response.json()["configs"] if c["value"]["errors"]
    }
    assert errors == {"transforms.python.type": [not_java("transformation", python_only)]}
    created = worker.request("POST", "/connectors", {"name": "with-python-smt", "config": config})
    assert created.status_code == 400 and not_java("transformation", python_only) in created.json()["message"]
