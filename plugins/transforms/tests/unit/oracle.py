"""Runs kconnect's transformations on the oracle's cases, in the shape the Java oracle prints.

`tests/java_oracle/cases.json` lists records (JsonConverter envelopes), transformation and
predicate cases and config validations; `java_expected.json` here is what Apache Kafka's own
classes gave for them (written by ``tests/java_oracle/generate.sh``). Records cross the boundary
through kconnect's JsonConverter as they crossed Kafka's, so the two sides compare as JSON.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kconnect.config.configdef import ConfigException, convert_to_string
from kconnect.data.schema import Schema, SchemaAndValue
from kconnect.errors import ConnectError, DataError, SchemaBuilderError
from kconnect.records import ConnectRecord, Headers, SinkRecord, SourceRecord, TimestampType
from kconnect_converters.json_converter import JsonConverter
from kconnect_transforms.plugin import PREDICATES, TRANSFORMATIONS

REPO = Path(__file__).resolve().parents[4]
CASES = json.loads((REPO / "tests/java_oracle/cases.json").read_text(encoding="utf-8"))
EXPECTED = json.loads((Path(__file__).parent / "java_expected.json").read_text(encoding="utf-8"))

BY_JAVA_NAME: dict[str, Any] = {cls.java_class_names[0]: cls for cls in (*TRANSFORMATIONS, *PREDICATES)}

_converter = JsonConverter()
_converter.configure({"schemas.enable": "true"}, False)


def read(topic: str, envelope: Any) -> SchemaAndValue:
    if envelope is None:
        return SchemaAndValue.NULL
    return _converter.to_connect_data(topic, json.dumps(envelope).encode("utf-8"))


def write(topic: str, schema: Schema | None, value: Any) -> Any:
    data = _converter.from_connect_data(topic, schema, value)
    return None if data is None else json.loads(data)


def to_record(spec: dict[str, Any]) -> ConnectRecord:
    topic = spec["topic"]
    key = read(topic, spec.get("key"))
    value = read(topic, spec.get("value"))
    headers = Headers()
    for name, envelope in spec.get("headers", []):
        header = read(topic, envelope)
        headers.add(name, header.value, header.schema)
    common: dict[str, Any] = {
        "topic": topic,
        "key_schema": key.schema,
        "key": key.value,
        "value_schema": value.schema,
        "value": value.value,
        "timestamp": spec.get("timestamp"),
        "headers": headers,
    }
    if spec.get("kind", "sink") == "source":
        return SourceRecord(
            kafka_partition=spec.get("partition"), source_partition={"p": 1}, source_offset={"o": 1}, **common
        )
    stamped = spec.get("timestamp") is not None
    return SinkRecord(
        kafka_partition=spec.get("partition") or 0,
        kafka_offset=spec.get("offset", 0),
        timestamp_type=TimestampType.CREATE_TIME if stamped else TimestampType.NO_TIMESTAMP_TYPE,
        **common,
    )


def from_record(record: ConnectRecord) -> dict[str, Any]:
    return {
        "topic": record.topic,
        "partition": record.kafka_partition,
        "timestamp": record.timestamp,
        "key": write(record.topic, record.key_schema, record.key),
        "value": write(record.topic, record.value_schema, record.value),
        "headers": [[h.key, write(record.topic, h.schema, h.value)] for h in record.headers],
    }


def error(exc: Exception) -> dict[str, Any]:
    """The Java exception class kconnect's error stands for, and its message."""
    if isinstance(exc, ConfigException):
        name = "ConfigException"
    elif isinstance(exc, SchemaBuilderError):
        name = "SchemaBuilderException"
    elif isinstance(exc, DataError):
        name = "DataException"
    elif isinstance(exc, ConnectError):
        name = "ConnectException"
    elif isinstance(exc, ValueError):
        name = "IllegalArgumentException"
    elif isinstance(exc, IndexError):
        name = "IndexOutOfBoundsException"
    else:
        raise exc
    return {"error": name, "message": str(exc)}


def run_transform(case: dict[str, Any]) -> dict[str, Any]:
    transform = BY_JAVA_NAME[case["type"]]()
    try:
        transform.configure(case["config"])
    except Exception as exc:
        return {"configure_error": error(exc)}
    outputs: list[Any] = []
    for name in case["records"]:
        try:
            result = transform.apply(to_record(CASES["records"][name]))
            outputs.append(None if result is None else from_record(result))
        except Exception as exc:
            outputs.append(error(exc))
    transform.close()
    return {"outputs": outputs}


def run_predicate(case: dict[str, Any]) -> dict[str, Any]:
    predicate = BY_JAVA_NAME[case["type"]]()
    try:
        predicate.configure(case["config"])
    except Exception as exc:
        return {"configure_error": error(exc)}
    return {"outputs": [predicate.test(to_record(CASES["records"][name])) for name in case["records"]]}


def run_validation(case: dict[str, Any]) -> dict[str, Any]:
    plugin = BY_JAVA_NAME[case["type"]]()
    values = plugin.config_def.validate(case["config"])
    errors = {name: value.errors for name, value in values.items() if value.errors}
    try:
        plugin.configure(case["config"])
        configure_error = None
    except Exception as exc:
        configure_error = error(exc)
    return {"validate": errors, "configure_error": configure_error}


def describe(java_name: str) -> list[dict[str, Any]]:
    keys = []
    for key in BY_JAVA_NAME[java_name].config_def.config_keys.values():
        entry: dict[str, Any] = {"name": key.name, "type": key.type.value}
        if key.has_default:
            entry["default"] = convert_to_string(key.default, key.type)
        else:
            entry["required"] = True
        entry["importance"] = key.importance.value
        entry["validator"] = None if key.validator is None else str(key.validator)
        keys.append(entry)
    return keys
