"""Where a new connector task goes: `host_run.place`, and the worker key that sizes a host."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from kconnect.herder.validation import ConnectorValidator
from kconnect.plugin_host import PluginHost
from kconnect.worker_config import ConfigFileError
from kconnect_spark.host_run import (
    DEDICATED_SPARK_TASK,
    DEFAULT_TASKS_PER_SPARK_TASK,
    HostRun,
    dedicated_config_def,
    estimated_load,
    place,
    tasks_per_spark_task,
    wants_dedicated,
)


def host(order: int, tasks: int, capacity: int = 3, **kwargs: Any) -> HostRun:
    made = HostRun(order, capacity, **kwargs)
    made.runs.extend(object() for _ in range(tasks))
    return made


def test_each_task_opens_a_host_until_there_is_one_per_core() -> None:
    assert place([], spread=2) is None
    assert place([host(1, 1)], spread=2) is None, "a second busy task gets the second core"


def test_then_tasks_join_the_least_loaded_host_with_room_in_host_order() -> None:
    hosts = [host(1, 2), host(2, 1), host(3, 1)]
    assert place(hosts, spread=2) is hosts[1]


def measured(made: HostRun, cpu: float) -> HostRun:
    made.measured(cpu)
    return made


def test_a_task_joins_the_host_with_the_least_measured_load_even_with_more_tasks() -> None:
    """One hot task on host 1, three idle ones on host 2: by count the new task would share the hot
    task's Python process (and its GIL); by load it goes to the idle host."""
    hot, idle = measured(host(1, 1, capacity=10), 0.95), measured(host(2, 3, capacity=10), 0.04)
    assert place([hot, idle], spread=2) is idle


def test_loads_of_the_same_tenth_of_a_core_are_equal_and_the_task_count_decides() -> None:
    busier, fewer = measured(host(1, 2), 0.27), measured(host(2, 1), 0.34)
    assert place([busier, fewer], spread=2) is fewer, "0.27 and 0.34 of a core: both about 0.3"
    assert place([measured(host(1, 2), 0.2), measured(host(2, 1), 0.6)], spread=2).order == 1


def test_tasks_placed_since_the_last_report_count_as_a_typical_task_each() -> None:
    """Host 1 runs one task at 0.8 of a core, host 2 one at 0.0: a typical task takes 0.4. Until
    host 2 reports again, each task placed there counts 0.4, so a burst does not pile onto it."""
    hot, cold = measured(host(1, 1, capacity=10), 0.8), measured(host(2, 1, capacity=10), 0.0)
    for _ in range(2):
        cold.take(object())
    assert estimated_load(cold, 0.4) == pytest.approx(0.8)
    assert place([hot, cold], spread=2) is hot, "equal estimates (0.8 each): host 1 has fewer tasks"
    cold.measured(0.05)
    assert place([hot, cold], spread=2) is cold, "measured again: host 2 is idle after all"


def test_hosts_without_a_load_report_are_placed_by_task_count() -> None:
    hosts = [host(1, 2), host(2, 1)]
    hosts[0].take(object())
    assert place(hosts, spread=2) is hosts[1]


def test_a_new_host_opens_only_when_every_host_is_full() -> None:
    assert place([host(1, 3), host(2, 3)], spread=2) is None


def test_a_task_is_placed_among_the_hosts_of_its_runtime_only() -> None:
    python, java = host(1, 1), host(2, 1, runtime="java")
    assert place([python, java], spread=1, runtime="java") is java
    assert place([python, java], spread=1) is python
    assert place([python], spread=1, runtime="java") is None, "a Java task never joins a Python host"
    two_java = [python, java, host(3, 0, runtime="java")]
    assert place(two_java, spread=3, runtime="java") is None, "spread counts its runtime's hosts"


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


SINK = {"name": "s", "connector.class": "FileStreamSink", "topics": "t"}


def _by_name(validator: ConnectorValidator, config: dict[str, str]) -> dict[str, Any]:
    body = asyncio.run(validator.validate(config)).to_json()
    return {(c["definition"] or c["value"])["name"]: c for c in body["configs"]}


def test_executor_keys_are_checked_when_set_and_absent_otherwise() -> None:
    validator = ConnectorValidator(PluginHost.load(), {}, dedicated_config_def())
    assert DEDICATED_SPARK_TASK not in _by_name(validator, SINK), "Kafka's answer, unchanged"
    good = _by_name(validator, {**SINK, DEDICATED_SPARK_TASK: "true"})
    assert good[DEDICATED_SPARK_TASK]["value"]["errors"] == []
    assert good[DEDICATED_SPARK_TASK]["definition"]["type"] == "BOOLEAN"
    bad = _by_name(validator, {**SINK, DEDICATED_SPARK_TASK: "maybe"})[DEDICATED_SPARK_TASK]
    assert bad["value"]["errors"] == [
        f"Invalid value maybe for configuration {DEDICATED_SPARK_TASK}: "
        "Expected value to be either true or false"
    ]
