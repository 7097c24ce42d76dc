"""The file source -> Kafka -> file sink pipeline through real kconnect workers, real Kafka and real Spark.

A test that needs no worker of its own (no worker settings, connector files or restart of its own)
runs on the session's shared worker (`rest_worker`), its connectors under names of its own.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import shutil
from pathlib import Path
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer
from kconnect_testkit.broker import KafkaBroker

from tests import private_net
from tests import rest_expectations as rx
from tests.harness import REPO_ROOT
from tests.integration.harness import Connectors, path_of, produce_records, wait_seconds
from tests.worker_process import WorkerProcess, count_lines, free_port, venv_without, write_properties

pytestmark = pytest.mark.integration

SAMPLES = REPO_ROOT / "tests" / "fixtures" / "kafka-config"


def _lines(start: int, stop: int) -> str:
    return "".join(f'record {i} \u00e9t\u00e9 "quoted"\n' for i in range(start, stop))


def _connector_files(tmp: Path, topic: str, source: Path, sink: Path) -> list[Path]:
    return [
        write_properties(
            tmp / "source.properties",
            {
                "name": "file-source",
                "connector.class": "FileStreamSource",
                "tasks.max": "1",
                "file": str(source),
                "topic": topic,
            },
        ),
        write_properties(
            tmp / "sink.properties",
            {
                "name": "file-sink",
                "connector.class": "FileStreamSink",
                "tasks.max": "1",
                "file": str(sink),
                "topics": topic,
            },
        ),
    ]


async def _consume_raw(bootstrap: str, topic: str, count: int) -> list[Any]:
    consumer = AIOKafkaConsumer(
        topic, bootstrap_servers=bootstrap, auto_offset_reset="earliest", enable_auto_commit=False
    )
    await consumer.start()
    records: list[Any] = []
    try:
        while len(records) < count:
            batch = await asyncio.wait_for(consumer.getmany(timeout_ms=1000), 30)
            for messages in batch.values():
                records.extend(messages)
    finally:
        await consumer.stop()
    return records


def test_kafka_sample_property_files_run_unchanged(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    """Kafka's connect-standalone / connect-file-source / connect-file-sink files, byte for byte.

    They name localhost:9092, port 8083 and /tmp/connect.offsets, so the test runs in private network
    and mount namespaces (`tests.private_net`): its broker, worker and /tmp clash with nothing.
    """
    if not private_net.inside():
        private_net.rerun_inside(request)
        return
    for sample in SAMPLES.iterdir():
        shutil.copy(sample, tmp_path / sample.name)
    assert not Path("/tmp/connect.offsets").exists(), "/tmp is this namespace's own"
    (tmp_path / "test.txt").write_text(_lines(0, 500), encoding="utf-8")
    with KafkaBroker(port=9092) as broker:
        worker = WorkerProcess.from_files(
            tmp_path,
            tmp_path / "connect-standalone.properties",
            [tmp_path / "connect-file-source.properties", tmp_path / "connect-file-sink.properties"],
            url="http://127.0.0.1:8083",
        ).start()
        try:
            worker.wait_for(
                "every line in test.sink.txt", lambda: count_lines(tmp_path / "test.sink.txt") >= 500
            )
            assert (tmp_path / "test.sink.txt").read_bytes() == (tmp_path / "test.txt").read_bytes()
            records = asyncio.run(_consume_raw(broker.bootstrap_servers, "connect-test", 500))
        finally:
            assert worker.stop() == 0
    assert "local-file-source" in Path("/tmp/connect.offsets").read_text(encoding="utf-8")
    # JsonConverter with schemas.enable=true: Java's envelope, byte for byte; the key is null.
    assert records[0].key is None
    assert (
        records[0].value == b'{"schema":{"type":"string","optional":false},'
        b'"payload":"record 0 \xc3\xa9t\xc3\xa9 \\"quoted\\""}'
    )
    assert [r.value for r in records][-1].endswith(b'"payload":"record 499 \xc3\xa9t\xc3\xa9 \\"quoted\\""}')


def test_pause_stops_the_flow_and_resume_continues_it(connectors: Connectors) -> None:
    worker = connectors.worker
    source, sink = connectors.workdir / "in.txt", connectors.workdir / "out.txt"
    source.write_text(_lines(0, 1000), encoding="utf-8")
    file_source = connectors.name("file-source")
    connectors.source(file_source, source)
    connectors.sink(connectors.name("file-sink"), sink)
    worker.wait_for("the first 1000 lines", lambda: count_lines(sink) == 1000)
    worker.wait_for_state(file_source, "RUNNING", tasks=1)

    assert worker.request("PUT", f"{path_of(file_source)}/pause").status_code == 202
    worker.wait_for_state(file_source, "PAUSED", tasks=1)
    with source.open("a", encoding="utf-8") as f:
        f.write(_lines(1000, 2000))
    wait_seconds(3)
    assert count_lines(sink) == 1000, "records flowed while the source connector was paused"

    assert worker.request("PUT", f"{path_of(file_source)}/resume").status_code == 202
    worker.wait_for_state(file_source, "RUNNING", tasks=1)
    worker.wait_for("the lines written during the pause", lambda: count_lines(sink) == 2000)
    assert sink.read_bytes() == source.read_bytes()


def test_worker_restart_resumes_from_committed_offsets(
    tmp_path: Path, start_worker: Any, unique_topic: str
) -> None:
    source, sink = tmp_path / "in.txt", tmp_path / "out.txt"
    source.write_text(_lines(0, 20_000), encoding="utf-8")
    files = _connector_files(tmp_path, unique_topic, source, sink)
    first = start_worker(connector_files=files)
    first.wait_for("the first run's lines", lambda: count_lines(sink) == 20_000)
    assert first.stop() == 0
    offsets = (tmp_path / "connect.offsets").read_text()
    assert str(source) in offsets and str(source.stat().st_size) in offsets

    with source.open("a", encoding="utf-8") as f:
        f.write(_lines(20_000, 30_000))
    second = start_worker(connector_files=files)
    second.wait_for("the lines appended while the worker was down", lambda: count_lines(sink) >= 30_000)
    import time

    time.sleep(2)  # anything re-sent would show up now
    assert sink.read_bytes() == source.read_bytes(), "lines lost or duplicated across the restart"


def test_connector_plugins_follow_what_is_pip_installed(
    rest_worker: WorkerProcess, start_worker: Any, tmp_path: Path
) -> None:
    def connector_classes(worker: WorkerProcess) -> set[str]:
        response = worker.get("/connector-plugins")
        assert response.status_code == 200
        return {p["class"] for p in response.json()}

    # The shared worker runs in this environment, kconnect-file installed.
    assert "org.apache.kafka.connect.file.FileStreamSourceConnector" in connector_classes(rest_worker)
    # `pip uninstall kconnect-file` in a throwaway venv: the shared test environment keeps it.
    without = start_worker(python=venv_without("kconnect-file", tmp_path / "venv"))
    classes = connector_classes(without)
    assert not {c for c in classes if "FileStream" in c}, classes
    assert "org.apache.kafka.connect.json.JsonConverter" in {
        p["class"] for p in without.get("/connector-plugins?connectorsOnly=false").json()
    }
    response = without.request(
        "POST", "/connectors", {"name": "x", "config": {"connector.class": "FileStreamSource", "topic": "t"}}
    )
    rx.assert_error(response, 400, contains="FileStreamSource")  # Kafka 4.3.1: 400 for an unknown class
    assert importlib.metadata.distribution("kconnect-file").version, (
        "the shared environment keeps kconnect-file"
    )


def test_bad_worker_file_is_one_line_error_without_traceback(tmp_path: Path) -> None:
    import subprocess
    import sys

    missing = subprocess.run(
        [sys.executable, "-m", "kconnect_rest.cli", "standalone", str(tmp_path / "nope.properties")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert missing.returncode == 2
    assert (
        missing.stderr.strip().splitlines()[-1]
        == f"kconnect: {tmp_path / 'nope.properties'}: cannot read: No such file or directory"
    )
    assert "Traceback" not in missing.stderr

    worker = write_properties(
        tmp_path / "w.properties", {"bootstrap.servers": "127.0.0.1:1", "offset.flush.interval.ms": "soon"}
    )
    bad = subprocess.run(
        [sys.executable, "-m", "kconnect_rest.cli", "standalone", str(worker)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2
    assert "Traceback" not in bad.stderr
    assert f"{worker}: offset.flush.interval.ms: invalid value 'soon'" in bad.stderr

    connector = write_properties(tmp_path / "c.properties", {"connector.class": "FileStreamSource"})
    worker_ok = write_properties(
        tmp_path / "ok.properties",
        {
            "bootstrap.servers": "127.0.0.1:1",
            "offset.storage.file.filename": str(tmp_path / "o"),
            "listeners": f"http://127.0.0.1:{free_port()}",
        },
    )
    no_name = subprocess.run(
        [sys.executable, "-m", "kconnect_rest.cli", "standalone", str(worker_ok), str(connector)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert no_name.returncode == 2
    assert (
        no_name.stderr.strip().splitlines()[-1]
        == f"kconnect: {connector}: name: missing required key (the connector's name)"
    )


def test_rest_answers_while_spark_is_still_starting(start_worker: Any) -> None:
    """Spark takes seconds to start; the REST server must not wait for it."""
    import time

    worker = start_worker()  # returns as soon as `GET /` answers
    first = worker.get("/health")
    assert first.status_code == 503, "Spark was already up: REST started no earlier than Spark"
    assert first.json()["status"] == "starting"
    assert worker.get("/connectors").json() == []
    started = time.monotonic()
    worker.wait_for("a healthy worker", lambda: worker.get("/health").status_code == 200)
    assert time.monotonic() - started > 0.5
    assert worker.get("/health").json() == {
        "status": "healthy",
        "message": "Worker has completed startup and is ready to handle requests.",
    }


def test_json_converter_schema_content_reads_bare_payloads_in_a_sink(
    connectors: Connectors, kafka_bootstrap: str
) -> None:
    """KIP-1054: with ``schema.content`` the sink reads payloads that carry no envelope, with that schema."""
    payloads = [b'{"id":%d,"name":"n%d","score":%d.5}' % (i, i, i) for i in range(50)]
    asyncio.run(produce_records(kafka_bootstrap, connectors.topic, [(p, []) for p in payloads]))
    sink = connectors.workdir / "out.txt"
    schema = (
        '{"type":"struct","name":"com.example.Row","fields":[{"field":"id","type":"int32"},'
        '{"field":"name","type":"string"},{"field":"score","type":"double"},'
        '{"field":"note","type":"string","optional":true,"default":"none"}]}'
    )
    name = connectors.name("schema-content-sink")
    connectors.create(
        name,
        {
            "connector.class": "FileStreamSink",
            "tasks.max": "1",
            "file": str(sink),
            "topics": connectors.topic,
            "key.converter": "org.apache.kafka.connect.storage.StringConverter",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter.schemas.enable": "true",
            "value.converter.schema.content": schema,
        },
    )
    worker = connectors.worker
    worker.wait_for("every record in the sink file", lambda: count_lines(sink) >= 50)
    lines = sink.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "Struct{id=0,name=n0,score=0.5,note=none}"
    assert lines[49] == "Struct{id=49,name=n49,score=49.5,note=none}"
    worker.wait_for_state(name, "RUNNING", tasks=1)
