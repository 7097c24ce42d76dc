"""Connector config validation for the herder: the validate endpoint and every create / update.

Steps, as Kafka's AbstractHerder.validateConnectorConfig: require ``connector.class``; find the
plugin; validate the framework's source or sink keys plus the connector's own (its `config_def`
and `validate`, user code run in a thread); render Kafka's ConfigInfos. Create / update then
reject a config with errors with Kafka's multi-error message, naming the real connector type.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any

from kconnect.config import (
    ConfigDef,
    ConfigInfos,
    ConfigKeyInfo,
    build_config_infos,
    connector_plugin_config,
    invalid_config_message,
    sink_connector_config_def,
    source_connector_config_def,
)
from kconnect.errors import BadRequestError
from kconnect.herder.model import ConnectorType
from kconnect.plugin_host import PluginDesc, PluginHost, PluginType

log = logging.getLogger(__name__)

CONNECTOR_CLASS_CONFIG = "connector.class"
NAME_CONFIG = "name"


def _java_map(config: Mapping[str, Any]) -> str:
    return "{" + ", ".join(f"{k}={v}" for k, v in config.items()) + "}"


class ConnectorValidator:
    """Validates connector configs and answers plugin questions, on behalf of the herder."""

    def __init__(self, plugins: PluginHost) -> None:
        self._plugins = plugins

    def plugin(self, config: Mapping[str, str]) -> PluginDesc:
        """The connector plugin ``connector.class`` names; PluginError if none."""
        return self._plugins.connector(config.get(CONNECTOR_CLASS_CONFIG, ""))

    def connector_type(self, config: Mapping[str, str]) -> ConnectorType:
        """SOURCE, SINK, or UNKNOWN when ``connector.class`` names no installed connector."""
        try:
            plugin = self._plugins.connector(config.get(CONNECTOR_CLASS_CONFIG, ""))
        except Exception:
            return ConnectorType.UNKNOWN
        return ConnectorType.SINK if plugin.type is PluginType.SINK else ConnectorType.SOURCE

    async def validate(self, config: Mapping[str, str | None]) -> ConfigInfos:
        """Kafka's ConfigInfos for `config`; BadRequestError without ``connector.class``, PluginError
        when it names no installed connector."""
        connector_class = config.get(CONNECTOR_CLASS_CONFIG)
        if not connector_class:
            raise BadRequestError(f"Connector config {_java_map(config)} contains no connector type")
        plugin = self._plugins.connector(connector_class)
        return await asyncio.to_thread(self._validate_with, plugin, config)

    def _validate_with(self, plugin: PluginDesc, config: Mapping[str, str | None]) -> ConfigInfos:
        sink = plugin.type is PluginType.SINK
        common = sink_connector_config_def() if sink else source_connector_config_def()
        own_def: ConfigDef = getattr(plugin.cls, "config_def", None) or ConfigDef()
        instance = plugin.cls()
        return build_config_infos(
            str(config.get(NAME_CONFIG) or ""),
            plugin.class_name,
            common,
            own_def,
            config,
            instance.validate,
            sink=sink,
        )

    async def check(self, config: Mapping[str, str]) -> None:
        """What create / update require: a valid config (BadRequestError with Kafka's multi-error text).

        The framework's ``name`` key carries Kafka's name rules (not empty, no control characters).
        """
        infos = await self.validate(config)
        # The endpoint named in the message takes a plugin name: the connector class as given works.
        message = invalid_config_message(infos, config.get(CONNECTOR_CLASS_CONFIG, ""))
        if message is not None:
            raise BadRequestError(message)

    def plugins(self, connectors_only: bool) -> list[PluginDesc]:
        """Sinks, then sources, then (unless `connectors_only`) the other kinds."""
        kinds = [PluginType.SINK, PluginType.SOURCE]
        if not connectors_only:
            kinds += [
                PluginType.TRANSFORMATION,
                PluginType.PREDICATE,
                PluginType.CONVERTER,
                PluginType.HEADER_CONVERTER,
            ]
        return [p for kind in kinds for p in self._plugins.plugins(kind)]

    def plugin_config(self, plugin_name: str) -> list[ConfigKeyInfo]:
        """The plugin's config keys, then the framework's connector keys (KIP-769); PluginError if unknown."""
        kinds = [t for t in PluginType if t is not PluginType.REST_EXTENSION]
        plugin = self._plugins.find(plugin_name, *kinds)
        own_def: ConfigDef = getattr(plugin.cls, "config_def", None) or ConfigDef()
        framework: ConfigDef | None = None
        if plugin.type is PluginType.SINK:
            framework = sink_connector_config_def()
        elif plugin.type is PluginType.SOURCE:
            framework = source_connector_config_def()
        return connector_plugin_config(own_def, framework)
