"""Unit tests of the pure parts of kconnect-java: ConfigDef from Kafka's key JSON, the scan's plugins."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from kconnect.config import ConfigKeyInfo, ConfigValueInfo
from kconnect.errors import BadRequestError
from kconnect.plugin_registry import PluginType
from kconnect_java.plugins import config_def_of, config_values_of, found_plugins
from kconnect_java.stages import not_java

#: Keys as Java Kafka Connect 4.3.1's REST API renders FileStreamSourceConnector's ConfigDef.
SOURCE_KEYS: list[dict[str, Any]] = [
    {"name": "file", "type": "STRING", "required": False, "default_value": None, "importance": "HIGH",
     "documentation": "Source filename.", "group": None, "order_in_group": -1, "width": "NONE",
     "display_name": "file", "dependents": []},
    {"name": "topic", "type": "STRING", "required": True, "default_value": None, "importance": "HIGH",
     "documentation": "The topic to publish data to", "group": None, "order_in_group": -1, "width": "NONE",
     "display_name": "topic", "dependents": []},
    {"name": "batch.size", "type": "INT", "required": False, "default_value": "2000", "importance": "LOW",
     "documentation": "Lines a poll reads.", "group": "Common", "order_in_group": 3, "width": "SHORT",
     "display_name": "Batch size", "dependents": ["file"]},
    {"name": "topics", "type": "LIST", "required": False, "default_value": "a,b", "importance": "MEDIUM",
     "documentation": "Topics.", "group": None, "order_in_group": -1, "width": "LONG",
     "display_name": "topics", "dependents": []},
]  # fmt: skip


def _rendered(info: ConfigKeyInfo) -> dict[str, Any]:
    fields = asdict(info)
    fields["dependents"] = list(fields["dependents"])
    return fields


def test_config_def_renders_back_as_the_keys_it_was_built_from() -> None:
    definition = config_def_of(SOURCE_KEYS)
    assert [_rendered(ConfigKeyInfo.from_key(key)) for key in definition.config_keys.values()] == SOURCE_KEYS


def test_config_def_validates_required_and_typed_keys() -> None:
    values = config_def_of(SOURCE_KEYS).validate({"batch.size": "many"})
    assert values["topic"].errors and values["batch.size"].errors
    assert not values["file"].errors


def _entry(cls: str, version: str, location: str, kind: str = "sink") -> dict[str, Any]:
    return {"class": cls, "type": kind, "version": version, "location": location, "config": []}


def test_found_plugins_newest_first_one_per_class_type_and_version() -> None:
    scan = {
        "plugins": [
            _entry("b.Sink", "1.9", "file:/p/old"),
            _entry("b.Sink", "1.10", "file:/p/new"),
            _entry("b.Sink", "1.10", "file:/p/copy"),
            _entry("a.Convert", "undefined", "file:/p/c", "converter"),
            _entry("a.Ignored", "1", "file:/p/x", "configprovider"),
        ]
    }
    found = [(p.class_name, p.type, p.version, p.location) for p in found_plugins(scan)]
    assert found == [
        ("a.Convert", PluginType.CONVERTER, "undefined", "file:/p/c"),
        ("a.Ignored", PluginType.CONFIG_PROVIDER, "1", "file:/p/x"),
        ("b.Sink", PluginType.SINK, "1.10", "file:/p/new"),
        ("b.Sink", PluginType.SINK, "1.9", "file:/p/old"),
    ]


def test_java_config_values_render_back_as_java_wrote_them() -> None:
    definition = config_def_of(SOURCE_KEYS)
    java_values = [
        {
            "name": "batch.size",
            "value": "2000",
            "recommended_values": ["1", "10"],
            "errors": [],
            "visible": True,
        },
        {
            "name": "topics",
            "value": "a,b",
            "recommended_values": ["a", "c"],
            "errors": ["bad"],
            "visible": False,
        },
        {"name": "not.a.key", "value": "7", "recommended_values": [], "errors": ["unknown"], "visible": True},
        {"name": "file", "value": None, "recommended_values": [], "errors": [], "visible": True},
    ]
    values = config_values_of(java_values, definition)
    assert [v.value for v in values] == [2000, ["a", "b"], "7", None]
    rendered = [
        ConfigValueInfo.from_value(
            v, key.type if (key := definition.config_keys.get(v.name)) else None
        ).to_json()
        for v in values
    ]
    assert rendered == java_values


class _Facade:
    """The facade as validate asks it which names are Java transformations or predicates."""

    def __init__(self, transformations: set[str], predicates: set[str]) -> None:
        self.loaded = {"transformation": transformations, "predicate": predicates}
        self.asked: list[list[str]] = []

    def call(self, request: dict[str, Any]) -> dict[str, Any]:
        if request["op"] == "validate":
            return {"values": []}
        assert request["op"] == "stage_classes"
        self.asked.append(request["names"])
        return {kind: [n for n in request["names"] if n in names] for kind, names in self.loaded.items()}

    def call_beside(self, request: dict[str, Any]) -> dict[str, Any]:
        return self.call(request)


def test_validate_of_a_java_connector_refuses_names_of_no_java_transformation_or_predicate() -> None:
    facade = _Facade({"org.apache.kafka.connect.transforms.RegexRouter", "Filter"}, {"HasHeaderKey"})
    scan = {"plugins": [{**_entry("org.example.Source", "1.0", "file:/p", "source"), "config": SOURCE_KEYS}]}
    (source,) = found_plugins(scan, facade)
    config = {
        "topic": "t",
        "transforms": "route, py ,drop,unlisted",
        "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
        "transforms.py.type": "kconnect_transforms.insert_field.InsertFieldValue",
        "transforms.drop.type": "Filter",
        "transforms.drop.predicate": "header",
        "transforms.gone.type": "NotListed",
        "predicates": "header,topic",
        "predicates.header.type": "HasHeaderKey",
        "predicates.topic.type": "Filter",
    }
    values = source().validate(config)
    assert {name: v.errors for name, v in values.items() if v.errors} == {
        "transforms.py.type": [
            not_java("transformation", "kconnect_transforms.insert_field.InsertFieldValue")
        ],
        "predicates.topic.type": [not_java("predicate", "Filter")],
    }
    # One question for every name; an alias without its .type key is left to the framework.
    assert facade.asked == [
        ["Filter", "HasHeaderKey", "kconnect_transforms.insert_field.InsertFieldValue",
         "org.apache.kafka.connect.transforms.RegexRouter"]
    ]  # fmt: skip
    assert source().validate({"topic": "t", "transforms": " "}) == {}


def test_java_converters_transformations_and_predicates_run_only_for_java_connectors() -> None:
    scan = {
        "plugins": [
            _entry("org.example.Smt", "1.0", "file:/p", "transformation"),
            _entry("org.example.Converter", "1.0", "file:/p", "converter"),
            _entry("org.example.Sink", "1.0", "file:/p", "sink"),
        ]
    }
    converter, sink, smt = found_plugins(scan)
    assert smt.refuse_to_run("java") is None and sink.refuse_to_run("python") is None
    refused = smt.refuse_to_run("python")
    assert isinstance(refused, BadRequestError)
    assert "Java transformations cannot run yet in this version of kconnect on a Python" in str(refused)
    assert converter.refuse_to_run("java") is None
    refused = converter.refuse_to_run("python")
    assert isinstance(refused, BadRequestError)
    assert "Java converters cannot run yet in this version of kconnect on a Python" in str(refused)
