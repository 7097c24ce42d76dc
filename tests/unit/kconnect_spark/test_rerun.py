"""A connector task's Spark task runs once: a second attempt Spark starts by itself refuses to run."""

from __future__ import annotations

import pytest
from kconnect_spark.channel import RERUN_REFUSED_ERROR, TaskRerunRefused
from kconnect_spark.remote import refuse_rerun


def test_the_first_attempt_runs() -> None:
    refuse_rerun("c-0", 0)


@pytest.mark.parametrize("attempt", [1, 3])
def test_a_later_attempt_refuses_naming_the_task_and_the_attempt(attempt: int) -> None:
    with pytest.raises(TaskRerunRefused) as raised:
        refuse_rerun("c-0", attempt)
    assert f"attempt {attempt} of task c-0's Spark task" in str(raised.value)
    assert type(raised.value).__name__ == RERUN_REFUSED_ERROR  # the name the worker finds in Spark's error
