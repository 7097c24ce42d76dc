"""Kafka's ``allowed.paths`` parameter (KIP-993): the paths a file-reading provider may read under."""

from __future__ import annotations

import os
from pathlib import PurePath

from kconnect.config import ConfigException

ALLOWED_PATHS_CONFIG = "allowed.paths"


class AllowedPaths:
    """The parsed ``allowed.paths`` value (Kafka's ``AllowedPaths``): None or empty allows every path."""

    def __init__(self, value: str | None) -> None:
        """Parse `value`, a comma-separated list of absolute paths that exist.

        Raises ConfigException with Kafka's text for a path that is not absolute or does not exist.
        As in Kafka, the entries are split on commas and not trimmed.
        """
        self._allowed: list[PurePath] | None = None
        if value:
            allowed = []
            for entry in value.split(","):
                normalised = _normalise(entry)
                if not os.path.isabs(normalised):
                    raise ConfigException(f"Path {normalised} is not absolute", name=ALLOWED_PATHS_CONFIG)
                if not os.path.exists(normalised):
                    raise ConfigException(f"Path {normalised} does not exist", name=ALLOWED_PATHS_CONFIG)
                allowed.append(PurePath(normalised))
            self._allowed = allowed

    def parse_untrusted_path(self, path: str) -> str | None:
        """`path` if it may be read (normalised when ``allowed.paths`` is set), else None.

        A path is allowed when, once normalised (``.`` and ``..`` removed), it lies under one of the
        allowed paths, compared component by component.
        """
        if self._allowed is None:
            return path
        normalised = _normalise(path)
        candidate = PurePath(normalised)
        if any(candidate.is_relative_to(allowed) for allowed in self._allowed):
            return normalised
        return None


def _normalise(path: str) -> str:
    """Java's ``Path.normalize``: ``.`` and ``..`` removed lexically, no file system access."""
    return os.path.normpath(path) if path else path
