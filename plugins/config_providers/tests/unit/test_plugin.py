"""The plugin registers Kafka's three providers under their Java names, through the plugin host."""

from __future__ import annotations

import pytest
from kconnect.errors import PluginError
from kconnect.plugin_host import PluginHost, PluginType
from kconnect_config_providers.directory import DirectoryConfigProvider
from kconnect_config_providers.env_var import EnvVarConfigProvider
from kconnect_config_providers.file import FileConfigProvider

JAVA = "org.apache.kafka.common.config.provider."


@pytest.mark.parametrize(
    ("name", "cls"),
    [
        (f"{JAVA}FileConfigProvider", FileConfigProvider),
        ("FileConfigProvider", FileConfigProvider),
        (f"{JAVA}DirectoryConfigProvider", DirectoryConfigProvider),
        ("DirectoryConfigProvider", DirectoryConfigProvider),
        (f"{JAVA}EnvVarConfigProvider", EnvVarConfigProvider),
        ("kconnect_config_providers.env_var.EnvVarConfigProvider", EnvVarConfigProvider),
    ],
)
def test_each_provider_is_found_by_its_java_name_and_aliases(name: str, cls: type) -> None:
    assert PluginHost.load().config_provider(name).cls is cls


def test_an_unknown_class_lists_the_installed_providers() -> None:
    host = PluginHost.load()
    assert {p.class_name for p in host.plugins(PluginType.CONFIG_PROVIDER)} >= {
        f"{JAVA}FileConfigProvider",
        f"{JAVA}DirectoryConfigProvider",
        f"{JAVA}EnvVarConfigProvider",
    }
    with pytest.raises(PluginError) as error:
        host.config_provider("VaultConfigProvider")
    assert str(error.value).startswith(
        "Failed to find any class that implements ConfigProvider and which name matches VaultConfigProvider, "
        "available ConfigProviders are: PluginDesc{klass=class kconnect_config_providers."
    )


def test_a_connector_name_never_resolves_to_a_provider() -> None:
    with pytest.raises(PluginError):
        PluginHost.load().connector("FileConfigProvider")
