"""A config provider for unit tests of the config-provider machinery."""

from __future__ import annotations

from collections.abc import Collection, Mapping

from kconnect.config.providers import ConfigData


class ExpiringProvider:
    """Answers every key with ``<key>-value``, valid for the ``ttl.ms`` parameter (-1: no TTL)."""

    def configure(self, configs: Mapping[str, str]) -> None:
        self.ttl = int(configs.get("ttl.ms", "-1"))

    def get(self, path: str, keys: Collection[str] | None = None) -> ConfigData:
        return ConfigData({key: f"{key}-value" for key in keys or ()}, self.ttl)

    def close(self) -> None:
        pass
