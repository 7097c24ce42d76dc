"""The herder's connector validation: plugin keys checked at validate / create time, Kafka's answers.

The converter entries below are Java Kafka Connect 4.3.1's answer, observed on a real Java
standalone worker (connect-runtime from Maven Central) for
``PUT /connector-plugins/FileStreamSink/config/validate`` with
``{"connector.class": "FileStreamSink", "name": "x", "topics": "t"}`` and a worker whose
``key.converter`` / ``value.converter`` are ``org.apache.kafka.connect.json.JsonConverter``.
Two fields differ by design: ``documentation`` (kconnect's docs are its own words, never Kafka's
prose) and the name of the order field (Java 4.3.1 writes ``order_in_group``, Kafka 4.1 and
kconnect ``order``); see docs/differences.md.
"""

from __future__ import annotations

import asyncio
import re
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, ClassVar

import pytest
from kconnect import hookimpl
from kconnect.config import ConfigDef, RegexValidator
from kconnect.errors import BadRequestError, PluginError
from kconnect.herder.validation import ConnectorValidator
from kconnect.plugin_host import PluginHost, PluginRegistry

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
    "org.apache.kafka.connect.json.JsonConverter",
    "org.apache.kafka.connect.storage.StringConverter",
]
CONVERTERS = [*REGISTRY_CONVERTERS, *HEADER_CONVERTERS]
JSON = "org.apache.kafka.connect.json.JsonConverter"
SIMPLE = "org.apache.kafka.connect.storage.SimpleHeaderConverter"

JAVA_4_3_1_CONVERTER_ENTRIES: dict[str, dict[str, Any]] = {
    "key.converter": {
        "definition": {
            "name": "key.converter",
            "type": "CLASS",
            "required": False,
            "default_value": JSON,
            "importance": "LOW",
            "group": "Common",
            "order_in_group": 6,
            "width": "SHORT",
            "display_name": "Key converter class",
            "dependents": [],
        },
        "value": {
            "name": "key.converter",
            "value": JSON,
            "recommended_values": CONVERTERS,
            "errors": [],
            "visible": True,
        },
    },
    "value.converter": {
        "definition": {
            "name": "value.converter",
            "type": "CLASS",
            "required": False,
            "default_value": JSON,
            "importance": "LOW",
            "group": "Common",
            "order_in_group": 8,
            "width": "SHORT",
            "display_name": "Value converter class",
            "dependents": [],
        },
        "value": {
            "name": "value.converter",
            "value": JSON,
            "recommended_values": CONVERTERS,
            "errors": [],
            "visible": True,
        },
    },
    "header.converter": {
        "definition": {
            "name": "header.converter",
            "type": "CLASS",
            "required": False,
            "default_value": SIMPLE,
            "importance": "LOW",
            "group": "Common",
            "order_in_group": 10,
            "width": "SHORT",
            "display_name": "Header converter class",
            "dependents": [],
        },
        "value": {
            "name": "header.converter",
            "value": SIMPLE,
            "recommended_values": sorted([*HEADER_CONVERTERS, SIMPLE]),
            "errors": [],
            "visible": True,
        },
    },
}

WORKER = {"key.converter": JSON, "value.converter": JSON}
SINK = {"connector.class": "FileStreamSink", "name": "x", "topics": "t"}


class Rename:
    """A transformation with a key of its own (a regex, as Kafka's RegexRouter has)."""

    config_def: ClassVar[ConfigDef | None] = ConfigDef().define(
        "regex",
        type="STRING",
        importance="HIGH",
        validator=RegexValidator(),
        documentation="Topics to rename.",
    )

    def configure(self, configs: Mapping[str, Any]) -> None: ...
    def apply(self, record: Any) -> Any:
        return record

    def close(self) -> None: ...


class TopicIs:
    config_def: ClassVar[ConfigDef | None] = None

    def configure(self, configs: Mapping[str, Any]) -> None: ...
    def test(self, record: Any) -> bool:
        return True

    def close(self) -> None: ...


class _Plugin:
    @hookimpl
    def register_transforms(self, registry: PluginRegistry) -> None:
        registry.add(Rename, aliases=["Rename"])

    @hookimpl
    def register_predicates(self, registry: PluginRegistry) -> None:
        registry.add(TopicIs, aliases=["TopicIs"])


@pytest.fixture(scope="module")
def validator() -> ConnectorValidator:
    return ConnectorValidator(PluginHost.load(extra_plugins=[_Plugin()]), WORKER)


def _validate(validator: ConnectorValidator, config: Mapping[str, str]) -> dict[str, Any]:
    return asyncio.run(validator.validate(config)).to_json()  # type: ignore[no-any-return]


def _by_name(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {(c["definition"] or c["value"])["name"]: c for c in body["configs"]}


def _errors(body: dict[str, Any]) -> dict[str, list[str]]:
    return {name: c["value"]["errors"] for name, c in _by_name(body).items() if c["value"]["errors"]}


@pytest.mark.parametrize("name", list(JAVA_4_3_1_CONVERTER_ENTRIES))
def test_unset_converters_show_the_workers_class_and_the_installed_ones_as_java_does(
    validator: ConnectorValidator, name: str
) -> None:
    entry = _by_name(_validate(validator, SINK))[name]
    java = JAVA_4_3_1_CONVERTER_ENTRIES[name]
    ours = dict(entry["definition"])
    assert ours.pop("documentation")  # our own words
    ours["order_in_group"] = ours.pop("order")
    assert ours == java["definition"]
    assert entry["value"] == java["value"]


def test_the_workers_converter_is_shown_by_its_class_name() -> None:
    validator = ConnectorValidator(PluginHost.load(), {"key.converter": "StringConverter"})
    entry = _by_name(_validate(validator, SINK))["key.converter"]
    string = "org.apache.kafka.connect.storage.StringConverter"
    assert (entry["definition"]["default_value"], entry["value"]["value"]) == (string, string)
    value = _by_name(_validate(validator, {**SINK, "value.converter": "JsonConverter"}))["value.converter"]
    assert value["value"]["value"] == JSON  # an alias shows as the class, as Java shows a Class


def test_a_worker_without_converter_properties_shows_kafkas_defaults() -> None:
    entries = _by_name(_validate(ConnectorValidator(PluginHost.load(), {}), SINK))
    assert entries["key.converter"]["value"]["value"] == JSON
    assert entries["header.converter"]["definition"]["default_value"] == SIMPLE


@pytest.mark.parametrize(
    ("extra", "errors"),
    [
        ({"key.converter": "foo.Bar"},
         {"key.converter": ["Invalid value foo.Bar for configuration key.converter: "
                            "Class foo.Bar could not be found."]}),
        ({"header.converter": "org.apache.kafka.connect.json.JsonConverterX"},
         {"header.converter": ["Invalid value org.apache.kafka.connect.json.JsonConverterX for "
                               "configuration header.converter: Class "
                               "org.apache.kafka.connect.json.JsonConverterX could not be found."]}),
        ({"key.converter": ""},
         {"key.converter": ["Invalid value  for configuration key.converter: Class  could not be found."]}),
        ({"key.converter": "org.apache.kafka.connect.file.FileStreamSinkConnector"},
         {"key.converter": ["Class class org.apache.kafka.connect.file.FileStreamSinkConnector does not "
                            "implement the Converter interface"]}),
        ({"transforms": "a", "transforms.a.type": "foo.Baz"},
         {"transforms.a.type": ["Invalid value foo.Baz for configuration transforms.a.type: "
                                "Class foo.Baz could not be found."]}),
        ({"transforms": "a"},
         {"transforms.a.type": ['Missing required configuration "transforms.a.type" which has no default '
                                "value."]}),
        ({"transforms": "a", "transforms.a.type": JSON},
         {"transforms.a.type": [f"Class class {JSON} does not implement the Transformation interface"]}),
        ({"predicates": "p", "predicates.p.type": "foo.P"},
         {"predicates.p.type": ["Invalid value foo.P for configuration predicates.p.type: "
                                "Class foo.P could not be found."]}),
        ({"predicates": "p"},
         {"predicates.p.type": ['Missing required configuration "predicates.p.type" which has no default '
                                "value."]}),
        ({"transforms": "a", "transforms.a.type": "Rename", "transforms.a.regex": "(",
          "predicates": "p", "predicates.p.type": "TopicIs"},
         {"transforms.a.regex": ["Invalid value ( for configuration regex: Invalid regex: missing ), "
                                 "unterminated subpattern at position 0"]}),
        ({"key.converter": "JsonConverter", "transforms": "a", "transforms.a.type": "Rename",
          "transforms.a.regex": "x.*"}, {}),
    ],
)  # fmt: skip
def test_unknown_plugins_are_errors_of_their_keys_with_kafkas_texts(
    validator: ConnectorValidator, extra: dict[str, str], errors: dict[str, list[str]]
) -> None:
    body = _validate(validator, {**SINK, **extra})
    assert _errors(body) == errors
    assert body["error_count"] == sum(len(e) for e in errors.values())
    for name, messages in errors.items():
        if "could not be found" in messages[0]:
            assert _by_name(body)[name]["value"]["value"] is None  # Kafka's failed parse


def test_create_refuses_an_unknown_transform_with_kafkas_message(validator: ConnectorValidator) -> None:
    config = {**SINK, "transforms": "a", "transforms.a.type": "foo.Baz"}
    with pytest.raises(BadRequestError) as refused:
        asyncio.run(validator.check(config))
    assert str(refused.value) == (
        "Connector configuration is invalid and contains the following 1 error(s):\n"
        "Invalid value foo.Baz for configuration transforms.a.type: Class foo.Baz could not be found.\n"
        "You can also find the above list of errors at the endpoint "
        "`/connector-plugins/FileStreamSink/config/validate`"
    )


def test_an_aliased_plugins_keys_follow_kafkas_layout(validator: ConnectorValidator) -> None:
    config = {**SINK, "transforms": "a,b", "transforms.a.type": "Rename", "transforms.a.regex": "t",
              "transforms.b.type": "nope.X", "predicates": "p", "predicates.p.type": "TopicIs"}  # fmt: skip
    body = _validate(validator, config)
    assert body["groups"] == [
        "Common", "Transforms", "Predicates", "Error Handling",
        "Transforms: a", "Transforms: b", "Predicates: p",
    ]  # fmt: skip
    layout = [
        (
            c["definition"]["name"],
            c["definition"]["group"],
            c["definition"]["order"],
            c["definition"]["required"],
        )
        for c in body["configs"]
        if c["definition"] and c["definition"]["name"].startswith(("transforms.", "predicates."))
    ]
    assert layout == [
        ("transforms.a.type", "Transforms: a", 0, True),
        ("transforms.a.plugin.version", "Transforms: a", 1, False),
        ("transforms.a.regex", "Transforms: a", 2, True),
        ("transforms.a.negate", "Transforms: a", 3, False),
        ("transforms.a.predicate", "Transforms: a", 4, False),
        ("transforms.b.type", "Transforms: b", 0, True),
        ("transforms.b.plugin.version", "Transforms: b", 1, False),
        ("predicates.p.type", "Predicates: p", 0, True),
        ("predicates.p.plugin.version", "Predicates: p", 1, False),
    ]
    names = [(c["definition"] or c["value"])["name"] for c in body["configs"]]
    assert names.index("errors.deadletterqueue.context.headers.enable") < names.index("transforms.a.type")
    assert names.index("predicates.p.plugin.version") < names.index("file")  # the connector's keys last
    entries = _by_name(body)
    assert entries["transforms.a.type"]["value"]["value"] == f"{__name__}.Rename"
    # Every installed transformation is recommended, sorted: this test's and kconnect-transforms' own.
    recommended = entries["transforms.a.type"]["value"]["recommended_values"]
    assert f"{__name__}.Rename" in recommended and recommended == sorted(recommended)
    assert entries["transforms.a.type"]["definition"]["display_name"] == "Transformation type for a"
    assert entries["predicates.p.type"]["definition"]["documentation"] == "Class for the 'p' predicate."
    assert entries["transforms.b.plugin.version"]["value"]["recommended_values"] == []


@pytest.fixture
def marker_module(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A module on sys.path that writes a marker file when imported; yields (a class in it, the marker)."""
    marker = tmp_path / "imported.marker"
    (tmp_path / "kconnect_validate_marker.py").write_text(
        f"from pathlib import Path\nPath({str(marker)!r}).write_text('imported')\nclass Evil: pass\n",
        encoding="utf-8",
    )
    sys.path.insert(0, str(tmp_path))
    try:
        yield "kconnect_validate_marker.Evil", marker
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("kconnect_validate_marker", None)


@pytest.mark.parametrize("key", ["key.converter", "value.converter", "header.converter", "transforms.a.type",
                                 "predicates.p.type"])  # fmt: skip
def test_no_key_imports_the_module_it_names(
    validator: ConnectorValidator, marker_module: tuple[str, Path], key: str
) -> None:
    name, marker = marker_module
    config = {**SINK, "transforms": "a", "transforms.a.type": "Rename", "transforms.a.regex": "t",
              "predicates": "p", "predicates.p.type": "TopicIs", key: name}  # fmt: skip
    assert f"Class {name} could not be found." in _errors(_validate(validator, config))[key][0]
    assert not marker.exists()


@pytest.mark.parametrize(
    "connector_class", ["os.system", "subprocess.Popen", "kconnect_validate_marker.Evil"]
)
def test_an_unknown_connector_class_is_kafkas_error_and_nothing_is_imported(
    validator: ConnectorValidator, marker_module: tuple[str, Path], connector_class: str
) -> None:
    _, marker = marker_module
    config = {**SINK, "connector.class": connector_class}
    expected = re.escape(
        f"Failed to find any class that implements Connector and which name matches {connector_class}, "
        "available connectors are: PluginDesc{klass=class kconnect_file."
    )
    with pytest.raises(PluginError, match=expected):
        asyncio.run(validator.validate(config))
    with pytest.raises(BadRequestError, match=expected):  # create / update: 400, as Kafka answers
        asyncio.run(validator.check(config))
    assert not marker.exists()


def test_plugins_are_listed_by_kind_then_class_name(validator: ConnectorValidator) -> None:
    listed = [(p.type.value, p.class_name) for p in validator.plugins(connectors_only=False)]
    kinds = [kind for kind, _ in listed]
    assert kinds == sorted(
        kinds, key=["sink", "source", "transformation", "predicate", "converter", "header_converter"].index
    )
    converters = [name for kind, name in listed if kind == "converter"]
    assert converters == CONVERTERS


def test_task_versions_come_from_the_registered_connectors_task_class(
    validator: ConnectorValidator, marker_module: tuple[str, Path]
) -> None:
    config = {"connector.class": "FileStreamSource"}
    assert validator.task_version(config, "kconnect_file.source.FileStreamSourceTask") == "0.1.0"
    name, marker = marker_module
    assert validator.task_version(config, name) is None
    assert validator.task_version({"connector.class": name}, name) is None
    assert not marker.exists()
