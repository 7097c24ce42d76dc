"""Installed plugins, their config keys (KIP-769) and config validation (Kafka's ConnectorPluginsResource)."""

from __future__ import annotations

from typing import Annotated

from kconnect.config.connector_keys import CONNECTOR_CLASS_CONFIG
from kconnect.errors import BadRequestError, NotFoundError, PluginError
from kconnect.plugin_versions import PluginVersionError
from litestar import Controller, get, put
from litestar.params import Body, PathParameter, QueryParameter

from kconnect_rest import bodies, wire
from kconnect_rest.bodies import ConfigBody
from kconnect_rest.dependencies import HerderDep
from kconnect_rest.errors import error_responses
from kconnect_rest.params import boolean_query, java_boolean

PluginName = Annotated[str, PathParameter(description="Class name, Python path or alias")]


class ConnectorPluginsController(Controller):
    """`/connector-plugins`."""

    path = "/connector-plugins"
    tags = ["connector-plugins"]

    @get("/", summary="Installed plugins", responses=error_responses(400))
    async def list_plugins(
        self,
        herder: HerderDep,
        connectors_only: Annotated[
            str | None, boolean_query("connectorsOnly", "false adds converters, transforms, predicates", True)
        ] = None,
    ) -> list[wire.PluginInfo]:
        """Sinks, then sources, then (``connectorsOnly=false``) the other kinds."""
        plugins = herder.plugins(connectors_only=java_boolean(connectors_only, True))
        infos = (wire.plugin_info(p) for p in plugins)
        return [info for info in infos if info is not None]

    @get(
        "/{plugin:str}/config",
        summary="A plugin's config keys (KIP-769)",
        responses=error_responses(400, 404),
    )
    async def plugin_config(
        self,
        herder: HerderDep,
        plugin: PluginName,
        version: Annotated[
            str | None,
            QueryParameter(
                name="version", description="A version or Maven range (KIP-891); the newest by default"
            ),
        ] = None,
    ) -> list[wire.ConfigKeyInfo]:
        """The plugin's own keys (of the newest version in `version`), then the framework's for
        connectors; 400 with Kafka's text when no installed version is in it."""
        try:
            keys = herder.plugin_config(plugin, version)
        except PluginVersionError as missing:
            raise BadRequestError(str(missing)) from None
        except PluginError:
            raise NotFoundError(f"Unknown plugin {plugin}.") from None
        return [wire.config_key_info(key) for key in keys]

    @put(
        "/{plugin:str}/config/validate",
        summary="Validate a connector config",
        responses=error_responses(400, 404, 409, 413, 415, 500),
    )
    async def validate(
        self,
        herder: HerderDep,
        plugin: PluginName,
        data: Annotated[
            ConfigBody,
            Body(description="The config to validate", schema_extra=bodies.CONNECTOR_CONFIG_SCHEMA),
        ],
    ) -> wire.ConfigInfos:
        """200 with every key's definition, value and errors, even when the config is invalid."""
        config = bodies.string_map(data)
        bodies.plugin_matches(config.get(CONNECTOR_CLASS_CONFIG), plugin)
        return wire.config_infos(await herder.validate_connector_config(config))
