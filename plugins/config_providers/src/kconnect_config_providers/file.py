"""FileConfigProvider: values from a Java properties file (``${file:/path/to/file.properties:key}``)."""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping

import javaproperties
from kconnect.config import ConfigException
from kconnect.config.providers import ConfigData

from kconnect_config_providers.allowed_paths import ALLOWED_PATHS_CONFIG, AllowedPaths
from kconnect_config_providers.params import check_params

log = logging.getLogger(__name__)

NOT_CONFIGURED = "The provider has not been configured yet."


class FileConfigProvider:
    """Kafka's ``FileConfigProvider``: the path is a properties file, the keys are its keys.

    Parameter ``allowed.paths`` (KIP-993): a comma-separated list of absolute paths; a file outside
    them is not read (its references stay as written, and a warning is logged).
    """

    java_class_names = ("org.apache.kafka.common.config.provider.FileConfigProvider",)

    def __init__(self) -> None:
        self._allowed: AllowedPaths | None = None

    def configure(self, configs: Mapping[str, str]) -> None:
        """Read ``allowed.paths``; ConfigException for a path that is not absolute or does not exist."""
        check_params(type(self).__name__, configs, (ALLOWED_PATHS_CONFIG,))
        self._allowed = AllowedPaths(configs.get(ALLOWED_PATHS_CONFIG))

    def get(self, path: str, keys: Collection[str] | None = None) -> ConfigData:
        """The properties in the file at `path` (only `keys` when given); empty for an empty path or a
        path outside ``allowed.paths``; ConfigException with Kafka's text when the file cannot be read."""
        if self._allowed is None:
            raise RuntimeError(NOT_CONFIGURED)
        if not path:
            return ConfigData({})
        file_path = self._allowed.parse_untrusted_path(path)
        if file_path is None:
            log.warning("The path %s is not allowed to be accessed", path)
            return ConfigData({})
        try:
            with open(file_path, encoding="utf-8") as reader:
                properties = javaproperties.load(reader)
        except (OSError, ValueError) as exc:
            log.error("Could not read properties from file %s: %s", path, exc)
            raise ConfigException(f"Could not read properties from file {path}") from exc
        if keys is None:
            return ConfigData(dict(properties))
        return ConfigData({key: properties[key] for key in keys if key in properties})

    def close(self) -> None:
        """Nothing to release."""
