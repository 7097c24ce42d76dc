"""The JSON-lines records of ``kconnect test`` (docs/config-tests.md): read as input, written as output.

One JSON object a line: ``topic``, optional ``partition``, ``offset`` (sink) and ``timestamp``, and
``key``, ``value`` and ``headers`` (a list of ``[name, value]`` pairs, or an object). What a value is
depends on where the record enters the pipeline:

* **Connect data** (a source task's records in; a sink task's records out) is written as Kafka's
  JsonConverter writes it with schemas: ``{"schema": ..., "payload": ...}``; in input, any other
  JSON value is a schemaless one. The host's JsonConverter reads and writes it, so the records of
  the Java oracle's cases (``tests/java_oracle/cases.json``) are valid input as they are.
* **Bytes** (a sink task's records in; what a source task sends to Kafka out): ``null``, a string
  (its UTF-8 text), ``{"json": ...}`` (that JSON's text) or ``{"base64": "..."}``. Output uses the
  ``json`` form for the text of a JSON object or array, a string for other UTF-8 text, ``base64``
  for the rest.

An outcome other than a record is one line too: ``null`` for a record a transformation dropped,
``{"error", "message", "stage"}`` for one ``errors.tolerance=all`` skipped, and the same with
``"failed"`` (Kafka's "Tolerance exceeded in error handler") for the failure that ends the run.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from typing import Any

from aiokafka.structs import ConsumerRecord

from kconnect.converter import Converter
from kconnect.data.schema import SchemaAndValue
from kconnect.errors import ConnectError
from kconnect.plugin_host import PluginHost, PluginType
from kconnect.records import ConnectRecord, Headers, SourceRecord
from kconnect.runtime.dry_run import Delivered, Dropped, Failed, Outcome, Skipped
from kconnect.runtime.error_handling import Failure, error_class_name

#: The converter whose JSON (with schemas) writes Connect data in these files.
JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter"
_ENVELOPE_KEYS = {"schema", "payload"}


class SampleError(ConnectError):
    """A sample record that cannot be read; the message names the line and the field."""


def connect_data_codec(host: PluginHost) -> Converter:
    """The installed JsonConverter, with schemas; ConnectError saying what to install without it."""
    plugin = host.lookup(JSON_CONVERTER, PluginType.CONVERTER)
    if plugin is None:
        raise ConnectError(
            f"kconnect test reads and writes Connect data with {JSON_CONVERTER}: "
            "install kconnect-converters (pip install plugins/converters)"
        )
    converter: Converter = plugin.cls()
    converter.configure({"schemas.enable": "true"}, False)
    return converter


def _pairs(headers: Any, where: str) -> list[tuple[str, Any]]:
    if headers is None:
        return []
    if isinstance(headers, Mapping):
        return [(str(name), value) for name, value in headers.items()]
    if isinstance(headers, list) and all(isinstance(h, list) and len(h) == 2 for h in headers):
        return [(str(name), value) for name, value in headers]
    raise SampleError(f"{where}: headers: expected a list of [name, value] pairs or an object")


def _topic(line: Mapping[str, Any], where: str) -> str:
    topic = line.get("topic")
    if not isinstance(topic, str) or not topic:
        raise SampleError(f"{where}: topic: missing (every record names its topic)")
    return topic


def _int_or_none(line: Mapping[str, Any], field: str, where: str) -> int | None:
    value = line.get(field)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise SampleError(f"{where}: {field}: expected an integer, got {json.dumps(value)}")
    return value


def parse_line(text: str, where: str) -> dict[str, Any]:
    """One line's JSON object; SampleError naming `where` (``FILE:LINE``) otherwise."""
    try:
        line = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SampleError(f"{where}: not valid JSON: {exc.msg}") from None
    if not isinstance(line, dict):
        raise SampleError(f"{where}: expected a JSON object (one record a line)")
    return line


class ConnectDataFormat:
    """Connect data as JsonConverter JSON: read into a source record, written from a delivered record."""

    def __init__(self, codec: Converter) -> None:
        self._codec = codec

    def read(self, topic: str, value: Any, where: str) -> SchemaAndValue:
        """`value` (an envelope, or any JSON as a schemaless value) as Connect data."""
        if value is None:
            return SchemaAndValue.NULL
        envelope = (
            value
            if isinstance(value, dict) and set(value) == _ENVELOPE_KEYS
            else {"schema": None, "payload": value}
        )
        try:
            return self._codec.to_connect_data(topic, json.dumps(envelope).encode("utf-8"))
        except Exception as exc:
            raise SampleError(f"{where}: {exc}") from exc

    def write(self, topic: str, schema: Any, value: Any) -> Any:
        """Connect data as its envelope (null for a null value without a schema)."""
        data = self._codec.from_connect_data(topic, schema, value)
        return None if data is None else json.loads(data)

    def source_record(self, line: Mapping[str, Any], where: str) -> SourceRecord:
        """A source task's record, as the line describes it."""
        topic = _topic(line, where)
        key = self.read(topic, line.get("key"), f"{where}: key")
        value = self.read(topic, line.get("value"), f"{where}: value")
        headers = Headers()
        for name, raw in _pairs(line.get("headers"), where):
            header = self.read(topic, raw, f"{where}: header {name}")
            headers.add(name, header.value, header.schema)
        return SourceRecord(
            topic=topic,
            kafka_partition=_int_or_none(line, "partition", where),
            key_schema=key.schema,
            key=key.value,
            value_schema=value.schema,
            value=value.value,
            timestamp=_int_or_none(line, "timestamp", where),
            headers=headers,
            source_partition={},
            source_offset={},
        )

    def sink_output(self, record: ConnectRecord) -> dict[str, Any]:
        """A record the sink task would receive, its Connect data as envelopes."""
        topic = record.topic
        return {
            "topic": topic,
            "partition": record.kafka_partition,
            "timestamp": record.timestamp,
            "key": self.write(topic, record.key_schema, record.key),
            "value": self.write(topic, record.value_schema, record.value),
            "headers": [[h.key, self.write(topic, h.schema, h.value)] for h in record.headers],
        }


def read_bytes(value: Any, where: str) -> bytes | None:
    """A bytes field of a line: null, text, ``{"json": ...}`` or ``{"base64": "..."}``."""
    if value is None:
        return None
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, dict):
        if set(value) == {"json"}:
            return json.dumps(value["json"], separators=(",", ":")).encode("utf-8")
        if set(value) == {"base64"} and isinstance(value["base64"], str):
            try:
                return base64.b64decode(value["base64"], validate=True)
            except binascii.Error as exc:
                raise SampleError(f"{where}: not base64: {exc}") from None
        raise SampleError(f'{where}: expected null, a string, {{"json": ...}} or {{"base64": "..."}}')
    return json.dumps(value).encode("utf-8")  # a number or a boolean: its JSON text


def show_bytes(data: bytes | None) -> Any:
    """Bytes as a line shows them (see the module's docstring); `read_bytes` reads them back."""
    if data is None:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(data).decode("ascii")}
    try:
        parsed = json.loads(text)
    except ValueError:
        return text
    return {"json": parsed} if isinstance(parsed, dict | list) else text


def consumed_message(line: Mapping[str, Any], where: str, offset: int) -> ConsumerRecord[bytes, bytes]:
    """A message as a sink task's consumer would fetch it; `offset` unless the line gives one."""
    topic = _topic(line, where)
    key = read_bytes(line.get("key"), f"{where}: key")
    value = read_bytes(line.get("value"), f"{where}: value")
    headers = tuple(
        (name, read_bytes(raw, f"{where}: header {name}") or b"")
        for name, raw in _pairs(line.get("headers"), where)
    )
    timestamp = _int_or_none(line, "timestamp", where)
    given_offset = _int_or_none(line, "offset", where)
    return ConsumerRecord(
        topic=topic,
        partition=_int_or_none(line, "partition", where) or 0,
        offset=offset if given_offset is None else given_offset,
        timestamp=-1 if timestamp is None else timestamp,
        timestamp_type=-1 if timestamp is None else 0,
        key=key,
        value=value,
        checksum=None,
        serialized_key_size=-1 if key is None else len(key),
        serialized_value_size=-1 if value is None else len(value),
        headers=headers,
    )


def source_output(outcome: Delivered) -> dict[str, Any]:
    """What a source task's record is sent to Kafka as: its topic and partition, the converters' bytes."""
    record = outcome.record
    return {
        "topic": record.topic,
        "partition": record.kafka_partition,
        "timestamp": record.timestamp,
        "key": show_bytes(outcome.key),
        "value": show_bytes(outcome.value),
        "headers": [[name, show_bytes(data)] for name, data in outcome.headers],
    }


def _failure(failure: Failure) -> dict[str, Any]:
    return {
        "error": error_class_name(failure.error).rsplit(".", 1)[-1],
        "message": str(failure.error),
        "stage": failure.stage.value,
    }


def show_outcome(outcome: Outcome, sink: bool, data: ConnectDataFormat) -> Any:
    """One outcome as its output line's JSON value."""
    if isinstance(outcome, Delivered):
        return data.sink_output(outcome.record) if sink else source_output(outcome)
    if isinstance(outcome, Dropped):
        return None
    if isinstance(outcome, Skipped):
        return _failure(outcome.failure)
    assert isinstance(outcome, Failed)
    return {**_failure(outcome.failure), "failed": outcome.message}


def normalized(line: Any, sink: bool, where: str) -> Any:
    """An output line as compared with an expected one: absent fields take their empty values, and
    a source record's bytes fields their canonical form (so ``{"json": {"a": 1}}`` equals the text
    ``{"a":1}`` whatever its spacing); SampleError naming `where` for a bytes field it cannot read."""
    if not isinstance(line, dict) or "topic" not in line:
        return line
    filled = {"partition": None, "timestamp": None, "key": None, "value": None, "headers": [], **line}
    if sink:
        return filled
    pairs = _pairs(filled["headers"], where)
    return {
        **filled,
        "key": show_bytes(read_bytes(filled["key"], f"{where}: key")),
        "value": show_bytes(read_bytes(filled["value"], f"{where}: value")),
        "headers": [[name, show_bytes(read_bytes(raw, f"{where}: header {name}"))] for name, raw in pairs],
    }
