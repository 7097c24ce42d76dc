"""Issue 6 §3 end to end: only registered plugins resolve, and unknown ones are refused up front.

A real worker runs with a module on its ``PYTHONPATH`` that writes a marker file when imported: no
REST request naming it (as ``connector.class``, a converter, a transformation or a predicate) may
import it. Unknown plugin names are answered at validate / create / update time with Kafka's
texts, so nothing is created and no task ever starts inside Spark.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests import rest_expectations as rx
from tests.integration.harness import path_of
from tests.worker_process import WorkerProcess

pytestmark = pytest.mark.integration

MARKER_MODULE = "kconnect_it_marker"
EVIL = f"{MARKER_MODULE}.Evil"
STRING = "org.apache.kafka.connect.storage.StringConverter"
JSON = "org.apache.kafka.connect.json.JsonConverter"
# Confluent's registry converters (kconnect-schema-registry) are Converters, not HeaderConverters.
REGISTRY_CONVERTERS = [
    "io.confluent.connect.avro.AvroConverter",
    "io.confluent.connect.json.JsonSchemaConverter",
    "io.confluent.connect.protobuf.ProtobufConverter",
]
HEADER_CONVERTERS = [
    "org.apache.kafka.connect.converters.BooleanConverter",
    "org.apache.kafka.connect.converters.ByteArrayConverter",
    "org.apache.kafka.connect.converters.DoubleConverter",
    "org.apache.kafka.connect.converters.FloatConverter",
    "org.apache.kafka.connect.converters.IntegerConverter",
    "org.apache.kafka.connect.converters.LongConverter",
    "org.apache.kafka.connect.converters.ShortConverter",
    JSON,
    STRING,
]
CONVERTERS = [*REGISTRY_CONVERTERS, *HEADER_CONVERTERS]


class MarkedWorker:
    """A worker whose Python path holds the marker module, and the marker file that module writes."""

    def __init__(self, worker: WorkerProcess, marker: Path) -> None:
        self.worker = worker
        self.marker = marker


@pytest.fixture(scope="module")
def marked(tmp_path_factory: pytest.TempPathFactory, kafka_bootstrap: str) -> Iterator[MarkedWorker]:
    """One worker (key.converter named by its alias) with an importable module that leaves a marker."""
    workdir = tmp_path_factory.mktemp("plugin-resolution")
    modules = workdir / "modules"
    modules.mkdir()
    marker = workdir / "imported.marker"
    (modules / f"{MARKER_MODULE}.py").write_text(
        f"from pathlib import Path\nPath({str(marker)!r}).write_text('imported')\nclass Evil: pass\n",
        encoding="utf-8",
    )
    worker = WorkerProcess(
        workdir,
        {
            "bootstrap.servers": kafka_bootstrap,
            "offset.storage.file.filename": str(workdir / "connect.offsets"),
            "key.converter": "StringConverter",
        },
        env={"PYTHONPATH": str(modules)},
    ).start()
    yield MarkedWorker(worker, marker)
    worker.stop()


def _sink(**extra: str) -> dict[str, str]:
    return {"connector.class": "FileStreamSink", "topics": "t", **extra}


def _validate(worker: WorkerProcess, config: dict[str, str]) -> Any:
    return worker.request("PUT", "/connector-plugins/FileStreamSink/config/validate", {"name": "v", **config})


def _entries(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {(c["definition"] or c["value"])["name"]: c for c in body["configs"]}


def unknown_connector(name: str) -> str:
    """Kafka's text for a connector class no plugin registered (it goes on to list the installed ones)."""
    return (
        f"Failed to find any class that implements Connector and which name matches {name}, "
        "available connectors are: "
    )


@pytest.mark.parametrize("connector_class", ["os.system", "subprocess.Popen", EVIL])
def test_create_with_an_unregistered_connector_class_is_400_and_imports_nothing(
    marked: MarkedWorker, connector_class: str
) -> None:
    worker = marked.worker
    name = f"unknown-{connector_class.replace('.', '-')}"
    config = {"connector.class": connector_class}
    created = worker.request("POST", "/connectors", {"name": name, "config": config})
    rx.assert_error(created, 400, contains=unknown_connector(connector_class))
    assert "name='org.apache.kafka.connect.file.FileStreamSinkConnector'" in created.json()["message"]
    updated = worker.request("PUT", f"{path_of(name)}/config", config)
    rx.assert_error(updated, 400, contains=unknown_connector(connector_class))
    validated = worker.request("PUT", f"/connector-plugins/{connector_class}/config/validate", config)
    rx.assert_error(validated, 500, contains=unknown_connector(connector_class))  # Kafka's 500 here
    assert worker.get(path_of(name)).status_code == 404
    assert not marked.marker.exists(), "the worker imported a module a REST request named"


@pytest.mark.parametrize(
    ("key", "extra"),
    [
        ("key.converter", {}),
        ("value.converter", {}),
        ("header.converter", {}),
        ("transforms.a.type", {"transforms": "a"}),
        ("predicates.p.type", {"predicates": "p"}),
    ],
)
def test_an_unknown_plugin_is_an_error_of_its_key_at_validate_and_create(
    marked: MarkedWorker, key: str, extra: dict[str, str]
) -> None:
    worker = marked.worker
    config = _sink(**extra, **{key: EVIL})
    expected = f"Invalid value {EVIL} for configuration {key}: Class {EVIL} could not be found."
    body = _validate(worker, config).json()
    assert body["error_count"] == 1
    entry = _entries(body)[key]["value"]
    assert (entry["value"], entry["errors"]) == (None, [expected])
    name = f"bad-{key.replace('.', '-')}"
    created = worker.request("POST", "/connectors", {"name": name, "config": config})
    rx.assert_error(
        created,
        400,
        "Connector configuration is invalid and contains the following 1 error(s):\n"
        f"{expected}\n"
        "You can also find the above list of errors at the endpoint "
        "`/connector-plugins/FileStreamSink/config/validate`",
    )
    assert worker.get(path_of(name)).status_code == 404  # nothing created, no task started in Spark
    assert not marked.marker.exists()


def test_a_plugin_of_another_kind_is_refused_with_kafkas_text(marked: MarkedWorker) -> None:
    body = _validate(marked.worker, _sink(**{"value.converter": "FileStreamSource"})).json()
    assert _entries(body)["value.converter"]["value"]["errors"] == [
        "Class class org.apache.kafka.connect.file.FileStreamSourceConnector does not implement the "
        "Converter interface"
    ]


def test_unset_converters_show_the_workers_class_and_the_installed_ones(marked: MarkedWorker) -> None:
    entries = _entries(_validate(marked.worker, _sink()).json())
    key, value, header = (entries[k] for k in ("key.converter", "value.converter", "header.converter"))
    # The worker names its key converter by alias; validate shows the class, as Java shows a Class.
    assert (key["definition"]["default_value"], key["value"]["value"]) == (STRING, STRING)
    assert (value["definition"]["default_value"], value["value"]["value"]) == (JSON, JSON)
    simple = "org.apache.kafka.connect.storage.SimpleHeaderConverter"
    assert (header["definition"]["default_value"], header["value"]["value"]) == (simple, simple)
    assert key["value"]["recommended_values"] == CONVERTERS
    assert value["value"]["recommended_values"] == CONVERTERS
    assert header["value"]["recommended_values"] == sorted([*HEADER_CONVERTERS, simple])
    listed = marked.worker.get("/connector-plugins", params={"connectorsOnly": "false"}).json()
    assert [p["class"] for p in listed if p["type"] == "converter"] == CONVERTERS
    assert entries["key.converter.plugin.version"]["value"]["recommended_values"] == ["0.1.0"]
