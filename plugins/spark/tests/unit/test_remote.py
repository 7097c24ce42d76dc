"""What the task side says about where it runs: a second attempt Spark starts by itself refuses to run;
a plugin the executors' Python lacks is named with that Python."""

from __future__ import annotations

import socket
import sys

import pytest
from kconnect.executor import TaskSpec
from kconnect.model import ConnectorTaskId
from kconnect_spark.channel import RERUN_REFUSED_ERROR, TaskRerunRefused
from kconnect_spark.remote import plugin_missing, refuse_rerun


def test_the_first_attempt_runs() -> None:
    refuse_rerun("task c-0", 0)


@pytest.mark.parametrize("attempt", [1, 3])
def test_a_later_attempt_refuses_naming_the_task_and_the_attempt(attempt: int) -> None:
    with pytest.raises(TaskRerunRefused) as raised:
        refuse_rerun("task c-0", attempt)
    assert f"attempt {attempt} of task c-0's Spark task" in str(raised.value)
    assert type(raised.value).__name__ == RERUN_REFUSED_ERROR  # the name the worker finds in Spark's error


def test_a_missing_plugin_names_the_executors_python_and_host() -> None:
    spec = TaskSpec(ConnectorTaskId("c", 0), "source", "x.Task", {}, {}, {})
    headline = plugin_missing(spec)
    assert headline.startswith(
        "Task c-0 could not load its connector's plugin in Spark's Python worker "
        f"(Python {sys.executable} on host {socket.gethostname()})"
    )
    assert "spark.pyspark.python" in headline
