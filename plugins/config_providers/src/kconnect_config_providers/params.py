"""The ``param.*`` keys a provider takes: anything else is an error, never silently ignored."""

from __future__ import annotations

from collections.abc import Collection, Mapping

from kconnect.config import ConfigException


def check_params(provider: str, params: Mapping[str, str], known: Collection[str]) -> None:
    """ConfigException naming the first parameter of `params` that `provider` does not take.

    Kafka's providers ignore unknown parameters; a misspelt ``allowed.paths`` would then open every
    path, so kconnect refuses it at worker start (docs/differences.md).
    """
    for key in params:
        if key not in known:
            takes = ", ".join(sorted(known)) or "no parameters"
            raise ConfigException(f"Unknown parameter {key}: {provider} takes {takes}", name=key)
