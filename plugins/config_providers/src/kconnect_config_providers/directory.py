"""DirectoryConfigProvider: one value per file of a directory (``${directory:/run/secrets:db-password}``).

The shape of Kubernetes and Docker secrets mounts: each regular file's name is a key, its content
(UTF-8, unchanged: a trailing newline stays) the value.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Collection, Mapping

from kconnect.config import ConfigException
from kconnect.config.providers import ConfigData

from kconnect_config_providers.allowed_paths import ALLOWED_PATHS_CONFIG, AllowedPaths
from kconnect_config_providers.file import NOT_CONFIGURED
from kconnect_config_providers.params import check_params

log = logging.getLogger(__name__)


class DirectoryConfigProvider:
    """Kafka's ``DirectoryConfigProvider``: the path is a directory, the keys are its regular files.

    Subdirectories and other non-regular entries are skipped; a symbolic link to a regular file is
    read (Kubernetes mounts secrets as such links). Parameter ``allowed.paths`` as for
    FileConfigProvider.
    """

    java_class_names = ("org.apache.kafka.common.config.provider.DirectoryConfigProvider",)

    def __init__(self) -> None:
        self._allowed: AllowedPaths | None = None

    def configure(self, configs: Mapping[str, str]) -> None:
        """Read ``allowed.paths``; ConfigException for a path that is not absolute or does not exist."""
        check_params(type(self).__name__, configs, (ALLOWED_PATHS_CONFIG,))
        self._allowed = AllowedPaths(configs.get(ALLOWED_PATHS_CONFIG))

    def get(self, path: str, keys: Collection[str] | None = None) -> ConfigData:
        """The files of the directory `path` (only those named in `keys` when given); empty, with a
        warning, for a path that is not an allowed directory; ConfigException with Kafka's text when
        the directory cannot be listed or a file cannot be read."""
        if self._allowed is None:
            raise RuntimeError(NOT_CONFIGURED)
        if not path:
            return ConfigData({})
        directory = self._allowed.parse_untrusted_path(path)
        if directory is None:
            log.warning("The path %s is not allowed to be accessed", path)
            return ConfigData({})
        if not os.path.isdir(directory):
            log.warning("The path %s is not a directory", path)
            return ConfigData({})
        try:
            names = os.listdir(directory)
        except OSError as exc:
            log.error("Could not list directory %s: %s", directory, exc)
            raise ConfigException(f"Could not list directory {directory}") from exc
        wanted = set(keys) if keys is not None else None
        data: dict[str, str] = {}
        for name in names:
            file_path = os.path.join(directory, name)
            if (wanted is None or name in wanted) and os.path.isfile(file_path):
                data[name] = _read(file_path, name)
        return ConfigData(data)

    def close(self) -> None:
        """Nothing to release."""


def _read(file_path: str, name: str) -> str:
    try:
        with open(file_path, "rb") as file:
            return file.read().decode("utf-8", errors="replace")
    except OSError as exc:
        log.error("Could not read file %s for property %s: %s", file_path, name, exc)
        raise ConfigException(f"Could not read file {file_path} for property {name}") from exc
