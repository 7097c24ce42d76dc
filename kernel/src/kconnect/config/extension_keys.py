"""kconnect's own connector keys: extensions of Kafka's, each with a worker-wide default.

A key here is a connector key Kafka Connect does not have. Validation checks one only when a
config sets it (`extension_config_def`, merged like the executor's keys), so a config without
them validates exactly as in Kafka. Each key's worker default is the worker property of the same
name; each is a row in ``docs/differences.md``. The automatic restart keys (``auto.restart.*``,
`kconnect.config.auto_restart_keys`) are validated the same way and have no worker default.

``task.stall.timeout.ms``: how long a RUNNING task may go without progress while it has work
(a ``poll()``, ``put()`` or offset commit that has not returned) before its status, metrics and
log report it stalled (`kconnect.runtime.stall_watch`). 0 or a negative value turns it off.
``task.stall.restart``: whether a stalled task is also restarted through the automatic restarts
(``auto.restart.*``, whose ``auto.restart.enable`` must be true too); off by default, no worker default.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from .auto_restart_keys import auto_restart_config_def
from .configdef import ConfigDef, ConfigException, ConfigType, Importance, Width

STALL_GROUP: Final = "Stall Detection"
TASK_STALL_TIMEOUT_CONFIG: Final = "task.stall.timeout.ms"
#: The worker's default when its properties do not set ``task.stall.timeout.ms``: five minutes.
TASK_STALL_TIMEOUT_DEFAULT_MS: Final = 300_000
TASK_STALL_TIMEOUT_DOC: Final = (
    "How long, in milliseconds, a running task may make no progress while it has work (a poll() that has "
    "not returned, records put() has not accepted, an offset commit that has not completed) before it is "
    "reported as stalled: its status stays RUNNING with the reason in its trace, the metrics plugin's "
    "kconnect_task_stalled gauge is 1 and the worker logs a warning. A source whose polls return nothing "
    "is idle, not stalled. 0 or a negative value turns detection off. Unset: the worker's "
    f"{TASK_STALL_TIMEOUT_CONFIG} ({TASK_STALL_TIMEOUT_DEFAULT_MS} unless set). A kconnect extension."
)
TASK_STALL_RESTART_CONFIG: Final = "task.stall.restart"
TASK_STALL_RESTART_DOC: Final = (
    "If true, a task reported stalled (task.stall.timeout.ms) is restarted automatically, from its committed "
    "offsets, on the schedule of the automatic restarts, which must be on too (auto.restart.enable=true; "
    "auto.restart.max.attempts and the backoff apply and count the stall restarts). Off by default. A "
    "kconnect extension."
)


def extension_config_def() -> ConfigDef:
    """kconnect's own connector keys; `ConnectorValidator` checks those a config sets."""
    return _stall_config_def().merge(auto_restart_config_def())


def _stall_config_def() -> ConfigDef:
    return (
        ConfigDef()
        .define(
            TASK_STALL_TIMEOUT_CONFIG,
            type=ConfigType.LONG,
            importance=Importance.LOW,
            documentation=TASK_STALL_TIMEOUT_DOC,
            default=None,
            group=STALL_GROUP,
            order_in_group=1,
            width=Width.SHORT,
            display_name="Task stall timeout (ms)",
        )
        .define(
            TASK_STALL_RESTART_CONFIG,
            type=ConfigType.BOOLEAN,
            importance=Importance.LOW,
            documentation=TASK_STALL_RESTART_DOC,
            default=False,
            group=STALL_GROUP,
            order_in_group=2,
            width=Width.SHORT,
            display_name="Restart stalled tasks",
        )
    )


def task_stall_timeout_ms(worker: Mapping[str, str], connector: Mapping[str, str]) -> int:
    """The stall timeout of a task: the connector's ``task.stall.timeout.ms``, else the worker's, else
    five minutes; 0 when turned off (any value below 1). ConfigException naming the key and where it
    was set when a value is not a whole number."""
    for where, props in (("connector config", connector), ("worker config", worker)):
        raw = props.get(TASK_STALL_TIMEOUT_CONFIG)
        if raw is None or not str(raw).strip():
            continue
        try:
            value = int(str(raw).strip())
        except ValueError:
            raise ConfigException(
                f"Invalid value {raw} for configuration {TASK_STALL_TIMEOUT_CONFIG} in the {where}: "
                "Not a number of type LONG"
            ) from None
        return max(value, 0)
    return TASK_STALL_TIMEOUT_DEFAULT_MS


def task_stall_restart(connector: Mapping[str, str] | None) -> bool:
    """Whether the connector asks for its stalled tasks to be restarted (``task.stall.restart=true``)."""
    return (connector or {}).get(TASK_STALL_RESTART_CONFIG, "false").strip().lower() == "true"


def check_extension_worker_keys(props: Mapping[str, str]) -> list[str]:
    """The errors of the worker's defaults of these keys (``<key>: <message>``), for the worker's start."""
    raw = props.get(TASK_STALL_TIMEOUT_CONFIG)
    if raw is None or not raw.strip():
        return []
    try:
        int(raw.strip())
    except ValueError:
        key = TASK_STALL_TIMEOUT_CONFIG
        return [f"{key}: Invalid value {raw} for configuration {key}: Not a number of type LONG"]
    return []
