"""`GET /connector-plugins/{plugin}/config` shows a connector's `version()` as the default of
``connector.plugin.version``, as validate does and as Kafka's enrichedConfigDef does; with
``?version=`` (KIP-891) the keys of the newest installed version in it, Kafka's errors otherwise."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from kconnect import hookimpl
from kconnect.errors import BadRequestError
from kconnect.herder.validation import ConnectorValidator
from kconnect.plugin_host import PluginHost, PluginRegistry
from kconnect.plugin_versions import PluginVersionError

from tests.connectors import IdleSource, VersionedSource

VERSION_KEY = "connector.plugin.version"


class _Plugin:
    @hookimpl
    def register_connectors(self, registry: PluginRegistry) -> None:
        registry.add(VersionedSource, aliases=["VersionedSource"])
        registry.add(IdleSource, aliases=["UnversionedSource"])  # its version is Kafka's "undefined"


@pytest.fixture(scope="module")
def validator() -> ConnectorValidator:
    return ConnectorValidator(PluginHost.load(extra_plugins=[_Plugin()]), {})


def _plugin_config_default(validator: ConnectorValidator, plugin: str, version: str | None = None) -> Any:
    keys = {key.name: key for key in validator.plugin_config(plugin, version)}
    return keys[VERSION_KEY].default_value


def _validate_default(validator: ConnectorValidator, plugin: str) -> Any:
    infos = asyncio.run(validator.validate({"connector.class": plugin, "name": "x", "topic": "t"}))
    body = infos.to_json()
    entry = next(c for c in body["configs"] if c["definition"] and c["definition"]["name"] == VERSION_KEY)
    return entry["definition"]["default_value"]


@pytest.mark.parametrize(("plugin", "version"), [("VersionedSource", "2.5.0"), ("FileStreamSink", "0.1.0")])
def test_the_plugin_config_shows_the_connectors_version_as_validate_does(
    validator: ConnectorValidator, plugin: str, version: str
) -> None:
    assert _plugin_config_default(validator, plugin) == version
    assert _validate_default(validator, plugin) == version


def test_a_connector_without_a_version_shows_none(validator: ConnectorValidator) -> None:
    assert _plugin_config_default(validator, "UnversionedSource") is None


def test_other_plugins_have_no_connector_version_key(validator: ConnectorValidator) -> None:
    assert VERSION_KEY not in {key.name for key in validator.plugin_config("JsonConverter")}


def _by_name(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["value"]["name"]: c["value"] for c in body["configs"]}


@pytest.mark.parametrize("wanted", ["2.5.0", "[2.5.0]", "[2.0,3.0)", "(,3)", "latest"])
def test_a_version_range_holding_the_connectors_version_validates(
    validator: ConnectorValidator, wanted: str
) -> None:
    config = {"connector.class": "VersionedSource", "name": "x", "topic": "t", VERSION_KEY: wanted}
    infos = asyncio.run(validator.validate(config))
    assert _by_name(infos.to_json())[VERSION_KEY]["errors"] == []
    assert "offsets.storage.topic" in _by_name(infos.to_json()), "a source's keys are validated"


def test_a_range_no_version_is_in_is_kafkas_error_on_the_class_and_the_version(
    validator: ConnectorValidator,
) -> None:
    config = {"connector.class": "VersionedSource", "name": "x", "topic": "t", VERSION_KEY: "[3.0,4.0)"}
    infos = asyncio.run(validator.validate(config))
    message = (
        "Plugin tests.connectors.VersionedSource not found that matches the version range [3.0,4.0), "
        "available versions: [2.5.0]"
    )
    configs = _by_name(infos.to_json())
    assert infos.error_count == 2
    assert configs["connector.class"]["errors"] == [message]
    assert configs[VERSION_KEY]["errors"] == [message]
    assert configs[VERSION_KEY]["recommended_values"] == ["2.5.0"]
    # As Kafka: nothing past the keys every connector has is validated.
    assert "offsets.storage.topic" not in configs and "exactly.once.support" not in configs
    with pytest.raises(BadRequestError, match="2 error"):
        asyncio.run(validator.check(config))


def test_the_plugin_config_of_a_version_or_range(validator: ConnectorValidator) -> None:
    for wanted in ("2.5.0", "[2.0,3.0)", "latest", None):
        assert _plugin_config_default(validator, "VersionedSource", wanted) == "2.5.0"
    with pytest.raises(PluginVersionError) as missing:
        validator.plugin_config("VersionedSource", "[3.0,4.0)")
    assert str(missing.value).endswith(
        "not found that matches the version range [3.0,4.0), available versions: [2.5.0]"
    )
    with pytest.raises(BadRequestError, match=r"^Invalid version specification: \[3\.0$"):
        validator.plugin_config("VersionedSource", "[3.0")
