"""Config providers (Kafka's KIP-297): what a plugin implements to supply values for ``${...}`` references.

A worker names its providers in its properties, as Kafka's WorkerConfig reads them::

    config.providers=file,env
    config.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider
    config.providers.file.param.allowed.paths=/etc/kafka/secrets
    config.providers.env.class=EnvVarConfigProvider

and a connector config refers to a value as ``${provider:[path:]key}``, e.g.
``${file:/etc/kafka/secrets/db.properties:password}``. The reference is resolved when the connector or
a task starts (`kconnect.config.providers_resolver`); stored configs and REST answers keep it.

A provider is registered through the ``register_config_providers`` hook, like any plugin::

    @hookimpl
    def register_config_providers(registry):
        registry.add(VaultConfigProvider, aliases=["vault"])

The worker creates one instance per name in ``config.providers``, calls `configure` with that name's
``param.*`` keys (prefix stripped), and `close` at shutdown. Instances may be called from several
threads at once.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Final, Protocol, runtime_checkable

CONFIG_PROVIDERS_CONFIG: Final = "config.providers"
"""The worker key naming the providers (Kafka's ``WorkerConfig.CONFIG_PROVIDERS_CONFIG``), a LIST."""

PROVIDER_JAVA_INTERFACE: Final = "org.apache.kafka.common.config.provider.ConfigProvider"


def provider_class_key(name: str) -> str:
    """``config.providers.<name>.class``: the class (Java name, Python path or alias) of provider `name`."""
    return f"{CONFIG_PROVIDERS_CONFIG}.{name}.class"


def provider_param_prefix(name: str) -> str:
    """``config.providers.<name>.param.``: the prefix of the keys handed to provider `name`'s `configure`."""
    return f"{CONFIG_PROVIDERS_CONFIG}.{name}.param."


@dataclass(frozen=True)
class ConfigData:
    """What a provider answers (Kafka's ``ConfigData``): values by key, and how long they stay valid.

    `ttl` is in milliseconds; None means the values never expire. A connector whose config used a
    value with a TTL is restarted when it expires, unless its ``config.action.reload`` is ``none``.
    """

    data: Mapping[str, str] = field(default_factory=dict)
    ttl: int | None = None


@runtime_checkable
class ConfigProvider(Protocol):
    """A source of config values (Kafka's ``org.apache.kafka.common.config.provider.ConfigProvider``).

    Implementations are instantiated with no arguments by the worker, then configured once. A key
    the provider does not have is left out of the answer (the reference then stays as written);
    a path it cannot read raises `kconnect.config.ConfigException` naming the path.
    """

    def configure(self, configs: Mapping[str, str]) -> None:
        """Take the provider's parameters (``config.providers.<name>.param.*``, prefix stripped).

        Called once by the worker at start-up, before any `get`; a bad parameter raises
        `kconnect.config.ConfigException` and stops the worker from starting.
        """

    def get(self, path: str, keys: Collection[str] | None = None) -> ConfigData:
        """The data at `path`: every key (Kafka's ``get(path)``) or only `keys` (``get(path, keys)``).

        `path` is ``""`` for a reference without one (``${env:HOME}``). Called when a connector or
        task starts, and when a config is validated, possibly from several threads at once.
        """

    def close(self) -> None:
        """Release what the provider holds; called once when the worker stops."""
