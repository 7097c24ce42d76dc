"""The ``config_providers`` plugin: registers Kafka's three config providers with kconnect.

Each answers to its Java class name (``org.apache.kafka.common.config.provider.FileConfigProvider``)
and, through the plugin host's dotted tails, to its class name alone (``FileConfigProvider``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kconnect.hookspecs import hookimpl

from kconnect_config_providers.directory import DirectoryConfigProvider
from kconnect_config_providers.env_var import EnvVarConfigProvider
from kconnect_config_providers.file import FileConfigProvider

if TYPE_CHECKING:
    from kconnect.plugin_host import PluginRegistry

CONFIG_PROVIDERS = (FileConfigProvider, DirectoryConfigProvider, EnvVarConfigProvider)


@hookimpl
def register_config_providers(registry: PluginRegistry) -> None:
    """Register FileConfigProvider, DirectoryConfigProvider and EnvVarConfigProvider."""
    for cls in CONFIG_PROVIDERS:
        registry.add(cls)
