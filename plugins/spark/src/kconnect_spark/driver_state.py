"""What the worker's Spark driver knows about the cluster right now, read through py4j.

Neither answer is part of PySpark's API: both read the driver's scheduler and status store (what
Spark's own UI shows), so any error means "unknown" and the callers carry on without it. Both
block on py4j calls; the executor calls them from threads, never on the event loop.
"""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger(__name__)


def registered_task_slots(session: Any) -> int | None:
    """Spark's own count of task slots on the executors registered now, or None if Spark cannot say.

    This is the number Spark checks before it runs a barrier stage (``maxNumConcurrentTasks`` of
    the default resource profile): executor cores divided by ``spark.task.cpus``. It is not part of
    PySpark's API, so any error means "unknown". Blocking (a py4j call); not for the event loop.
    """
    try:
        context = session.sparkContext._jsc.sc()
        profile = context.resourceProfileManager().defaultResourceProfile()
        return int(context.maxNumConcurrentTasks(profile))
    except Exception:  # py4j errors, a stopped context, a Spark without this method
        log.debug("Could not read Spark's registered task slots", exc_info=True)
        return None


def failed_attempts(session: Any, job_group: str) -> tuple[str, ...]:
    """Spark's error message of every failed task attempt in the jobs of `job_group`.

    The executor reads these when a run ends without its task's last word: an attempt whose
    executor was lost fails without failing the job, so only Spark's record of the attempt says
    why the task went away. Reads the driver's status store (what Spark's UI shows), which is not
    part of PySpark's API, so any error gives ``()``. Blocking (py4j calls); not for the event loop.
    """
    errors: list[str] = []
    try:
        context = session.sparkContext
        tracker, store = context.statusTracker(), context._jsc.sc().statusStore()
        for job in tracker.getJobIdsForGroup(job_group):
            info = tracker.getJobInfo(job)
            for stage in info.stageIds if info is not None else []:
                stage_info = tracker.getStageInfo(stage)
                attempt = stage_info.currentAttemptId if stage_info is not None else 0
                tasks = store.taskList(stage, attempt, 100)
                for index in range(tasks.size()):
                    message = tasks.apply(index).errorMessage()
                    if message.isDefined():
                        errors.append(str(message.get()))
    except Exception:  # py4j errors, a stopped context, a Spark whose internals differ
        log.debug("Could not read Spark's failed task attempts of %s", job_group, exc_info=True)
    return tuple(errors)
