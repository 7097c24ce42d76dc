"""Java tasks run the transformations, predicates and ``errors.*`` of their connector config with
Kafka's own runtime classes (TransformationChain, RetryWithToleranceOperator, DeadLetterQueueReporter),
on Kafka's ``connect-file`` 4.3.1 jar from ``plugin.path``, a real broker and the embedded local Spark.

* A Java FileStreamSource with Kafka's HoistField, InsertField, RegexRouter and InsertHeader SMTs
  (two InsertHeaders under a TopicNameMatches predicate, one negated) writes exactly the transformed
  records to the routed topic: the value bytes and headers on the wire are checked.
* With ``errors.tolerance=all`` a Java source skips the lines Kafka's Cast SMT fails on.
* A transformation from ``plugin.path`` (``smt/LoaderHeader.java``, without a ServiceLoader manifest)
  runs in the class loader Kafka's isolation gives its plugin, not the connector's nor the facade's.
* A Java FileStreamSink with JsonConverter values and ExtractField: with ``errors.tolerance=all`` and a
  dead letter queue, the records that are not JSON land in the DLQ with their original bytes and
  Kafka's ``__connect.errors.*`` headers and the JSON ones (transformed after conversion) in the
  file, and ``errors.log.enable`` writes Kafka's error report to the worker's log; with
  ``errors.tolerance=none`` the first bad record fails the task with Kafka's trace.

Kafka's SMT names are also kconnect's Python ports; for a Java connector they mean Kafka's Java
classes (a Python-only transformation is refused at validate: ``test_java_tasks.py``).
"""

from __future__ import annotations

import asyncio
import json
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
JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter"
SMT = "org.apache.kafka.connect.transforms."
#: Kafka's Java classes rather than the Python FileStream plugin's, which share their names.
JAVA = {"connector.plugin.version": "4.3.1"}
ERROR_HEADERS = "__connect.errors."


@pytest.fixture(scope="module")
def smt_plugin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A plugin folder holding ``smt/*.java`` compiled into one jar."""
    folder = tmp_path_factory.mktemp("smt-plugin")
    classes = compile_java(folder / "classes", *sorted((Path(__file__).parent / "smt").glob("*.java")))
    plugin = folder / "loader-header"
    plugin.mkdir()
    subprocess.run(["jar", "cf", str(plugin / "loader-header.jar"), "-C", str(classes), "."], check=True)
    return plugin


@pytest.fixture(scope="module")
def worker(
    tmp_path_factory: pytest.TempPathFactory, kafka_bootstrap: str, smt_plugin: Path
) -> Iterator[WorkerProcess]:
    """A standalone kconnect worker with Kafka's connect-file 4.3.1 and `smt_plugin` on its plugin.path."""
    folder = tmp_path_factory.mktemp("java-transforms")
    plugin_path = f"{fetch_connect_file('4.3.1')},{smt_plugin}"
    with java_worker(folder, kafka_bootstrap, plugin_path, STRING) as ours:
        yield ours


def _create(worker: WorkerProcess, name: str, config: dict[str, str]) -> None:
    response = create_validated(worker, name, config)
    assert response.status_code in (200, 201), response.text


def test_a_java_source_writes_exactly_the_transformed_records(
    worker: WorkerProcess, kafka_bootstrap: str, tmp_path: Path
) -> None:
    stem = uuid.uuid4().hex[:8]
    name, source_file = f"smt-src-{stem}", tmp_path / "in.txt"
    lines = [f"line {i} of the sample" for i in range(30)]
    source_file.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    config = {
        "connector.class": SOURCE,
        "file": str(source_file),
        "topic": f"raw-{stem}",
        "value.converter": JSON_CONVERTER,
        "value.converter.schemas.enable": "false",
        "transforms": "hoist,insert,route,mark,unmark",
        "transforms.hoist.type": f"{SMT}HoistField$Value",
        "transforms.hoist.field": "line",
        "transforms.insert.type": f"{SMT}InsertField$Value",
        "transforms.insert.static.field": "origin",
        "transforms.insert.static.value": "file",
        "transforms.route.type": f"{SMT}RegexRouter",
        "transforms.route.regex": "raw-(.*)",
        "transforms.route.replacement": "routed-$1",
        "transforms.mark.type": f"{SMT}InsertHeader",
        "transforms.mark.header": "routed",
        "transforms.mark.value.literal": "yes",
        "transforms.mark.predicate": "isRouted",
        "transforms.unmark.type": f"{SMT}InsertHeader",
        "transforms.unmark.header": "not-routed",
        "transforms.unmark.value.literal": "yes",
        "transforms.unmark.predicate": "isRouted",
        "transforms.unmark.negate": "true",
        "predicates": "isRouted",
        "predicates.isRouted.type": f"{SMT}predicates.TopicNameMatches",
        "predicates.isRouted.pattern": "routed-.*",
        **JAVA,
    }
    _create(worker, name, config)
    worker.wait_for_state(name, "RUNNING", tasks=1, fail_fast=True)
    records = asyncio.run(consume_records(kafka_bootstrap, f"routed-{stem}", len(lines)))
    assert [r.value for r in records] == [
        json.dumps({"line": line, "origin": "file"}, separators=(",", ":")).encode() for line in lines
    ]
    assert {(r.key, tuple(r.headers)) for r in records} == {(None, (("routed", b"yes"),))}
    assert worker.request("DELETE", f"/connectors/{name}").status_code == 204


def test_a_java_source_skips_what_a_transformation_fails_on_with_tolerance_all(
    worker: WorkerProcess, kafka_bootstrap: str, tmp_path: Path
) -> None:
    stem = uuid.uuid4().hex[:8]
    name, source_file, topic = f"smt-cast-{stem}", tmp_path / "in.txt", f"cast-{stem}"
    source_file.write_text("1\nnot a number\n3\n4\n", encoding="utf-8")
    config = {
        "connector.class": SOURCE,
        "file": str(source_file),
        "topic": topic,
        "value.converter": JSON_CONVERTER,
        "value.converter.schemas.enable": "false",
        "transforms": "cast",
        "transforms.cast.type": f"{SMT}Cast$Value",
        "transforms.cast.spec": "int32",
        "errors.tolerance": "all",
        **JAVA,
    }
    _create(worker, name, config)
    worker.wait_for_state(name, "RUNNING", tasks=1, fail_fast=True)
    records = asyncio.run(consume_records(kafka_bootstrap, topic, 3))
    assert [r.value for r in records] == [b"1", b"3", b"4"]
    assert worker.status(name)["tasks"][0]["state"] == "RUNNING"
    assert worker.request("DELETE", f"/connectors/{name}").status_code == 204


def test_a_transformation_from_plugin_path_runs_in_its_own_plugin_class_loader(
    worker: WorkerProcess, kafka_bootstrap: str, smt_plugin: Path, tmp_path: Path
) -> None:
    stem = uuid.uuid4().hex[:8]
    name, source_file, topic = f"smt-loader-{stem}", tmp_path / "in.txt", f"loader-{stem}"
    source_file.write_text("one\ntwo\n", encoding="utf-8")
    config = {
        "connector.class": SOURCE,
        "file": str(source_file),
        "topic": topic,
        "transforms": "loader",
        "transforms.loader.type": "kconnect.test.smt.LoaderHeader",
        **JAVA,
    }
    _create(worker, name, config)
    worker.wait_for_state(name, "RUNNING", tasks=1, fail_fast=True)
    records = asyncio.run(consume_records(kafka_bootstrap, topic, 2))
    assert [r.value for r in records] == [b"one", b"two"]
    loaders = {dict(r.headers)["loader"].decode() for r in records}
    assert len(loaders) == 1, loaders
    (loader,) = loaders
    assert loader.startswith("PluginClassLoader") and f"{smt_plugin.name}/" in loader, loader
    assert worker.request("DELETE", f"/connectors/{name}").status_code == 204


def _sink_config(stem: str, sink_file: Path, tolerance: str) -> dict[str, str]:
    return {
        "connector.class": SINK,
        "file": str(sink_file),
        "topics": f"json-{stem}",
        "value.converter": JSON_CONVERTER,
        "value.converter.schemas.enable": "false",
        "transforms": "n",
        "transforms.n.type": f"{SMT}ExtractField$Value",
        "transforms.n.field": "n",
        "errors.tolerance": tolerance,
        **JAVA,
    }


def _produce_good_and_bad(bootstrap: str, topic: str) -> list[bytes]:
    values = [b'{"n": 1}', b"not json 2", b'{"n": 3}', b"not json 4", b'{"n": 5}']
    asyncio.run(produce_records(bootstrap, topic, [(value, [("trace-id", b"t")]) for value in values]))
    return values


def test_a_java_sink_sends_what_its_converter_fails_on_to_the_dead_letter_queue(
    worker: WorkerProcess, kafka_bootstrap: str, tmp_path: Path
) -> None:
    stem = uuid.uuid4().hex[:8]
    name, sink_file, dlq = f"smt-sink-{stem}", tmp_path / "out.txt", f"dlq-{stem}"
    topic = f"json-{stem}"
    values = _produce_good_and_bad(kafka_bootstrap, topic)
    config = {
        **_sink_config(stem, sink_file, "all"),
        "errors.deadletterqueue.topic.name": dlq,
        "errors.deadletterqueue.topic.replication.factor": "1",
        "errors.deadletterqueue.context.headers.enable": "true",
        "errors.log.enable": "true",
        "errors.log.include.messages": "true",
    }
    _create(worker, name, config)
    worker.wait_for_state(name, "RUNNING", tasks=1, fail_fast=True)
    worker.wait_for(
        "the JSON records in the file",
        lambda: sink_file.is_file() and sink_file.read_text(encoding="utf-8").splitlines() == ["1", "3", "5"],
    )
    dead = asyncio.run(consume_records(kafka_bootstrap, dlq, 2))
    assert [(r.key, r.value) for r in dead] == [(b"k", values[1]), (b"k", values[3])]
    for record, offset in zip(dead, (1, 3), strict=True):
        headers = dict(record.headers)
        assert headers["trace-id"] == b"t"  # the original headers stay
        errors = {k.removeprefix(ERROR_HEADERS): v for k, v in headers.items() if k.startswith(ERROR_HEADERS)}
        context = {
            "topic": topic.encode(),
            "partition": b"0",
            "offset": str(offset).encode(),
            "connector.name": name.encode(),
            "task.id": b"0",
            "stage": b"VALUE_CONVERTER",
            "class.name": JSON_CONVERTER.encode(),
            "exception.class.name": b"org.apache.kafka.connect.errors.DataException",
        }
        assert {k: errors.get(k) for k in context} == context
        assert b"Converting byte[] to Kafka Connect data failed" in errors["exception.message"]
        assert b"org.apache.kafka.connect.json.JsonConverter.toConnectData(" in errors["exception.stacktrace"]
    assert worker.status(name)["tasks"][0]["state"] == "RUNNING"
    # errors.log.enable: Kafka's LogReporter, through the Java part's SLF4J, in the worker's log.
    logged = worker.log_path.read_text(encoding="utf-8", errors="replace")
    for offset in (1, 3):
        assert (
            f"Error encountered in task {name}-0. Executing stage 'VALUE_CONVERTER' with class "
            f"'{JSON_CONVERTER}', where consumed record is {{topic='{topic}', partition=0, offset={offset}"
        ) in logged
    assert worker.request("DELETE", f"/connectors/{name}").status_code == 204


def test_a_java_sink_with_no_tolerance_fails_on_the_first_bad_record(
    worker: WorkerProcess, kafka_bootstrap: str, tmp_path: Path
) -> None:
    stem = uuid.uuid4().hex[:8]
    name, sink_file = f"smt-strict-{stem}", tmp_path / "out.txt"
    _produce_good_and_bad(kafka_bootstrap, f"json-{stem}")
    _create(worker, name, _sink_config(stem, sink_file, "none"))
    worker.wait_for("the sink task to fail", lambda: worker.status(name)["tasks"][0]["state"] == "FAILED")
    trace = worker.status(name)["tasks"][0]["trace"]
    assert "org.apache.kafka.connect.errors.ConnectException: Tolerance exceeded in error handler" in trace
    assert "Caused by: org.apache.kafka.connect.errors.DataException" in trace
    assert "org.apache.kafka.connect.json.JsonConverter.toConnectData(" in trace
    assert worker.request("DELETE", f"/connectors/{name}").status_code == 204
