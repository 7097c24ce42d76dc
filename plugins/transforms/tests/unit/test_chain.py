"""kconnect-transforms as the worker sees it: names resolve, validation knows the keys, chains run.

The connector config is the example of docs/transforms.md, so the example is known to work.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from kconnect.data.schema import STRING_SCHEMA
from kconnect.herder.validation import ConnectorValidator
from kconnect.plugin_host import PluginHost, PluginType
from kconnect.records import SourceRecord
from kconnect.runtime.task_plugins import build_task_plugins
from kconnect_transforms.plugin import PREDICATES, TRANSFORMATIONS

DOC = Path(__file__).resolve().parents[4] / "docs" / "transforms.md"
JSON = "org.apache.kafka.connect.json.JsonConverter"
WORKER = {"key.converter": JSON, "value.converter": JSON}


def _doc_example() -> dict[str, str]:
    block = re.search(r"```properties\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert block is not None
    pairs = (line.split("=", 1) for line in block.group(1).splitlines() if "=" in line)
    return {key.strip(): value.strip() for key, value in pairs}


@pytest.fixture(scope="module")
def host() -> PluginHost:
    return PluginHost.load()


def test_every_class_resolves_by_its_java_name_its_short_name_and_its_python_name(host: PluginHost) -> None:
    for kind, classes in ((PluginType.TRANSFORMATION, TRANSFORMATIONS), (PluginType.PREDICATE, PREDICATES)):
        for cls in classes:
            java_name = cls.java_class_names[0]
            for name in (java_name, java_name.rsplit(".", 1)[1], cls.__name__):
                assert host.find(name, kind).cls is cls, name


def test_kafkas_16_transformations_and_3_predicates_are_listed(host: PluginHost) -> None:
    listed = {p.class_name for p in host.plugins(PluginType.TRANSFORMATION, PluginType.PREDICATE)}
    kafka = {cls.java_class_names[0] for cls in (*TRANSFORMATIONS, *PREDICATES)}
    assert kafka <= listed
    short = {name.rsplit(".", 1)[1].split("$")[0] for name in kafka}
    assert len(short) == 16 + 3


def test_the_documented_example_validates_with_each_plugins_keys(host: PluginHost) -> None:
    body: dict[str, Any] = asyncio.run(ConnectorValidator(host, WORKER).validate(_doc_example())).to_json()
    assert body["error_count"] == 0, [c["value"] for c in body["configs"] if c["value"]["errors"]]
    names = {(c["definition"] or c["value"])["name"] for c in body["configs"]}
    own_keys = {
        "transforms.wrap.field",
        "transforms.addTopic.topic.field",
        "predicates.isConnectTopic.pattern",
    }
    assert own_keys <= names
    assert "Transforms: addTopic" in body["groups"]


def test_a_missing_transformation_key_is_an_error_of_that_key(host: PluginHost) -> None:
    config = {k: v for k, v in _doc_example().items() if k != "transforms.wrap.field"}
    body: dict[str, Any] = asyncio.run(ConnectorValidator(host, WORKER).validate(config)).to_json()
    errors = {c["value"]["name"]: c["value"]["errors"] for c in body["configs"] if c["value"]["errors"]}
    missing = 'Missing required configuration "transforms.wrap.field" which has no default value.'
    assert errors == {"transforms.wrap.field": [missing]}


def _record(topic: str) -> SourceRecord:
    return SourceRecord(
        topic=topic, value_schema=STRING_SCHEMA, value="hello", source_partition={"f": "test.txt"}
    )


def test_the_documented_example_runs_in_the_task_chain(host: PluginHost) -> None:
    plugins = build_task_plugins(host, WORKER, _doc_example())
    matched = plugins.transform(_record("connect-test"))
    assert matched is not None
    written = plugins.value_converter.from_connect_data(matched.topic, matched.value_schema, matched.value)
    assert json.loads(written or b"")["payload"] == {"line": "hello", "source_topic": "connect-test"}
    other = plugins.transform(_record("elsewhere"))
    assert other is not None and other.value.get("line") == "hello"
    assert [f.name for f in other.value_schema.fields] == ["line"]  # the predicate did not match


def test_negate_applies_the_transformation_to_the_other_records(host: PluginHost) -> None:
    config = {**_doc_example(), "transforms.addTopic.negate": "true"}
    plugins = build_task_plugins(host, WORKER, config)
    matched, other = plugins.transform(_record("connect-test")), plugins.transform(_record("elsewhere"))
    assert matched is not None and [f.name for f in matched.value_schema.fields] == ["line"]
    assert other is not None and other.value.get("source_topic") == "elsewhere"


def test_filter_with_a_predicate_drops_only_matching_records(host: PluginHost) -> None:
    config = {
        "transforms": "drop",
        "transforms.drop.type": "Filter",
        "transforms.drop.predicate": "tomb",
        "predicates": "tomb",
        "predicates.tomb.type": "RecordIsTombstone",
    }
    plugins = build_task_plugins(host, WORKER, config)
    assert plugins.transform(SourceRecord(topic="t", value=None)) is None
    assert plugins.transform(SourceRecord(topic="t", value="x")) is not None
