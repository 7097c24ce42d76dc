"""Where a new connector task goes: `host_run.place`, and the worker key that sizes a host."""

from __future__ import annotations

import pytest
from kconnect.worker_config import ConfigFileError
from kconnect_spark.host_run import (
    DEFAULT_TASKS_PER_SPARK_TASK,
    HostRun,
    place,
    tasks_per_spark_task,
    wants_dedicated,
)


def host(order: int, tasks: int, capacity: int = 3, **kwargs: bool) -> HostRun:
    made = HostRun(order, capacity, **kwargs)
    made.runs.extend(object() for _ in range(tasks))
    return made


def test_each_task_opens_a_host_until_there_is_one_per_core() -> None:
    assert place([], spread=2) is None
    assert place([host(1, 1)], spread=2) is None, "a second busy task gets the second core"


def test_then_tasks_join_the_least_loaded_host_with_room_in_host_order() -> None:
    hosts = [host(1, 2), host(2, 1), host(3, 1)]
    assert place(hosts, spread=2) is hosts[1]


def test_a_new_host_opens_only_when_every_host_is_full() -> None:
    assert place([host(1, 3), host(2, 3)], spread=2) is None


def test_dedicated_closing_and_ended_hosts_take_no_task() -> None:
    closing = host(2, 0)
    closing.close()
    ended = host(3, 0)
    ended.job_ended.set()
    dedicated = host(4, 0, capacity=1, dedicated=True)
    assert place([host(1, 3), closing, ended, dedicated], spread=1) is None


def test_a_host_of_one_task_is_named_for_it_in_spark_and_logs() -> None:
    one = HostRun(7, 1, label="task c-0")
    assert one.job_group.startswith("kconnect-c-0-") and one.label == "task c-0"
    shared = HostRun(8, 100)
    assert shared.job_group.startswith("kconnect-host-8-") and shared.label == "Spark task host 8"


def test_tasks_per_spark_task_defaults_and_refuses_what_is_not_a_positive_integer() -> None:
    assert tasks_per_spark_task({}, "w.properties") == DEFAULT_TASKS_PER_SPARK_TASK
    assert tasks_per_spark_task({"executor.tasks.per.spark.task": " 8 "}, "w.properties") == 8
    for bad in ("0", "-1", "many"):
        with pytest.raises(
            ConfigFileError, match=rf"w.properties: executor.tasks.per.spark.task: invalid value '{bad}'"
        ):
            tasks_per_spark_task({"executor.tasks.per.spark.task": bad}, "w.properties")


def test_a_connector_asks_for_spark_tasks_of_its_own() -> None:
    assert wants_dedicated({"executor.dedicated.spark.task": "true"})
    assert not wants_dedicated({}) and not wants_dedicated({"executor.dedicated.spark.task": "false"})
