"""Converters and transformation chains built for a task from worker and connector properties."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import pytest
from kconnect import ConnectError, SourceRecord, hookimpl
from kconnect.config import ConfigDef
from kconnect.data.schema import STRING_SCHEMA
from kconnect.plugin_host import PluginHost, PluginRegistry
from kconnect.runtime.task_plugins import build_task_plugins


class Upper:
    config_def: ClassVar[ConfigDef | None] = None

    def configure(self, configs: Mapping[str, Any]) -> None:
        self.suffix = configs.get("suffix", "")

    def apply(self, record: Any) -> Any:
        return record.new_record(value=record.value.upper() + self.suffix)

    def close(self) -> None: ...


class DropEmpty:
    config_def: ClassVar[ConfigDef | None] = None

    def configure(self, configs: Mapping[str, Any]) -> None: ...

    def apply(self, record: Any) -> Any:
        return None if not record.value else record

    def close(self) -> None: ...


class TopicIs:
    config_def: ClassVar[ConfigDef | None] = None

    def configure(self, configs: Mapping[str, Any]) -> None:
        self.topic = configs["topic"]

    def test(self, record: Any) -> bool:
        return bool(record.topic == self.topic)

    def close(self) -> None: ...


class _Plugin:
    @hookimpl
    def register_transforms(self, registry: PluginRegistry) -> None:
        registry.add(Upper, aliases=["Upper"])
        registry.add(DropEmpty, aliases=["DropEmpty"])

    @hookimpl
    def register_predicates(self, registry: PluginRegistry) -> None:
        registry.add(TopicIs, aliases=["TopicIs"])


@pytest.fixture(scope="module")
def host() -> PluginHost:
    return PluginHost.load(extra_plugins=[_Plugin()])


def _record(topic: str, value: str) -> SourceRecord:
    return SourceRecord(topic=topic, value_schema=STRING_SCHEMA, value=value)


def test_converters_default_to_json_and_connector_overrides_worker(host: PluginHost) -> None:
    worker = {"key.converter": "StringConverter", "value.converter.schemas.enable": "false"}
    plugins = build_task_plugins(host, worker, {})
    assert type(plugins.key_converter).__name__ == "StringConverter"
    assert type(plugins.value_converter).__name__ == "JsonConverter"
    assert plugins.value_converter.from_connect_data("t", STRING_SCHEMA, "x") == b'"x"'
    connector = {"value.converter": "org.apache.kafka.connect.json.JsonConverter"}
    override = build_task_plugins(host, worker, connector)
    # The connector named its own converter, so the worker's value.converter.* settings do not apply.
    assert override.value_converter.from_connect_data("t", STRING_SCHEMA, "x") == (
        b'{"schema":{"type":"string","optional":false},"payload":"x"}'
    )


def test_transform_chain_with_predicate_and_negate(host: PluginHost) -> None:
    connector = {
        "transforms": "up, drop",
        "transforms.up.type": "Upper",
        "transforms.up.suffix": "!",
        "transforms.up.predicate": "isA",
        "transforms.drop.type": "DropEmpty",
        "transforms.drop.predicate": "isA",
        "transforms.drop.negate": "true",
        "predicates": "isA",
        "predicates.isA.type": "TopicIs",
        "predicates.isA.topic": "a",
    }
    plugins = build_task_plugins(host, {}, connector)
    assert plugins.transform(_record("a", "hi")).value == "HI!"  # type: ignore[union-attr]
    assert plugins.transform(_record("b", "hi")).value == "hi"  # type: ignore[union-attr]
    assert plugins.transform(_record("b", "")) is None
    assert plugins.transform(_record("a", "")).value == "!"  # type: ignore[union-attr]


def test_bad_transform_names_the_key(host: PluginHost) -> None:
    with pytest.raises(ConnectError, match=r"transforms\.x\.type: .*NoSuchTransform"):
        build_task_plugins(host, {}, {"transforms": "x", "transforms.x.type": "NoSuchTransform"})
    with pytest.raises(ConnectError, match=r"transforms\.x\.predicate: unknown predicate alias 'p'"):
        connector = {"transforms": "x", "transforms.x.type": "Upper", "transforms.x.predicate": "p"}
        build_task_plugins(host, {}, connector)
