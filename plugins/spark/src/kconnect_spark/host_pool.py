"""The executor's hosting Spark tasks: where each connector task goes, and what follows when a
host starts, ends or empties.

`SparkExecutor` owns Spark (it submits a host's job and cancels job groups); `HostPool` owns the
hosts and the task runs placed on them, and tells the executor, through the callables it was
built with, when a host must be submitted. Touched on the worker's event loop only.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

from kconnect_spark.host_run import HostRun, place, wants_dedicated
from kconnect_spark.task_run import TaskRun


class HostPool:
    """The hosts of one executor, with the placement policy of `host_run.place`."""

    def __init__(
        self,
        capacity: int,
        submit: Callable[[HostRun], None],
        task_launch: Callable[[TaskRun], str],
    ) -> None:
        """`capacity`: ``executor.tasks.per.spark.task``; `submit` starts a new host's Spark job;
        `task_launch` says what a host of the run's runtime needs to run it (`HostRun.send_run`)."""
        self.capacity = capacity
        self.hosts: list[HostRun] = []
        self._submit = submit
        self._task_launch = task_launch
        self._order = itertools.count(1)

    def launched(self) -> list[HostRun]:
        """The hosts whose Spark job was submitted, in start order."""
        return [host for host in self.hosts if host.launched]

    def place(self, run: TaskRun, spread: int) -> None:
        """Put `run` on a host of its runtime with room, or on a new one (submitted at once); tell a
        started host."""
        runtime = run.spec.runtime
        dedicated = self.capacity == 1 or wants_dedicated(run.spec.connector_config)
        host = None if dedicated else place(self.hosts, spread=spread, runtime=runtime)
        if host is None:
            capacity = 1 if dedicated else self.capacity
            label = f"task {run.id}" if capacity == 1 else ""
            host = HostRun(next(self._order), capacity, dedicated=dedicated, runtime=runtime, label=label)
            self.hosts.append(host)
            host.take(run)
            run.host = host
            self._submit(host)
            return
        host.take(run)
        run.host = host
        if host.connected:
            host.send_run(run.token, self._task_launch(run))

    def connected(self, host: HostRun) -> None:
        """A host's Spark task started: hand it the tasks placed on it meanwhile."""
        for run in host.runs:
            host.send_run(run.token, self._task_launch(run))

    def ended(self, host: HostRun, error: str | None) -> None:
        """A host's Spark job ended: every task still placed on it ended with the job's error."""
        host.spark_error = error
        host.job_ended.set()
        if host in self.hosts:
            self.hosts.remove(host)
        for run in host.runs:
            run.spark_error = run.spark_error or error
            run.job_ended.set()

    @staticmethod
    def task_ended(run: TaskRun, error: str | None) -> None:
        """The host says the run's task loop ended (with the error it raised, if any)."""
        run.spark_error = run.spark_error or error
        run.job_ended.set()

    def release(self, run: TaskRun) -> str | None:
        """Take a finished run off its host and close a host left without tasks.

        Returns the job group to cancel when that host never started (it waited for a slot, so
        there is nothing to close gracefully), else None.
        """
        host = run.host
        if host is None or run not in host.runs:
            return None
        host.runs.remove(run)
        if host.runs or host.closing:
            return None
        host.close()
        return None if host.connected else host.job_group

    def abandon(self, run: TaskRun) -> str | None:
        """End a run that must not wait any longer; returns the job group to cancel, if that is how.

        A host of this task alone is cancelled whole (Spark interrupts the task and kills its
        Python worker). In a started shared host the task loop is abandoned and its neighbours run
        on; a run whose shared host has not started yet is simply taken off it.
        """
        host = run.host
        if host is None:
            return None
        if len(host.runs) <= 1:
            return host.job_group
        if host.connected:
            host.send_cancel(run.token)
        else:
            host.runs.remove(run)
            run.job_ended.set()
        return None
