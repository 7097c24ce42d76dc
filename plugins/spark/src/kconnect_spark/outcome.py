"""What status a finished task run shows: the executor's one rule for how a Spark task ended.

The executor calls `decide` once both the run's Spark job has ended and its control channel has
closed (or been given up on). Pure: it reads the facts a `RunEnd` collects and returns the report,
so every way a task can end is unit-tested without Spark.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from kconnect_spark.channel import CHANNEL_LOST_ERROR, RERUN_REFUSED_ERROR

#: Spark's words when the Python worker process running a task disappears (SIGKILL, OOM killer,
#: a crash in native code).
PYTHON_WORKER_DIED = "Python worker exited unexpectedly"
#: Spark's words for a task attempt whose executor went away (its cluster worker or node died, the
#: cluster manager killed it).
EXECUTOR_LOST = "ExecutorLostFailure"


@dataclass(frozen=True)
class RunEnd:
    """The facts about one ended task run, collected by the executor and the control server.

    `reported`: the task's own last word over the channel (``failed`` is reported when it arrives);
    `channel_lost`: why the channel ended without that last word; `cancelled`: why the worker
    cancelled the run's Spark job itself; `spark_error`: the job's error (None if it succeeded);
    `attempt_errors`: Spark's error of each failed attempt of the run's Spark task (an attempt
    whose executor was lost fails without failing the job).
    """

    task: str
    stop_requested: bool = False
    reported: Literal["failed", "stopped"] | None = None
    channel_lost: str | None = None
    cancelled: str | None = None
    spark_error: str | None = None
    attempt_errors: tuple[str, ...] = ()


@dataclass(frozen=True)
class Report:
    """What the executor tells the listener: STOPPED, or FAILED with `trace`."""

    state: Literal["STOPPED", "FAILED"]
    trace: str | None = None


def decide(end: RunEnd) -> Report | None:
    """The report for an ended run, or None when the task already reported its failure itself."""
    if end.reported == "failed":
        return None
    if end.stop_requested:
        return Report("STOPPED")
    detail = f"\n\nSpark's error:\n{end.spark_error}" if end.spark_error else ""
    lost = next((error for error in end.attempt_errors if EXECUTOR_LOST in error), None)
    if lost is not None:
        after = f"; {end.cancelled}" if end.cancelled else ""
        return Report(
            "FAILED",
            f"The Spark executor running task {end.task} was lost; Spark: {lost.strip()}{after}.{detail}",
        )
    if end.spark_error is not None and RERUN_REFUSED_ERROR in end.spark_error:
        return Report(
            "FAILED",
            f"The Spark task running task {end.task} was lost (Spark started it again, which a "
            f"connector task refuses); Spark: {summary(end.spark_error)}{detail}",
        )
    if end.cancelled is not None:
        return Report("FAILED", f"{_channel_headline(end)}; {end.cancelled}.{detail}")
    error = end.spark_error
    if error is not None and CHANNEL_LOST_ERROR in error:
        return Report("FAILED", f"{_channel_headline(end)}; the task stopped itself.{detail}")
    if error is not None and PYTHON_WORKER_DIED in error:
        return Report(
            "FAILED",
            f"The Python worker process running task {end.task} died (killed or crashed); "
            f"Spark: {summary(error)}{detail}",
        )
    if error is not None:
        return Report("FAILED", f"Spark failed the job running task {end.task}: {summary(error)}{detail}")
    if end.channel_lost is not None:
        return Report("FAILED", f"{_channel_headline(end)}; its Spark job ended.")
    return Report(
        "FAILED",
        f"The Spark task running task {end.task} ended without a stop request and without "
        f"reporting why (last report: {end.reported or 'none'}).",
    )


def _channel_headline(end: RunEnd) -> str:
    cause = end.channel_lost or "the task's Spark task reported it"
    return f"Control channel to task {end.task} lost ({cause})"


def summary(spark_error: str) -> str:
    """The one line of a Spark job error that says what happened: its innermost SparkException."""
    lines = [line.strip() for line in spark_error.splitlines() if line.strip()]
    for line in lines:
        if "SparkException: " in line:
            return line.rsplit("Exception: ", 1)[1]
    return lines[-1] if lines else "unknown error"
