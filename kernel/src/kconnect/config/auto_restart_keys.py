"""The connector keys of automatic restarts (self-healing): a kconnect extension of Kafka's keys.

A connector that sets ``auto.restart.enable=true`` has its FAILED connector instance and FAILED
tasks restarted by the worker that runs them, on Strimzi's schedule: the n-th restart (n from 0)
waits ``auto.restart.backoff.ms`` x n x (n + 1), at most ``auto.restart.backoff.max.ms``, and the
worker gives up after ``auto.restart.max.attempts`` restarts (-1: never). `auto_restart_config_def`
defines them for validation; `AutoRestartPolicy.of` reads them for the scheduler
(`kconnect.herder.restart_schedule`). Each is a row in ``docs/differences.md``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from .configdef import ConfigDef, ConfigType, Importance, Width
from .validators import Range

log = logging.getLogger(__name__)

AUTO_RESTART_GROUP: Final = "Automatic Restarts"
AUTO_RESTART_ENABLE_CONFIG: Final = "auto.restart.enable"
AUTO_RESTART_MAX_ATTEMPTS_CONFIG: Final = "auto.restart.max.attempts"
AUTO_RESTART_BACKOFF_CONFIG: Final = "auto.restart.backoff.ms"
AUTO_RESTART_BACKOFF_MAX_CONFIG: Final = "auto.restart.backoff.max.ms"

AUTO_RESTART_MAX_ATTEMPTS_DEFAULT: Final = -1
AUTO_RESTART_BACKOFF_DEFAULT_MS: Final = 60_000
AUTO_RESTART_BACKOFF_MAX_DEFAULT_MS: Final = 3_600_000

_DOCS: Final = {
    AUTO_RESTART_ENABLE_CONFIG: (
        "If true, the worker running this connector restarts its connector instance or a task automatically "
        "when it FAILED, from the committed offsets as a manual restart does, after a growing backoff. "
        "Off by default. A kconnect extension."
    ),
    AUTO_RESTART_MAX_ATTEMPTS_CONFIG: (
        "How many automatic restarts are made before the worker gives up and leaves the connector or task "
        "FAILED; -1 (the default) never gives up, 0 makes none. The count resets when the connector or task "
        "has stayed RUNNING for as long as its next restart would have waited, and at a manual restart. "
        "A kconnect extension."
    ),
    AUTO_RESTART_BACKOFF_CONFIG: (
        "The unit of the backoff, in milliseconds: the n-th automatic restart (n from 0) waits "
        "unit * n * (n + 1), so 0, 2, 6, 12, 20 ... minutes with the default of one minute. A kconnect "
        "extension."
    ),
    AUTO_RESTART_BACKOFF_MAX_CONFIG: (
        "The longest wait before an automatic restart, in milliseconds (default: one hour). A kconnect "
        "extension."
    ),
}


def auto_restart_config_def() -> ConfigDef:
    """The automatic restart keys, for validation (checked only when a config sets them)."""
    config_def = ConfigDef()
    rows = (
        (AUTO_RESTART_ENABLE_CONFIG, ConfigType.BOOLEAN, False, None, "Enable automatic restarts"),
        (AUTO_RESTART_MAX_ATTEMPTS_CONFIG, ConfigType.INT, AUTO_RESTART_MAX_ATTEMPTS_DEFAULT,
         Range.at_least(-1), "Automatic restart attempts"),
        (AUTO_RESTART_BACKOFF_CONFIG, ConfigType.LONG, AUTO_RESTART_BACKOFF_DEFAULT_MS, Range.at_least(0),
         "Automatic restart backoff unit (ms)"),
        (AUTO_RESTART_BACKOFF_MAX_CONFIG, ConfigType.LONG, AUTO_RESTART_BACKOFF_MAX_DEFAULT_MS,
         Range.at_least(0), "Longest automatic restart backoff (ms)"),
    )  # fmt: skip
    for order, (name, config_type, default, validator, display_name) in enumerate(rows, start=1):
        config_def.define(
            name,
            type=config_type,
            importance=Importance.LOW,
            documentation=_DOCS[name],
            default=default,
            validator=validator,
            group=AUTO_RESTART_GROUP,
            order_in_group=order,
            width=Width.SHORT,
            display_name=display_name,
        )
    return config_def


@dataclass(frozen=True)
class AutoRestartPolicy:
    """A connector's automatic restart keys, read (`of`) from its config."""

    enabled: bool = False
    max_attempts: int = AUTO_RESTART_MAX_ATTEMPTS_DEFAULT
    backoff_ms: int = AUTO_RESTART_BACKOFF_DEFAULT_MS
    backoff_max_ms: int = AUTO_RESTART_BACKOFF_MAX_DEFAULT_MS

    @property
    def active(self) -> bool:
        """Whether any automatic restart can happen (enabled, and max.attempts is not 0)."""
        return self.enabled and self.max_attempts != 0

    @classmethod
    def of(cls, config: Mapping[str, str]) -> AutoRestartPolicy:
        """The policy a connector config sets; a value that does not parse (validation refuses it, but
        a config may predate the keys) turns automatic restarts off, with a warning naming the key."""
        try:
            return cls(
                enabled=_flag(config.get(AUTO_RESTART_ENABLE_CONFIG)),
                max_attempts=_whole(
                    config, AUTO_RESTART_MAX_ATTEMPTS_CONFIG, AUTO_RESTART_MAX_ATTEMPTS_DEFAULT
                ),
                backoff_ms=max(
                    0, _whole(config, AUTO_RESTART_BACKOFF_CONFIG, AUTO_RESTART_BACKOFF_DEFAULT_MS)
                ),
                backoff_max_ms=max(
                    0, _whole(config, AUTO_RESTART_BACKOFF_MAX_CONFIG, AUTO_RESTART_BACKOFF_MAX_DEFAULT_MS)
                ),
            )
        except ValueError as exc:
            log.warning("Automatic restarts are off for connector %s: %s", config.get("name", "?"), exc)
            return cls()


def _flag(raw: str | None) -> bool:
    value = (raw or "false").strip().lower()
    if value not in ("true", "false"):
        raise ValueError(f"{AUTO_RESTART_ENABLE_CONFIG}={raw!r} is not a boolean")
    return value == "true"


def _whole(config: Mapping[str, str], key: str, default: int) -> int:
    raw = config.get(key)
    if raw is None or not raw.strip():
        return default
    try:
        return int(raw.strip())
    except ValueError:
        raise ValueError(f"{key}={raw!r} is not a whole number") from None
