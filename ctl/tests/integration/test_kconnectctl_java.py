"""kconnectctl drives Java Kafka Connect 4.3.1 with the same commands and the same answers: it is a
REST client of any Kafka Connect cluster, not of kconnect alone.

A standalone Java worker (``tests/java_connect.py``) on the session broker runs Kafka's own
FileStreamSource; the commands go through a context, as against kconnect.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from ctl.tests.integration.runner import Ctl
from tests import rest_expectations as rx
from tests.integration.harness import lines
from tests.java_connect import JavaConnectWorker

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def java_worker(
    tmp_path_factory: pytest.TempPathFactory, kafka_bootstrap: str
) -> Iterator[JavaConnectWorker]:
    """One standalone Java Connect worker on the session broker."""
    folder = tmp_path_factory.mktemp("java-ctl")
    props = {
        "bootstrap.servers": kafka_bootstrap,
        "offset.storage.file.filename": str(folder / "connect.offsets"),
        "offset.flush.interval.ms": "300",
        "key.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    }
    worker = JavaConnectWorker(folder, props, standalone=True).start()
    try:
        worker.wait_ready()
        yield worker
    finally:
        worker.stop()


def test_the_same_commands_drive_java_kafka_connect(java_worker: JavaConnectWorker, tmp_path: Path) -> None:
    ctl = Ctl(tmp_path / "ctl.yaml")
    ctl("config", "set-context", "java", "--cluster", java_worker.url)
    plugins = [row.split() for row in ctl("get", "plugins").stdout.splitlines()]
    assert ["org.apache.kafka.connect.file.FileStreamSourceConnector", "source", "4.3.1"] in plugins

    source = tmp_path / "in.txt"
    source.write_text(lines(0, 10), encoding="utf-8")
    props = tmp_path / "source.properties"
    props.write_text(f"name=java-src\nconnector.class=FileStreamSource\nfile={source}\ntopic=java-ctl-a\n")
    assert ctl("apply", "-f", str(props)).stdout == "connector java-src created\n"
    assert ctl("apply", "-f", str(props)).stdout == "connector java-src unchanged\n"
    partition = {"filename": str(source)}
    whole_file = [{"partition": partition, "offset": {"position": len(lines(0, 10).encode())}}]
    ctl.wait_for(
        "the whole file's offset", lambda: ctl.json("get", "offsets", "java-src")["offsets"] == whole_file
    )
    rows = [row.split() for row in ctl("get", "connectors").stdout.splitlines()]
    assert rows == [["NAME", "TYPE", "STATE", "TASKS"], ["java-src", "source", "RUNNING", "1", "RUNNING"]]
    described = ctl.json("describe", "connector", "java-src")
    assert described["status"]["connector"]["state"] == "RUNNING"
    assert described["topics"] == ["java-ctl-a"]
    props.write_text(f"name=java-src\nconnector.class=FileStreamSource\nfile={source}\ntopic=java-ctl-b\n")
    assert ctl("apply", "-f", str(props)).stdout == (
        "connector java-src configured\n~ topic: java-ctl-a -> java-ctl-b\n"
    )
    assert ctl.json("describe", "connector", "java-src")["config"]["topic"] == "java-ctl-b"
    assert ctl("restart", "connector", "java-src", "--include-tasks", "--only-failed").stdout == (
        "connector java-src: nothing to restart\n"
    )

    altered = tmp_path / "offsets.json"
    altered.write_text(json.dumps({"offsets": [{"partition": partition, "offset": {"position": 8}}]}))
    refused = ctl("offsets", "alter", "java-src", "-f", str(altered), expect=1)
    assert refused.stderr == f"error: {rx.not_stopped('java-src')}\n"
    assert ctl("stop", "connector", "java-src").stdout == "connector java-src stopped\n"
    ctl.wait_for(
        "java-src to be STOPPED",
        lambda: ctl.json("get", "connectors")["java-src"]["status"]["connector"]["state"] == "STOPPED",
    )
    assert ctl("offsets", "alter", "java-src", "-f", str(altered)).stdout == rx.OFFSETS_ALTERED + "\n"
    assert ctl.json("get", "offsets", "java-src")["offsets"] == [
        {"partition": partition, "offset": {"position": 8}}
    ]
    assert ctl("offsets", "reset", "java-src").stdout == rx.OFFSETS_RESET + "\n"
    assert ctl("delete", "connector", "java-src").stdout == "connector java-src deleted\n"
    gone = ctl("describe", "connector", "java-src", expect=1)
    assert gone.stderr == f"error: {rx.connector_not_found('java-src')}\n"
