"""EnvVarConfigProvider: values from the worker's environment variables (``${env:DB_PASSWORD}``)."""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Collection, Mapping

from kconnect.config import ConfigException
from kconnect.config.providers import ConfigData

from kconnect_config_providers.file import NOT_CONFIGURED
from kconnect_config_providers.params import check_params

log = logging.getLogger(__name__)

ALLOWLIST_PATTERN_CONFIG = "allowlist.pattern"


class EnvVarConfigProvider:
    """Kafka's ``EnvVarConfigProvider``: keys are environment variable names; a path is an error.

    The environment is read when the worker creates the provider (at start-up). Parameter
    ``allowlist.pattern``: a regular expression a variable's whole name must match to be seen
    (default ``.*``: every variable).
    """

    java_class_names = ("org.apache.kafka.common.config.provider.EnvVarConfigProvider",)

    def __init__(self, environment: Mapping[str, str] | None = None) -> None:
        """`environment` replaces the process's environment (for tests)."""
        self._environment = dict(os.environ if environment is None else environment)
        self._visible: dict[str, str] | None = None

    def configure(self, configs: Mapping[str, str]) -> None:
        """Read ``allowlist.pattern``; ConfigException when it is not a valid regular expression."""
        check_params(type(self).__name__, configs, (ALLOWLIST_PATTERN_CONFIG,))
        raw = configs.get(ALLOWLIST_PATTERN_CONFIG)
        if raw is None:
            log.info("No pattern for environment variables provided. Using default pattern '(.*)'.")
            raw = ".*"
        try:
            pattern = re.compile(raw)
        except re.error as exc:
            reason = f"not a valid regular expression: {exc}"
            raise ConfigException.invalid(ALLOWLIST_PATTERN_CONFIG, raw, reason) from exc
        self._visible = {name: value for name, value in self._environment.items() if pattern.fullmatch(name)}

    def get(self, path: str, keys: Collection[str] | None = None) -> ConfigData:
        """The allowed variables (only `keys` when given); ConfigException with Kafka's text for a path."""
        if path:
            log.error("Path is not supported for EnvVarConfigProvider, invalid value '%s'", path)
            raise ConfigException(f"Path is not supported for EnvVarConfigProvider, invalid value '{path}'")
        if self._visible is None:
            raise RuntimeError(NOT_CONFIGURED)
        if keys is None:
            return ConfigData(dict(self._visible))
        return ConfigData({key: self._visible[key] for key in keys if key in self._visible})

    def close(self) -> None:
        """Nothing to release."""
