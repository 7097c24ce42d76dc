"""Java connectors' tasks run Java converters and header converters from ``plugin.path``, each
loaded by Kafka's isolation in its own plugin's class loader, ``*.converter.plugin.version``
choosing among the installed versions as Kafka's ``Plugins.newConverter`` does (``RecordStages.java``).

``converter/TaggingConverter.java`` is built as 1.0 and as 2.0 into two plugin folders beside
Kafka's ``connect-file`` 4.3.1; it writes ``<version>|<tag>|<value>``, so the bytes on the wire
show which version ran with which prefixed keys. A Java FileStreamSource writes values with 1.0
(asked for) and headers with 2.0 (the newest); a Java FileStreamSink reads with 2.0; a version not
installed fails the task with Kafka's error. A Python connector naming the Java converter is
refused with a 400.
"""

from __future__ import annotations

import asyncio
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from kconnect_testkit.plugin_jars import fetch_connect_file

from plugins.java.tests.integration.java_worker import create_validated, java_worker
from tests.integration.harness import consume_records, produce_records
from tests.java_connect import compile_java
from tests.worker_process import WorkerProcess

pytestmark = pytest.mark.integration

SOURCE = "org.apache.kafka.connect.file.FileStreamSourceConnector"
SINK = "org.apache.kafka.connect.file.FileStreamSinkConnector"
STRING = "org.apache.kafka.connect.storage.StringConverter"
TAGGING = "kconnect.test.TaggingConverter"
#: Kafka's Java classes rather than the Python FileStream plugin's, which share their names.
JAVA = {"connector.plugin.version": "4.3.1"}
LINES = 10


def build_tagging_converter(folder: Path, version: str) -> Path:
    """A plugin folder holding ``converter/TaggingConverter.java`` built as `version`, in one jar
    with its ServiceLoader manifests."""
    source = Path(__file__).parent / "converter" / "TaggingConverter.java"
    copy = folder / f"src-{version}" / source.name
    copy.parent.mkdir(parents=True)
    copy.write_text(source.read_text(encoding="utf-8").replace("@VERSION@", version), encoding="utf-8")
    classes = compile_java(folder / f"classes-{version}", copy)
    services = classes / "META-INF" / "services"  # found by ServiceLoader, as current plugins are
    services.mkdir(parents=True)
    for interface in ("Converter", "HeaderConverter"):
        (services / f"org.apache.kafka.connect.storage.{interface}").write_text(
            TAGGING + "\n", encoding="utf-8"
        )
    plugin = folder / f"tagging-converter-{version}"
    plugin.mkdir()
    subprocess.run(["jar", "cf", str(plugin / f"tagging-{version}.jar"), "-C", str(classes), "."], check=True)
    return plugin


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory, kafka_bootstrap: str) -> Iterator[WorkerProcess]:
    """A standalone kconnect worker with connect-file 4.3.1 and the tagging converter 1.0 and 2.0."""
    folder = tmp_path_factory.mktemp("java-converters")
    plugins = [fetch_connect_file("4.3.1"), *(build_tagging_converter(folder, v) for v in ("1.0", "2.0"))]
    with java_worker(folder, kafka_bootstrap, ",".join(map(str, plugins)), STRING) as ours:
        yield ours


def _create(worker: WorkerProcess, name: str, config: dict[str, str]) -> None:
    response = create_validated(worker, name, config)
    assert response.status_code == 201, response.text


def test_a_java_source_writes_with_the_java_converters_it_names(
    worker: WorkerProcess, kafka_bootstrap: str, tmp_path: Path
) -> None:
    stem = uuid.uuid4().hex[:8]
    name, topic, source_file = f"conv-src-{stem}", f"tagged-{stem}", tmp_path / "in.txt"
    source_file.write_text("".join(f"line {i}\n" for i in range(LINES)), encoding="utf-8")
    config = {
        "connector.class": SOURCE,
        "file": str(source_file),
        "topic": topic,
        "value.converter": TAGGING,
        "value.converter.plugin.version": "1.0",
        "value.converter.tag": "v",
        "header.converter": TAGGING,
        "header.converter.tag": "h",
        "transforms": "mark",
        "transforms.mark.type": "org.apache.kafka.connect.transforms.InsertHeader",
        "transforms.mark.header": "mark",
        "transforms.mark.value.literal": "x",
        **JAVA,
    }
    _create(worker, name, config)
    worker.wait_for_state(name, "RUNNING", tasks=1, fail_fast=True)
    records = asyncio.run(consume_records(kafka_bootstrap, topic, LINES))
    assert [r.value for r in records] == [f"1.0|v|line {i}".encode() for i in range(LINES)]
    assert {(r.key, tuple(r.headers)) for r in records} == {(None, (("mark", b"2.0|h|x"),))}
    assert worker.request("DELETE", f"/connectors/{name}").status_code == 204


def test_a_java_sink_reads_with_the_java_converter_it_names(
    worker: WorkerProcess, kafka_bootstrap: str, tmp_path: Path
) -> None:
    stem = uuid.uuid4().hex[:8]
    name, topic, sink_file = f"conv-sink-{stem}", f"plain-{stem}", tmp_path / "out.txt"
    asyncio.run(produce_records(kafka_bootstrap, topic, [(f"value {i}".encode(), []) for i in range(LINES)]))
    config = {
        "connector.class": SINK,
        "file": str(sink_file),
        "topics": topic,
        "value.converter": TAGGING,
        "value.converter.tag": "in",
        **JAVA,
    }
    _create(worker, name, config)
    expected = [f"2.0|in|value {i}" for i in range(LINES)]
    worker.wait_for(
        "the sink file",
        lambda: sink_file.is_file() and sink_file.read_text(encoding="utf-8").splitlines() == expected,
    )
    assert worker.request("DELETE", f"/connectors/{name}").status_code == 204


def test_a_python_connector_naming_a_java_converter_is_refused(worker: WorkerProcess, tmp_path: Path) -> None:
    config = {
        "connector.class": "FileStreamSource",  # the Python plugin answers to the name
        "file": str(tmp_path / "in.txt"),
        "topic": "t",
        "value.converter": TAGGING,
    }
    response = worker.request("PUT", "/connectors/py-with-java-converter/config", config)
    assert response.status_code == 400, response.text
    message = response.json()["message"]
    assert f"{TAGGING} (version 2.0, from " in message
    assert (
        "is a Java converter: Java converters cannot run yet in this version of kconnect on a Python "
        in message
    )
    assert worker.get("/connectors").json() == []


def test_a_converter_version_not_installed_fails_the_java_task_with_kafkas_error(
    worker: WorkerProcess, tmp_path: Path
) -> None:
    name = f"conv-missing-{uuid.uuid4().hex[:8]}"
    (tmp_path / "in.txt").write_text("a line\n", encoding="utf-8")
    config = {
        "connector.class": SOURCE,
        "file": str(tmp_path / "in.txt"),
        "topic": f"never-{name}",
        "value.converter": TAGGING,
        "value.converter.plugin.version": "[3.0,)",  # validate checks the syntax only
        **JAVA,
    }
    _create(worker, name, config)
    worker.wait_for("the task to fail", lambda: worker.status(name)["tasks"][0]["state"] == "FAILED")
    trace = worker.status(name)["tasks"][0]["trace"]
    assert f"Plugin {TAGGING} not found that matches the version range [3.0,)" in trace
    assert worker.request("DELETE", f"/connectors/{name}").status_code == 204
