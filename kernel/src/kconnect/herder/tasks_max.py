"""KIP-1004: a connector may not run more tasks than its ``tasks.max`` (unless ``tasks.max.enforce=false``).

Kafka checks twice, and so does kconnect:

* when the connector's `task_configs` returns (the connector adapter, `kconnect.herder.connectors`):
  too many configs fail the connector with `TooManyTasksError` and none of them is stored or started;
  tasks already running from earlier configs run on. With ``tasks.max.enforce=false`` every config
  is used and `too_many_tasks_warning` is logged;
* when a task starts (the reducer, `kconnect.herder.machine`): a stored set of task configs larger
  than ``tasks.max`` (written before the limit was enforced, or before ``tasks.max`` was lowered)
  fails each task it starts, with the same error.

Pure functions of a connector config; no logging here.
"""

from __future__ import annotations

import traceback
from collections.abc import Mapping

from kconnect.config.connector_keys import TASKS_MAX_CONFIG, TASKS_MAX_ENFORCE_CONFIG
from kconnect.config.values import ConfigException, ConfigType, parse_type
from kconnect.errors import ConnectError


class TooManyTasksError(ConnectError):
    """A connector generated more task configs than its ``tasks.max`` (Kafka's TooManyTasksException)."""

    java_class_name = "org.apache.kafka.connect.runtime.TooManyTasksException"

    def __init__(self, connector: str, num_tasks: int, max_tasks: int) -> None:
        super().__init__(
            f"The connector {connector} has generated {num_tasks} tasks, which is greater than {max_tasks}, "
            "the maximum number of tasks it is configured to create. This behaviour should be considered "
            "a bug and is disallowed. If necessary, it can be permitted by reconfiguring the connector "
            f"with '{TASKS_MAX_ENFORCE_CONFIG}' set to false; however, this option will be removed in a "
            "future release of Kafka Connect."
        )


def too_many_tasks_warning(connector: str, num_tasks: int, max_tasks: int) -> str:
    """Kafka's warning for a connector that generated too many tasks while the limit is not enforced."""
    return (
        f"The connector {connector} has generated {num_tasks} tasks, which is greater than {max_tasks}, "
        "the maximum number of tasks it is configured to create. This behavior should be considered a bug "
        "and will be disallowed in future releases of Kafka Connect. Please report this to the maintainers "
        "of the connector and request that they adjust their connector's taskConfigs() method to respect "
        "the maxTasks parameter."
    )


def tasks_max(config: Mapping[str, str]) -> int:
    """The connector's ``tasks.max`` (1 when unset, as its default)."""
    return int(str(parse_type(TASKS_MAX_CONFIG, config.get(TASKS_MAX_CONFIG, "1"), ConfigType.INT)))


def enforces_tasks_max(config: Mapping[str, str]) -> bool:
    """The connector's ``tasks.max.enforce`` (true when unset, as its default)."""
    return bool(
        parse_type(TASKS_MAX_ENFORCE_CONFIG, config.get(TASKS_MAX_ENFORCE_CONFIG, "true"), ConfigType.BOOLEAN)
    )


def too_many_tasks(connector: str, num_tasks: int, config: Mapping[str, str]) -> TooManyTasksError | None:
    """The error that `num_tasks` task configs are for a connector with this config, if the limit holds.

    None when they fit, when the limit is not enforced, or when either key cannot be read from the
    stored config (a config-provider reference: the connector adapter checks the resolved values).
    """
    try:
        limit, enforce = tasks_max(config), enforces_tasks_max(config)
    except ConfigException:
        return None
    if num_tasks <= limit or not enforce:
        return None
    return TooManyTasksError(connector, num_tasks, limit)


def failure_trace(error: TooManyTasksError) -> str:
    """The trace a task refused by the limit shows in its status: the error's class and message."""
    return "".join(traceback.format_exception_only(error))
