"""The worker's config providers, made from plugins: its own properties resolved, and its connectors'.

Config providers (Kafka's KIP-297, docs/secrets.md) are plugins, so the plugin host creates them:
`read_worker_config` reads a worker file and resolves its ``${provider:[path:]key}`` references
with the providers its ``config.providers`` names (as Kafka does at worker start), and
`worker_config_transformer` builds the `WorkerConfigTransformer` the herder resolves connector
configs with. The worker process loads one `PluginHost` and passes it to both.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from pathlib import Path

from kconnect.config.configdef import ConfigDef
from kconnect.config.connector_keys import (
    CONNECTOR_CLASS_CONFIG,
    sink_connector_config_def,
    source_connector_config_def,
)
from kconnect.config.providers import (
    CONFIG_PROVIDERS_CONFIG,
    ConfigProvider,
    provider_class_key,
    provider_param_prefix,
)
from kconnect.config.providers_resolver import transform
from kconnect.config.providers_worker import (
    ConfigProviderError,
    WorkerConfigTransformer,
    close_providers,
    provider_names,
)
from kconnect.config.values import ConfigException, ConfigType
from kconnect.errors import PluginError
from kconnect.plugin_host import PluginHost, PluginType
from kconnect.worker_config import ConfigFileError, WorkerConfig, load_properties

log = logging.getLogger(__name__)


def read_worker_config(path: str | Path, host: PluginHost) -> WorkerConfig:
    """Read and check a worker properties file, its ``${provider:[path:]key}`` references resolved
    through the providers its ``config.providers`` names (as Kafka resolves them at worker start).

    Raises ConfigFileError naming the file, and the key when a provider cannot be created or a
    value cannot be read.
    """
    source = str(path)
    try:
        props = resolve_worker_props(load_properties(path), host)
    except (ConfigProviderError, ConfigException) as exc:
        raise ConfigFileError(f"{source}: {exc}") from exc
    return WorkerConfig.from_props(props, source)


def worker_config_transformer(
    props: Mapping[str, str], host: PluginHost, restart: Callable[[str], None]
) -> WorkerConfigTransformer:
    """The providers ``config.providers`` names in the worker's `props`, for its connectors
    (called once by the herder's front door); ConfigProviderError if one cannot be created."""
    providers = create_providers(props, host)
    return WorkerConfigTransformer(providers, restart, lambda config: connector_password_keys(host, config))


def create_providers(props: Mapping[str, str], host: PluginHost) -> dict[str, ConfigProvider]:
    """One configured instance per name in ``config.providers`` (Kafka's ``Worker.initConfigTransformer``).

    A name without ``config.providers.<name>.class`` gets no provider, as in Kafka: its references
    stay unresolved (logged). ConfigProviderError, naming the key, for a class no plugin registered or
    a provider that rejects its ``param.*`` keys; the providers already created are closed then.
    """
    providers: dict[str, ConfigProvider] = {}
    try:
        for name in provider_names(props):
            class_key = provider_class_key(name)
            class_name = (props.get(class_key) or "").strip()
            if not class_name:
                log.warning("%s lists %r but %s is not set: its references stay unresolved",
                            CONFIG_PROVIDERS_CONFIG, name, class_key)  # fmt: skip
                continue
            try:
                plugin = host.config_provider(class_name)
            except PluginError as exc:
                raise ConfigProviderError(f"{class_key}: {exc}") from exc
            prefix = provider_param_prefix(name)
            params = {key[len(prefix) :]: value for key, value in props.items() if key.startswith(prefix)}
            try:
                provider: ConfigProvider = plugin.cls()
                provider.configure(params)
            except ConfigException as exc:
                key = f"{prefix}{exc.name}" if exc.name else class_key
                raise ConfigProviderError(f"{key}: {exc.message}") from exc
            except Exception as exc:
                raise ConfigProviderError(
                    f"{class_key}: {plugin.class_name} failed to start: {exc!r}"
                ) from exc
            providers[name] = provider
    except BaseException:
        close_providers(providers.values())
        raise
    return providers


def resolve_worker_props(props: Mapping[str, str], host: PluginHost) -> dict[str, str]:
    """The worker's properties with their references resolved (Kafka resolves them at worker start).

    Without ``config.providers`` the properties are returned as they are. Otherwise the providers
    are created, the references resolved, and the providers closed again: the herder creates its
    own. Raises ConfigProviderError naming the key (or ConfigException from a provider that cannot
    read a path).
    """
    if not provider_names(props):
        return dict(props)
    providers = create_providers(props, host)
    try:
        resolved = transform(providers, props).data
    finally:
        close_providers(providers.values())
    return {key: value or "" for key, value in resolved.items()}


def connector_password_keys(host: PluginHost, config: Mapping[str, str | None]) -> frozenset[str]:
    """The keys of `config` that are PASSWORD: the connector's own ConfigDef plus the framework's.

    Empty when ``connector.class`` names no installed connector.
    """
    try:
        plugin = host.connector(config.get(CONNECTOR_CLASS_CONFIG) or "")
    except PluginError:
        return frozenset()
    framework = (
        sink_connector_config_def() if plugin.type is PluginType.SINK else source_connector_config_def()
    )
    own = getattr(plugin.cls, "config_def", None)
    defs = (framework, own) if isinstance(own, ConfigDef) else (framework,)
    return frozenset(
        name
        for config_def in defs
        for name, key in config_def.config_keys.items()
        if key.type is ConfigType.PASSWORD
    )
