"""Which columns the sink writes: Confluent's FieldsMetadata rules, and its key-mode errors."""

from __future__ import annotations

import pytest
from kconnect.data.schema import (
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    SchemaBuilder,
)
from kconnect.errors import ConnectError
from kconnect_jdbc.sink.config import SINK_CONFIG_DEF, SinkSettings
from kconnect_jdbc.sink.fields import fields_metadata

VALUE = (
    SchemaBuilder.struct()
    .field("id", INT64_SCHEMA)
    .field("name", STRING_SCHEMA)
    .field("note", OPTIONAL_STRING_SCHEMA)
    .build()
)
KEY = SchemaBuilder.struct().field("id", INT64_SCHEMA).field("region", INT32_SCHEMA).build()


def settings(**config: str) -> SinkSettings:
    return SinkSettings.parse({"connection.url": "jdbc:sqlite:x.db", **config})


def test_defaults_are_confluents() -> None:
    defaults = {name: key.default for name, key in SINK_CONFIG_DEF.config_keys.items()}
    assert (defaults["insert.mode"], defaults["pk.mode"], defaults["batch.size"]) == ("insert", "none", 3000)
    assert (defaults["max.retries"], defaults["retry.backoff.ms"], defaults["table.name.format"]) == (
        10,
        3000,
        "${topic}",
    )
    assert defaults["delete.enabled"] is False and defaults["auto.create"] is False
    assert not SINK_CONFIG_DEF.config_keys["connection.url"].has_default


def test_none_mode_writes_every_value_field() -> None:
    meta = fields_metadata("t", settings(), None, VALUE)
    assert (meta.key_names, meta.non_key_names) == ((), ("id", "name", "note"))


def test_kafka_mode_puts_the_coordinates_first() -> None:
    meta = fields_metadata("t", settings(**{"pk.mode": "kafka"}), None, VALUE)
    assert [f.name for f in meta.fields][:4] == [
        "__connect_topic",
        "__connect_partition",
        "__connect_offset",
        "id",
    ]
    with pytest.raises(ConnectError, match="or exactly 3, defined fields are: \\[a, b\\]"):
        fields_metadata("t", settings(**{"pk.mode": "kafka", "pk.fields": "a,b"}), None, VALUE)


def test_record_key_mode() -> None:
    meta = fields_metadata("t", settings(**{"pk.mode": "record_key"}), KEY, VALUE)
    assert (meta.key_names, meta.non_key_names) == (("id", "region"), ("name", "note"))
    assert [f.name for f in meta.fields] == ["id", "name", "note", "region"]
    primitive = fields_metadata(
        "t", settings(**{"pk.mode": "record_key", "pk.fields": "k"}), INT64_SCHEMA, VALUE
    )
    assert primitive.key_names == ("k",)
    with pytest.raises(ConnectError, match="Need exactly one PK column defined"):
        fields_metadata("t", settings(**{"pk.mode": "record_key"}), INT64_SCHEMA, VALUE)
    with pytest.raises(
        ConnectError, match="PK mode for table 't' is RECORD_KEY, but record key schema is missing"
    ):
        fields_metadata("t", settings(**{"pk.mode": "record_key"}), None, VALUE)


def test_record_value_mode_and_whitelist() -> None:
    meta = fields_metadata(
        "t",
        settings(**{"pk.mode": "record_value", "pk.fields": "id", "fields.whitelist": "note"}),
        None,
        VALUE,
    )
    assert (meta.key_names, meta.non_key_names) == (("id",), ("note",))
    with pytest.raises(ConnectError, match="but record value schema does not contain field: nope"):
        fields_metadata("t", settings(**{"pk.mode": "record_value", "pk.fields": "nope"}), None, VALUE)
