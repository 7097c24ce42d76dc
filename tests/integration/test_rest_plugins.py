"""Issue 3 end to end: connector plugins, their config (KIP-769) and validation (ConfigInfos)."""

from __future__ import annotations

from typing import Any

import pytest

from tests import rest_expectations as rx
from tests.worker_process import WorkerProcess

pytestmark = pytest.mark.integration

SINK = "org.apache.kafka.connect.file.FileStreamSinkConnector"
SOURCE = "org.apache.kafka.connect.file.FileStreamSourceConnector"
SINK_GROUPS = ["Common", "Transforms", "Predicates", "Error Handling"]


def _validate(worker: WorkerProcess, plugin: str, config: dict[str, Any]) -> Any:
    return worker.request("PUT", f"/connector-plugins/{plugin}/config/validate", config)


def _by_name(body: Any) -> dict[str, Any]:
    return {c["definition"]["name"] if c["definition"] else c["value"]["name"]: c for c in body["configs"]}


def test_connector_plugins_lists_sinks_then_sources(rest_worker: WorkerProcess) -> None:
    response = rest_worker.get("/connector-plugins")
    assert response.status_code == 200
    plugins = response.json()
    for plugin in plugins:
        rx.assert_plugin_info(plugin)
    assert {p["type"] for p in plugins} <= {"sink", "source"}
    types = [p["type"] for p in plugins]
    assert types == sorted(types, key=["sink", "source"].index), "sinks first, then sources"
    assert {"class": SINK, "type": "sink", "version": "0.1.0"} in plugins
    assert {"class": SOURCE, "type": "source", "version": "0.1.0"} in plugins
    assert rest_worker.get("/connector-plugins?connectorsOnly=true").json() == plugins


def test_connectors_only_false_adds_converters_and_header_converters(rest_worker: WorkerProcess) -> None:
    plugins = rest_worker.get("/connector-plugins", params={"connectorsOnly": "false"}).json()
    for plugin in plugins:
        rx.assert_plugin_info(plugin)
    classes = {(p["class"], p["type"]) for p in plugins}
    assert (SINK, "sink") in classes and (SOURCE, "source") in classes
    assert ("org.apache.kafka.connect.json.JsonConverter", "converter") in classes
    assert ("org.apache.kafka.connect.storage.StringConverter", "converter") in classes
    # A class that is both a converter and a header converter is listed twice, as in Kafka.
    assert ("org.apache.kafka.connect.json.JsonConverter", "header_converter") in classes
    assert ("org.apache.kafka.connect.storage.SimpleHeaderConverter", "header_converter") in classes
    connectors = rest_worker.get("/connector-plugins").json()
    assert plugins[: len(connectors)] == connectors


@pytest.mark.parametrize("plugin", ["FileStreamSinkConnector", "FileStreamSink", SINK])
def test_plugin_config_lists_its_keys_then_the_frameworks(rest_worker: WorkerProcess, plugin: str) -> None:
    response = rest_worker.get(f"/connector-plugins/{plugin}/config")
    assert response.status_code == 200
    keys = response.json()
    for key in keys:
        rx.assert_config_key_info(key)
    assert keys[0] == {
        "name": "file",
        "type": "STRING",
        "required": False,
        "default_value": None,
        "importance": "HIGH",
        "documentation": "Destination filename. If not specified, the standard output will be used",
        "group": None,
        "width": "NONE",
        "display_name": "file",
        "dependents": [],
        "order": -1,
    }
    names = [k["name"] for k in keys]
    assert names[1:3] == ["name", "connector.class"]
    assert {"topics", "topics.regex", "errors.deadletterqueue.topic.name"} <= set(names)
    assert len(names) == len(set(names))
    tasks_max = keys[names.index("tasks.max")]
    assert (tasks_max["type"], tasks_max["default_value"], tasks_max["group"], tasks_max["order"]) == (
        "INT",
        "1",
        "Common",
        4,  # after 4.1's connector.plugin.version
    )


@pytest.mark.parametrize(("plugin", "cls"), [("FileStreamSink", SINK), ("FileStreamSource", SOURCE)])
def test_plugin_config_shows_the_plugins_version_as_connector_plugin_version_default(
    rest_worker: WorkerProcess, plugin: str, cls: str
) -> None:
    listed = {p["class"]: p["version"] for p in rest_worker.get("/connector-plugins").json()}
    keys = {k["name"]: k for k in rest_worker.get(f"/connector-plugins/{plugin}/config").json()}
    assert keys["connector.plugin.version"]["default_value"] == listed[cls] == "0.1.0"
    config = {"connector.class": plugin, "topics": "t", "topic": "t"}
    validated = _by_name(_validate(rest_worker, plugin, config).json())["connector.plugin.version"]
    assert validated["definition"]["default_value"] == listed[cls]


def test_plugin_config_of_source_and_unknown_plugins(rest_worker: WorkerProcess) -> None:
    keys = rest_worker.get("/connector-plugins/FileStreamSource/config?version=0.1.0").json()
    assert [k["name"] for k in keys][:3] == ["file", "topic", "batch.size"]
    assert keys[1]["required"] is True and keys[2]["default_value"] == "2000"
    assert "exactly.once.support" in {k["name"] for k in keys}
    rx.assert_error(rest_worker.get("/connector-plugins/Nope/config"), 404, rx.unknown_plugin("Nope"))
    converter = rest_worker.get("/connector-plugins/JsonConverter/config")
    assert converter.status_code == 200, converter.text  # Kafka 4.3.1 lists a converter's own keys
    assert "schemas.enable" in {key["name"] for key in converter.json()}


def test_validate_answers_the_full_config_infos_with_kafkas_errors(rest_worker: WorkerProcess) -> None:
    response = _validate(
        rest_worker,
        "FileStreamSinkConnector",
        {"connector.class": "FileStreamSinkConnector", "tasks.max": "abc", "file": "sink-out.txt"},
    )
    assert response.status_code == 200, response.text
    body = response.json()
    rx.assert_config_infos(body, "FileStreamSinkConnector")
    assert body["groups"] == SINK_GROUPS
    configs = _by_name(body)
    assert configs["name"]["value"]["errors"] == [
        'Missing required configuration "name" which has no default value.'
    ]
    assert configs["tasks.max"]["value"] == {
        "name": "tasks.max",
        "value": None,
        "recommended_values": [],
        "errors": [
            "Invalid value abc for configuration tasks.max: Not a number of type INT",
            "Invalid value null for configuration tasks.max: Value must be non-null",
        ],
        "visible": True,
    }
    assert configs["topics"]["value"]["errors"] == ["Must configure one of topics or topics.regex"]
    assert configs["topics.regex"]["value"]["errors"] == ["Must configure one of topics or topics.regex"]
    assert body["error_count"] == 5
    assert configs["file"]["value"] == {
        "name": "file",
        "value": "sink-out.txt",
        "recommended_values": [],
        "errors": [],
        "visible": True,
    }
    assert configs["connector.class"]["definition"]["group"] == "Common"
    assert configs["connector.class"]["definition"]["display_name"] == "Connector class"
    tolerance = configs["errors.tolerance"]
    assert tolerance["definition"]["group"] == "Error Handling"
    assert tolerance["definition"]["default_value"] == "none"
    # The plugin's own key comes after the framework's.
    names = [c["definition"]["name"] for c in body["configs"] if c["definition"]]
    assert names.index("file") > names.index("errors.tolerance")


def test_validate_a_valid_source_config(rest_worker: WorkerProcess) -> None:
    config = {"connector.class": SOURCE, "name": "x", "topic": "t", "tasks.max": 1}
    body = _validate(rest_worker, "FileStreamSourceConnector", config).json()
    rx.assert_config_infos(body, SOURCE)
    assert body["error_count"] == 0
    assert body["groups"][:4] == SINK_GROUPS
    assert {"Topic Creation", "Exactly Once Support"} <= set(body["groups"])
    assert _by_name(body)["tasks.max"]["value"]["value"] == "1"


def test_validate_request_errors(rest_worker: WorkerProcess) -> None:
    no_class = _validate(rest_worker, "FileStreamSinkConnector", {"topics": "t"})
    rx.assert_error(no_class, 400, contains="contains no connector type")
    mismatch = _validate(rest_worker, "FileStreamSource", {"connector.class": "FileStreamSinkConnector"})
    rx.assert_error(mismatch, 400, rx.plugin_type_mismatch("FileStreamSinkConnector", "FileStreamSource"))
    unknown = _validate(rest_worker, "Nope", {"connector.class": "Nope"})
    rx.assert_error(
        unknown,
        500,
        contains="Failed to find any class that implements Connector and which name matches Nope",
    )
    rx.assert_error(
        rest_worker.request("PUT", "/connector-plugins/FileStreamSink/config/validate", ["x"]), 400
    )
