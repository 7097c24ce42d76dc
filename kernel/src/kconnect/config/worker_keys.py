"""Kafka Connect worker keys that kconnect checks but that change nothing in how it runs.

Java worker files carry them, so they must keep starting; each is validated as Kafka validates it
(a bad value stops the worker with Kafka's text), and each is a row in ``docs/differences.md``
saying why it has no effect. ``plugin.discovery`` is checked here and acted on by kconnect-java, which
hands it to Kafka's own scanner for the Java plugins on ``plugin.path``.

``exactly.once.source.support`` (KIP-618) is a key of distributed workers only, as in Kafka (a
standalone worker does not read it): `ExactlyOnceSourceSupport.from_props` parses it and is what
the runtime asks (`kconnect.runtime.exactly_once` for the source tasks' transactions).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from enum import Enum
from typing import Final

from kconnect.config.validators import java_hash_set_order

log = logging.getLogger(__name__)

PLUGIN_DISCOVERY_CONFIG: Final = "plugin.discovery"
PLUGIN_DISCOVERY_VALUES: Final = ("ONLY_SCAN", "HYBRID_WARN", "HYBRID_FAIL", "SERVICE_LOAD")
EXACTLY_ONCE_SOURCE_SUPPORT_CONFIG: Final = "exactly.once.source.support"
EXACTLY_ONCE_SOURCE_SUPPORT_VALUES: Final = ("disabled", "preparing", "enabled")
EXACTLY_ONCE_SOURCE_SUPPORT_DOC: Final = (
    "Whether source connectors in this cluster get exactly-once delivery: records and their source offsets "
    "are written in producer transactions, and a task's previous generation is fenced out before a new one "
    "starts. 'enabled' turns it on in a new cluster; an existing cluster first sets 'preparing' on every "
    "worker, then 'enabled' (each change may be a rolling restart). 'disabled' (the default) turns it off."
)
#: Distributed keys about re-reading the config topic when a worker falls behind, and their defaults.
SYNC_KEYS: Final = {"worker.sync.timeout.ms": 3000, "worker.unsync.backoff.ms": 300000}


class ExactlyOnceSourceSupport(Enum):
    """A distributed worker's ``exactly.once.source.support`` (Kafka's ExactlyOnceSourceSupport)."""

    DISABLED = "disabled"
    PREPARING = "preparing"
    ENABLED = "enabled"

    @classmethod
    def from_props(cls, props: Mapping[str, str]) -> ExactlyOnceSourceSupport:
        """The worker's level (any case, trimmed; DISABLED when unset). ValueError for another value:
        `check_distributed_keys` gives Kafka's text for it at worker start."""
        raw = props.get(EXACTLY_ONCE_SOURCE_SUPPORT_CONFIG)
        return cls.DISABLED if raw is None else cls(raw.strip().lower())

    @property
    def enabled(self) -> bool:
        """Whether source tasks write in transactions and validation checks exactly-once requests
        (Kafka's ``exactlyOnceSourceEnabled``): ENABLED only."""
        return self is ExactlyOnceSourceSupport.ENABLED

    @property
    def uses_transactional_leader(self) -> bool:
        """Whether the leader writes the config topic in transactions and fences task generations:
        PREPARING and ENABLED (the rolling upgrade's first step already needs it)."""
        return self is not ExactlyOnceSourceSupport.DISABLED


def check_worker_keys(props: Mapping[str, str]) -> list[str]:
    """Kafka's errors for the keys of every worker (``<key>: <message>``); empty when all are fine.

    Logs once, at INFO, each key that is set and has no effect in kconnect.
    """
    errors: list[str] = []
    raw = props.get(PLUGIN_DISCOVERY_CONFIG)
    if raw is not None:
        if raw.strip().upper() not in PLUGIN_DISCOVERY_VALUES:
            key = PLUGIN_DISCOVERY_CONFIG
            errors.append(
                f"{key}: Invalid value {raw} for configuration {key}: "
                f"String must be one of (case insensitive): {', '.join(PLUGIN_DISCOVERY_VALUES)}"
            )
        else:
            log.info(
                "%s applies to the Java plugins on plugin.path (kconnect-java); Python plugins are "
                "found through pip entry points",
                PLUGIN_DISCOVERY_CONFIG,
            )
    return errors


def check_distributed_keys(props: Mapping[str, str]) -> list[str]:
    """Kafka's errors for the keys only a distributed worker has; empty when all are fine."""
    errors: list[str] = []
    for key in SYNC_KEYS:
        if key in props:
            try:
                int(props[key].strip())
            except ValueError:
                errors.append(
                    f"{key}: Invalid value {props[key]} for configuration {key}: Not a number of type INT"
                )
            else:
                log.info(
                    "%s has no effect: kconnect reads the config topic to the end before it rejoins", key
                )
    eos = props.get(EXACTLY_ONCE_SOURCE_SUPPORT_CONFIG)
    if eos is not None:
        value = eos.strip().lower()
        if value not in EXACTLY_ONCE_SOURCE_SUPPORT_VALUES:
            errors.append(
                f"{EXACTLY_ONCE_SOURCE_SUPPORT_CONFIG}: Invalid value {eos} for configuration "
                f"{EXACTLY_ONCE_SOURCE_SUPPORT_CONFIG}: String must be one of (case insensitive): "
                f"{', '.join(java_hash_set_order(v.upper() for v in EXACTLY_ONCE_SOURCE_SUPPORT_VALUES))}"
            )
    return errors
