"""KIP-875 offsets of Java connectors, and a Java source connector's own offset reader, on kconnect
and on Java Kafka Connect 4.3.1, side by side on one broker and one ``plugin.path``.

The plugin path holds Kafka's ``connect-file`` 4.3.1 and a test source connector compiled here
(``offset_reader/``), which reads its offsets through its context's ``offsetStorageReader()`` in
``start()`` and in ``taskConfigs()`` and puts what it read, with the Java types, in its task config.
The same steps run on a kconnect standalone worker (the Python FileStream plugin disabled, so
Kafka's Java classes answer to their names) and on a Java ``ConnectStandalone`` 4.3.1 worker, each
with its own topics and files; the answers a user sees are compared: status codes (Kafka's 500 for
a connector's refusal is kconnect's 400, ``docs/rest.md``), messages, offsets and records. The
test connector's reads are compared once more on a distributed kconnect worker (its offsets topic).
"""

from __future__ import annotations

import asyncio
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from kconnect_testkit.plugin_jars import fetch_connect_file

from plugins.java.tests.integration.java_worker import side_by_side
from tests.integration.harness import consume_to_end
from tests.integration.test_distributed import group_props
from tests.java_connect import JavaConnectWorker, compile_java
from tests.worker_process import WorkerProcess

pytestmark = pytest.mark.integration

SOURCE = "org.apache.kafka.connect.file.FileStreamSourceConnector"
SINK = "org.apache.kafka.connect.file.FileStreamSinkConnector"
READER = "kconnect.test.OffsetReadingSourceConnector"
STRING = "org.apache.kafka.connect.storage.StringConverter"
#: Kafka's answer to a connector refusing offsets is 500; kconnect's is 400 (docs/rest.md).
REFUSED = {"java": 500, "kconnect": 400}

Worker = JavaConnectWorker | WorkerProcess


def _reader_plugin(folder: Path) -> Path:
    """A plugin folder with ``offset_reader/*.java`` compiled into one jar."""
    sources = sorted((Path(__file__).parent / "offset_reader").glob("*.java"))
    classes = compile_java(folder / "classes", *sources)
    plugin = folder / "offset-reader"
    plugin.mkdir()
    subprocess.run(["jar", "cf", str(plugin / "offset-reader.jar"), "-C", str(classes), "."], check=True)
    return plugin


def _props(bootstrap: str, folder: Path, stem: str, plugin_path: str) -> dict[str, str]:
    return {
        "bootstrap.servers": bootstrap,
        "offset.storage.file.filename": str(folder / f"{stem}.offsets"),
        "offset.flush.interval.ms": "500",
        "key.converter": STRING,
        "value.converter": STRING,
        "plugin.path": plugin_path,
    }


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Kafka's connect-file 4.3.1 and the test connector of ``offset_reader/``."""
    return f"{fetch_connect_file('4.3.1')},{_reader_plugin(tmp_path_factory.mktemp('offset-reader'))}"


@pytest.fixture(scope="module")
def workers(
    tmp_path_factory: pytest.TempPathFactory, kafka_bootstrap: str, plugin_path: str
) -> Iterator[dict[str, Worker]]:
    """A Java 4.3.1 and a kconnect standalone worker with the same ``plugin.path``, both ready."""
    folder = tmp_path_factory.mktemp("java-offsets")
    java_props = _props(kafka_bootstrap, folder, "java", plugin_path)
    kconnect_props = {**_props(kafka_bootstrap, folder, "kconnect", plugin_path), "spark.master": "local[2]"}
    with side_by_side(folder, java_props, kconnect_props) as (java, ours):
        yield {"java": java, "kconnect": ours}


def _call(worker: Worker, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    response = worker.request(method, path, body)
    return response.status_code, response.json() if response.content else None


def _wait(what: str, check: Callable[[], bool], timeout: float = 240.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.3)


def _states(worker: Worker, name: str) -> list[str]:
    code, status = _call(worker, "GET", f"/connectors/{name}/status")
    if code != 200:
        return []
    return [status["connector"]["state"], *(task["state"] for task in status["tasks"])]


def _running(worker: Worker, name: str) -> None:
    _wait(f"{name} RUNNING with its task", lambda: _states(worker, name) == ["RUNNING", "RUNNING"])


def _stop(worker: Worker, name: str) -> None:
    assert _call(worker, "PUT", f"/connectors/{name}/stop")[0] == 204
    _wait(f"{name} STOPPED", lambda: _states(worker, name) == ["STOPPED"])


def _resume(worker: Worker, name: str) -> None:
    assert _call(worker, "PUT", f"/connectors/{name}/resume")[0] == 202
    _running(worker, name)


def _create(worker: Worker, name: str, config: dict[str, str]) -> None:
    code, body = _call(worker, "PUT", f"/connectors/{name}/config", {"name": name, **config})
    assert code == 201, body


def _values(bootstrap: str, topic: str, count: int) -> list[str]:
    records = asyncio.run(consume_to_end(bootstrap, topic, count))
    return [record.value.decode() for record in records]


def _file_source_story(worker: Worker, which: str, folder: Path, bootstrap: str) -> list[Any]:
    """A Java FileStreamSource through KIP-875: what a user sees at each step."""
    stem = f"{which}-{uuid.uuid4().hex[:8]}"
    name, topic, source_file = f"file-{stem}", f"lines-{stem}", folder / f"in-{stem}.txt"
    lines = [f"line {i}" for i in range(10)]
    source_file.write_text("".join(f"{line}\n" for line in lines), encoding="ascii")
    _create(worker, name, {"connector.class": SOURCE, "file": str(source_file), "topic": topic})
    _running(worker, name)
    assert _values(bootstrap, topic, 10) == lines
    _stop(worker, name)
    seen: list[Any] = []
    offsets = f"/connectors/{name}/offsets"
    partition = {"filename": str(source_file)}
    _wait("the final offset commit", lambda: _call(worker, "GET", offsets)[1]["offsets"] != [])
    seen.append(_call(worker, "GET", offsets))
    for position in ("five", -1):
        code, body = _call(
            worker,
            "PATCH",
            offsets,
            {"offsets": [{"partition": partition, "offset": {"position": position}}]},
        )
        assert code == REFUSED[which], body
        seen.append(body["message"])
    bad_partition = {"offsets": [{"partition": {"file": "x"}, "offset": {"position": 1}}]}
    code, body = _call(worker, "PATCH", offsets, bad_partition)
    assert code == REFUSED[which], body
    seen.append(body["message"])
    # Back to the start of line 5: the task reads lines 5 to 9 again.
    line_5 = sum(len(line) + 1 for line in lines[:5])
    seen.append(
        _call(
            worker, "PATCH", offsets, {"offsets": [{"partition": partition, "offset": {"position": line_5}}]}
        )
    )
    seen.append(_call(worker, "GET", offsets))
    _resume(worker, name)
    seen.append(_values(bootstrap, topic, 15))
    _stop(worker, name)
    seen.append(_call(worker, "DELETE", offsets))
    seen.append(_call(worker, "GET", offsets))
    _resume(worker, name)  # no offset: from the file's first line
    seen.append(_values(bootstrap, topic, 25))
    assert _call(worker, "DELETE", f"/connectors/{name}")[0] == 204
    return [_without(str(source_file), step) for step in seen]


def _without(text: str, value: Any, placeholder: str = "FILE") -> Any:
    """`value` with `text` (a worker's own file or topic name) written as `placeholder`."""
    if isinstance(value, str):
        return value.replace(text, placeholder)
    if isinstance(value, list | tuple):
        return type(value)(_without(text, item, placeholder) for item in value)
    if isinstance(value, dict):
        return {key: _without(text, item, placeholder) for key, item in value.items()}
    return value


def test_file_source_offsets_as_on_java_connect(
    workers: dict[str, Worker], tmp_path: Path, kafka_bootstrap: str
) -> None:
    stories = {which: _file_source_story(w, which, tmp_path, kafka_bootstrap) for which, w in workers.items()}
    assert stories["kconnect"] == stories["java"]
    story = stories["kconnect"]
    assert story[0] == (200, {"offsets": [{"partition": {"filename": "FILE"}, "offset": {"position": 70}}]})
    assert story[1] == "The value for the 'position' key in the offset is expected to be a Long value"
    assert story[2] == "The value for the 'position' key in the offset should be a non-negative value"
    assert story[3] == "Partition objects should contain the key 'filename'"
    assert story[4] == (200, {"message": "The offsets for this connector have been altered successfully"})
    assert story[5] == (200, {"offsets": [{"partition": {"filename": "FILE"}, "offset": {"position": 35}}]})
    lines = [f"line {i}" for i in range(10)]
    assert story[6] == lines + lines[5:]
    assert story[7] == (200, {"message": "The offsets for this connector have been reset successfully"})
    assert story[8] == (200, {"offsets": []})
    assert story[9] == lines + lines[5:] + lines


def test_file_sink_offsets_as_on_java_connect(workers: dict[str, Worker], tmp_path: Path) -> None:
    seen = {}
    for which, worker in workers.items():
        name, topic = f"sink-{which}-{uuid.uuid4().hex[:8]}", f"sunk-{uuid.uuid4().hex[:8]}"
        config = {"connector.class": SINK, "file": str(tmp_path / f"{name}.txt"), "topics": topic}
        _create(worker, name, config)
        _running(worker, name)
        _stop(worker, name)
        offsets = f"/connectors/{name}/offsets"
        partition = {"kafka_topic": topic, "kafka_partition": 0}
        altered = _call(
            worker, "PATCH", offsets, {"offsets": [{"partition": partition, "offset": {"kafka_offset": 3}}]}
        )
        read = _call(worker, "GET", offsets)
        reset = _call(worker, "DELETE", offsets)
        assert _call(worker, "DELETE", f"/connectors/{name}")[0] == 204
        seen[which] = _without(topic, [altered, read, reset], "TOPIC")
    assert seen["kconnect"] == seen["java"]
    assert seen["kconnect"] == [
        (200, {"message": "The offsets for this connector have been altered successfully"}),
        (
            200,
            {
                "offsets": [
                    {
                        "partition": {"kafka_topic": "TOPIC", "kafka_partition": 0},
                        "offset": {"kafka_offset": 3},
                    }
                ]
            },
        ),
        (200, {"message": "The offsets for this connector have been reset successfully"}),
    ]


def _read_offsets(worker: Worker, name: str) -> tuple[str, str] | None:
    """What the test connector read, from its task config (None before it has one)."""
    code, tasks = _call(worker, "GET", f"/connectors/{name}/tasks")
    if code != 200 or len(tasks) != 1:
        return None
    return tasks[0]["config"]["read.in.start"], tasks[0]["config"]["read.in.task.configs"]


def _reader_story(worker: Worker, which: str) -> list[Any]:
    """The test connector's reads of its own offsets before and after a PATCH gives it one. Only
    the connector takes part (its task's start is not waited for)."""
    name = f"reader-{which}-{uuid.uuid4().hex[:8]}"
    _create(worker, name, {"connector.class": READER, "tasks.max": "1"})
    _wait("the first task config", lambda: _read_offsets(worker, name) is not None)
    before = _read_offsets(worker, name)
    _stop(worker, name)
    offset = {"n": 42, "f": 1.5, "s": "text", "b": True}
    patch = {"offsets": [{"partition": {"source": "offset-reading"}, "offset": offset}]}
    altered = _call(worker, "PATCH", f"/connectors/{name}/offsets", patch)
    assert _call(worker, "PUT", f"/connectors/{name}/resume")[0] == 202
    _wait("the new task config", lambda: _read_offsets(worker, name) not in (None, before))
    story = [before, altered, _read_offsets(worker, name)]
    assert _call(worker, "DELETE", f"/connectors/{name}")[0] == 204
    return story


def test_a_java_source_connector_reads_its_own_offsets(workers: dict[str, Worker]) -> None:
    stories = {which: _reader_story(worker, which) for which, worker in workers.items()}
    assert stories["kconnect"] == stories["java"]
    read = "b=true (Boolean), f=1.5 (Double), n=42 (Long), s=text (String)"
    assert stories["kconnect"][0] == ("null", "null")
    assert stories["kconnect"][2] == (read, read)


def test_a_java_source_connector_reads_its_own_offsets_on_a_distributed_worker(
    workers: dict[str, Worker], plugin_path: str, kafka_bootstrap: str, tmp_path: Path
) -> None:
    props = {
        **group_props(kafka_bootstrap, "java-offsets"),
        "key.converter": STRING,
        "value.converter": STRING,
        "plugin.path": plugin_path,
        "spark.master": "local[1]",
    }
    worker = WorkerProcess(tmp_path, props, mode="distributed", env={"KCONNECT_DISABLE_PLUGINS": "file"})
    worker.start(timeout=300)
    try:
        story = _reader_story(worker, "distributed")
    finally:
        worker.stop()
    # Read from the offsets topic, as Java Connect reads it in standalone mode from its file.
    assert story == _reader_story(workers["java"], "java")
