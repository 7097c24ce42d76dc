"""How a finished task run shows in status: `kconnect_spark.outcome.decide`, one row per way to end."""

from __future__ import annotations

import pytest
from kconnect_spark.outcome import RunEnd, decide, summary

SIGKILLED = (
    "py4j.protocol.Py4JJavaError: An error occurred while calling z:PythonRDD.collectAndServe.\n"
    ": org.apache.spark.SparkException: Job aborted due to stage failure: Task 0 in stage 1.0 failed 1 "
    "times, most recent failure: Lost task 0.0 in stage 1.0 (TID 0) (192.0.2.2 executor driver): "
    "org.apache.spark.SparkException: Python worker exited unexpectedly (crashed). Consider setting x\n"
    "Caused by: java.io.EOFException\n"
)
KILLED_IN_UI = (
    "py4j.protocol.Py4JJavaError: An error occurred while calling z:PythonRDD.collectAndServe.\n"
    ": org.apache.spark.SparkException: Job 3 cancelled because Stage 3 was cancelled\n"
)
CHANNEL_LOST = (
    ": org.apache.spark.SparkException: Job aborted due to stage failure: ... "
    "org.apache.spark.api.python.PythonException: Traceback (most recent call last):\n"
    "kconnect_spark.channel.ControlChannelLost: control channel to the worker lost (reset)\n"
)


def test_a_failure_the_task_reported_itself_is_not_reported_again() -> None:
    assert decide(RunEnd("c-0", reported="failed", spark_error=SIGKILLED)) is None


@pytest.mark.parametrize("error", [None, SIGKILLED])
def test_a_requested_stop_is_stopped_however_the_job_ended(error: str | None) -> None:
    report = decide(RunEnd("c-0", stop_requested=True, reported="stopped", spark_error=error))
    assert report is not None and report.state == "STOPPED" and report.trace is None


def test_a_killed_python_worker_says_so_with_sparks_error() -> None:
    report = decide(RunEnd("c-0", channel_lost="ConnectionResetError", spark_error=SIGKILLED))
    assert report is not None and report.state == "FAILED" and report.trace is not None
    assert report.trace.startswith("The Python worker process running task c-0 died (killed or crashed)")
    assert "Spark: Python worker exited unexpectedly (crashed)" in report.trace.splitlines()[0]
    assert SIGKILLED in report.trace


def test_a_job_spark_cancelled_says_spark_failed_it() -> None:
    report = decide(RunEnd("c-0", channel_lost="EOF", spark_error=KILLED_IN_UI))
    assert report is not None and report.trace is not None
    assert report.trace.splitlines()[0] == (
        "Spark failed the job running task c-0: Job 3 cancelled because Stage 3 was cancelled"
    )


def test_a_channel_lost_on_the_task_side_says_control_channel_lost() -> None:
    report = decide(RunEnd("c-0", channel_lost="the task closed the connection", spark_error=CHANNEL_LOST))
    assert report is not None and report.trace is not None
    assert report.trace.splitlines()[0] == (
        "Control channel to task c-0 lost (the task closed the connection); the task stopped itself."
    )


def test_a_job_the_worker_cancelled_after_losing_the_channel_says_both() -> None:
    end = RunEnd(
        "c-0",
        channel_lost="ConnectionResetError",
        cancelled="the worker cancelled its Spark job so that it does not run unsupervised",
        spark_error="SparkException: Job 1 cancelled part of cancelled job group kconnect-c-0-abcd",
    )
    report = decide(end)
    assert report is not None and report.trace is not None
    assert report.trace.splitlines()[0] == (
        "Control channel to task c-0 lost (ConnectionResetError); "
        "the worker cancelled its Spark job so that it does not run unsupervised."
    )


def test_a_task_that_ends_on_its_own_without_a_word_is_failed() -> None:
    report = decide(RunEnd("c-0"))
    assert report is not None and report.state == "FAILED" and report.trace is not None
    assert "ended without a stop request" in report.trace


def test_summary_is_the_innermost_spark_exception() -> None:
    assert summary(SIGKILLED).startswith("Python worker exited unexpectedly (crashed).")
    assert summary("no exception here\nlast line") == "last line"


EXECUTOR_LOST = (
    "ExecutorLostFailure (executor 1 exited unrelated to the running tasks) Reason: worker lost: "
    "127.0.0.1:39557 got disassociated"
)
RERUN_REFUSED = (
    ": org.apache.spark.SparkException: Job aborted due to stage failure: Task 0 in stage 1.0 failed 1 "
    "times, most recent failure: Lost task 0.1 in stage 1.0 (TID 2) (127.0.0.1 executor 2): "
    "org.apache.spark.api.python.PythonException: Traceback (most recent call last):\n"
    "kconnect_spark.channel.TaskRerunRefused: Spark started attempt 1 of task c-0's Spark task\n"
)


def test_a_lost_executor_is_the_headline_when_the_worker_had_to_cancel_the_job() -> None:
    end = RunEnd(
        "c-0",
        channel_lost="the task closed the connection",
        cancelled="the worker cancelled its Spark job so that it does not run unsupervised",
        spark_error=KILLED_IN_UI,
        attempt_errors=(EXECUTOR_LOST,),
    )
    report = decide(end)
    assert report is not None and report.state == "FAILED" and report.trace is not None
    assert report.trace.splitlines()[0] == (
        f"The Spark executor running task c-0 was lost; Spark: {EXECUTOR_LOST}; the worker cancelled "
        "its Spark job so that it does not run unsupervised."
    )


def test_a_lost_executor_is_the_headline_when_spark_reran_the_task_and_the_copy_refused() -> None:
    end = RunEnd(
        "c-0",
        channel_lost="the task closed the connection",
        spark_error=RERUN_REFUSED,
        attempt_errors=(EXECUTOR_LOST, "PythonException: ... TaskRerunRefused: Spark started attempt 1"),
    )
    report = decide(end)
    assert report is not None and report.trace is not None
    assert report.trace.startswith(f"The Spark executor running task c-0 was lost; Spark: {EXECUTOR_LOST}.")
    assert "TaskRerunRefused" in report.trace, "Spark's job error belongs in the trace"


def test_attempt_errors_without_a_lost_executor_change_nothing() -> None:
    plain = RunEnd("c-0", channel_lost="EOF", spark_error=KILLED_IN_UI)
    with_errors = RunEnd("c-0", channel_lost="EOF", spark_error=KILLED_IN_UI, attempt_errors=("Task killed",))
    assert decide(with_errors) == decide(plain)


def test_a_refused_rerun_without_sparks_attempt_record_still_says_the_task_was_lost() -> None:
    report = decide(RunEnd("c-0", channel_lost="the task closed the connection", spark_error=RERUN_REFUSED))
    assert report is not None and report.trace is not None
    assert report.trace.startswith(
        "The Spark task running task c-0 was lost (Spark started it again, which a connector task refuses)"
    )
