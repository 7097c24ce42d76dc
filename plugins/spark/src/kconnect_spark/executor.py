"""SparkExecutor: connector tasks run inside long-running Spark tasks, many to a Spark task.

Each *host* is a one-partition Spark job submitted from a driver thread; its single Spark task
runs one event loop that hosts connector task loops (`kconnect_spark.remote.run_host`), or, for
Java tasks, a Java host whose task loops run in threads of the executor JVM
(`kconnect_spark.java_job`). `start_task` places the task on a host of its runtime with room or
opens a new host (`host_run.place`: up to the cores Spark
has, one task per host first; then up to ``executor.tasks.per.spark.task`` per host; a connector
with ``executor.dedicated.spark.task=true`` gets a host per task), and tells the host to run it
over the host's connection: a task joins a running Spark task without a new Spark job. A host
whose last task ended is closed, and its Spark task ends. Pause and resume travel over each task's
own control connection, so they take effect within milliseconds. Stopping is graceful (the loop
commits offsets and returns); after the timeout the task is abandoned in its host (a host of
that task alone: its job group is cancelled).

A run is over when its task loop has ended in its host (or the host's Spark job has ended) and
its control channel has closed: a run whose channel broke gets `CHANNEL_LOSS_GRACE_S` to end by
itself before the worker abandons it (a task nobody supervises must not keep running), and a task
still connected `CLOSE_GRACE_S` after it ended is disconnected. Only then does
`kconnect_spark.outcome.decide` say what status shows, so FAILED or STOPPED always means the task
loop is gone and a restart cannot overlap it. When a host's Python process dies, every task it
hosted ends FAILED with Spark's error.

The SparkSession starts in a background thread when the executor starts, so the REST server is
up at once; tasks started meanwhile are launched as soon as Spark is ready. Once it is up, the
executor knows its task slots (`kconnect_spark.slots`) and says which tasks wait for one.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import pickle
import threading
import time
import traceback
from typing import Any

from kconnect.config.configdef import ConfigDef
from kconnect.executor import Placement, TaskHost, TaskListener, TaskSpec
from kconnect.model import ConnectorTaskId, TargetState
from kconnect.worker_config import WorkerConfig

from kconnect_spark import java_job
from kconnect_spark.class_archive import archive_path, build_in_background, driver_java_options
from kconnect_spark.class_archive import enabled as class_archive_enabled
from kconnect_spark.control_server import ControlServer
from kconnect_spark.driver_state import failed_attempts, registered_task_slots
from kconnect_spark.host_pool import HostPool
from kconnect_spark.host_run import HostRun, dedicated_config_def, tasks_per_spark_task
from kconnect_spark.outcome import decide
from kconnect_spark.remote import HostLaunch, TaskLaunch, encode_launch, run_partition
from kconnect_spark.session import build_session, is_local, spark_conf, unreachable_control_host
from kconnect_spark.slots import (
    local_threads,
    not_started_reason,
    task_slots,
    waiting_reason,
    watched_slots,
    without_slot,
)
from kconnect_spark.task_run import TaskRun, wait_for_end

log = logging.getLogger(__name__)

#: How long a run whose control channel broke may take to end its Spark job by itself.
CHANNEL_LOSS_GRACE_S = 10.0
#: How long a submitted run may wait for Spark to start its task before status says so (when the
#: slot count did not already: a cluster with dynamic allocation, executors not yet registered).
START_REPORT_S = 30.0
#: How long a task may stay connected after its Spark job ended (Spark kills a cancelled task's
#: Python worker after ``spark.python.task.killTimeout``, 2 s by default).
CLOSE_GRACE_S = 10.0
#: Shared hosts to open on a cluster whose slot count is not known yet (its executors are still
#: registering, or dynamic allocation): busy tasks keep a core each, and a cluster that turns out
#: smaller makes the extra hosts wait for a slot, saying so in status.
UNKNOWN_SLOTS_SPREAD = 8
#: How often the worker re-reads a cluster's task slots (executors register after the session
#: starts, and leave with a cluster worker).
SLOT_WATCH_S = 2.0


class SparkExecutor:
    """Runs every task inside a Spark task of the worker's SparkSession."""

    name = "spark"

    def __init__(self, config: WorkerConfig) -> None:
        self._config = config
        self._conf = spark_conf(config.props)
        self._archive = (
            archive_path(self._conf) if class_archive_enabled(config.props, config.source) else None
        )
        if self._archive is not None:
            self._conf.update(driver_java_options(self._conf, self._archive))
        self._runs: dict[ConnectorTaskId, TaskRun] = {}
        self._waiting: list[TaskRun] = []
        self._capacity = tasks_per_spark_task(config.props, config.source)
        self._pool = HostPool(self._capacity, self._submit_host, self._task_launch)
        self._supervisors: set[asyncio.Task[None]] = set()
        #: Job-group cancels of closed hosts still under way; `stop` waits for them before Spark stops.
        self._closing_hosts: set[asyncio.Future[None]] = set()
        self._order = itertools.count(1)
        self._session: Any = None
        self._session_error: BaseException | None = None
        self._startup_s: float | None = None
        self._slots: int | None = None
        self._stopping = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._listener: TaskListener | None = None
        self._server: ControlServer | None = None
        self._control_host = config.props.get(
            "executor.control.host", "127.0.0.1" if is_local(self._conf) else _hostname()
        )
        if (warning := unreachable_control_host(self._conf, self._control_host)) is not None:
            log.warning("%s", warning)

    # --- lifecycle -------------------------------------------------------------------------------

    async def start(self, listener: TaskListener) -> None:
        """Open the control channel and start Spark in the background."""
        self._loop = asyncio.get_running_loop()
        self._listener = listener
        self._server = ControlServer(
            listener,
            on_connected=lambda run: self._check_slots(),
            on_host_connected=self._host_connected,
            on_task_ended=HostPool.task_ended,
        )
        bind = self._control_host if is_local(self._conf) else "0.0.0.0"
        await self._server.start(bind)
        threading.Thread(target=self._start_session, name="kconnect-spark-start", daemon=True).start()

    def _start_session(self) -> None:
        started = time.monotonic()
        try:
            session = build_session(self._conf)
        except Exception as exc:  # reported to every waiting task and to `ready`
            log.exception("Spark failed to start")
            self._call_soon(self._session_failed, exc)
            return
        self._startup_s = time.monotonic() - started
        self._call_soon(self._session_ready, session)
        if self._archive is not None and not self._archive.is_file():
            build_in_background(self._conf, self._archive)

    def _session_ready(self, session: Any) -> None:
        self._session = session
        self._slots_changed(registered_task_slots(session) if watched_slots(self._conf) else None, True)
        if watched_slots(self._conf):
            threading.Thread(target=self._watch_slots, name="kconnect-spark-slots", daemon=True).start()
        waiting, self._waiting = self._waiting, []
        for run in waiting:
            self._launch(run)

    def _watch_slots(self) -> None:
        """Slot-watch thread (clusters only): report Spark's registered task slots every `SLOT_WATCH_S`."""
        while not self._stopping.wait(SLOT_WATCH_S):
            registered = registered_task_slots(self._session)
            if self._stopping.is_set():
                return
            self._call_soon(self._slots_changed, registered, False)

    def _slots_changed(self, registered: int | None, first: bool) -> None:
        """Recount the task slots (see `slots.task_slots`); log a new count and recheck waiting runs."""
        slots = task_slots(self._conf, registered)
        if slots == self._slots and not first:
            return
        self._slots = slots
        log.info(
            "Spark has %s task slots; each Spark task hosts up to %d connector tasks",
            "an unknown number of" if slots is None else slots,
            self._capacity,
        )
        self._check_slots()

    def _session_failed(self, error: BaseException) -> None:
        assert self._listener is not None
        self._session_error = error
        waiting, self._waiting = self._waiting, []
        trace = "".join(traceback.format_exception(error))
        for run in waiting:
            self._forget(run)
            self._listener.on_failed(
                run.id, run.spec.generation, f"Spark failed to start, so the task cannot run:\n{trace}"
            )
            run.finished.set()

    def ready(self) -> bool:
        """True once Spark is up."""
        return self._session is not None

    def startup_error(self) -> str | None:
        """Why Spark failed to start, or None."""
        error = self._session_error
        return None if error is None else f"Spark failed to start: {type(error).__name__}: {error}"

    def connector_config_def(self) -> ConfigDef:
        """``executor.dedicated.spark.task``: each task of the connector in a Spark task of its own."""
        return dedicated_config_def()

    def placement(self) -> Placement:
        """Spark's task slots and every hosting Spark task with the connector tasks it runs."""
        hosts = tuple(
            TaskHost(
                host.order,
                "RUNNING" if host.connected else "WAITING",
                host.capacity,
                host.dedicated,
                tuple(run.id for run in host.runs),
                host.cpu,
            )
            for host in self._pool.launched()
        )
        unplaced = tuple(run.id for run in self._waiting)
        return Placement(self.name, self._slots, self._capacity, hosts, unplaced, self._startup_s)

    async def stop(self) -> None:
        """Stop all tasks gracefully, then Spark and the control channel."""
        timeout = self._config.task_shutdown_graceful_timeout_ms / 1000
        await asyncio.gather(*(self.stop_task(task, timeout) for task in list(self._runs)))
        self._stopping.set()
        # A host closed by the last stops is cancelled from a driver thread: Spark must still be up.
        await asyncio.gather(*self._closing_hosts, return_exceptions=True)
        if self._session is not None:
            await asyncio.to_thread(self._session.stop)
            self._session = None
        if self._server is not None:
            await self._server.close()

    # --- tasks -----------------------------------------------------------------------------------

    def start_task(self, spec: TaskSpec) -> None:
        """Launch the task now, or as soon as Spark is ready."""
        assert self._server is not None and self._listener is not None, "start the executor first"
        previous = self._runs.get(spec.id)
        if previous is not None:
            previous.stop_requested = True
            previous.target = TargetState.STOPPED
            previous.send_target()
        if self._session_error is not None:
            self._listener.on_failed(
                spec.id, spec.generation, f"Spark failed to start: {self._session_error!r}"
            )
            return
        run = TaskRun(spec, spec.target_state, next(self._order))
        self._runs[spec.id] = run
        self._server.add(run)
        if self._session is not None:
            self._launch(run)
        else:
            self._waiting.append(run)

    def set_target_state(self, task: ConnectorTaskId, state: TargetState) -> None:
        """Pause or resume a task over its control channel."""
        run = self._runs.get(task)
        if run is not None and state is not TargetState.STOPPED:
            run.target = state
            run.send_target()

    def reset_active_topics(self, connector: str) -> None:
        """Have the connector's connected tasks report their topics again (KIP-558 reset)."""
        for task, run in self._runs.items():
            if task.connector == connector:
                run.send_topics_reset()

    async def stop_task(self, task: ConnectorTaskId, timeout_s: float) -> None:
        """Ask the task to stop; cancel its Spark job if it has not ended after `timeout_s`."""
        run = self._runs.get(task)
        if run is None:
            return
        run.stop_requested = True
        run.target = TargetState.STOPPED
        run.send_target()
        if not run.launched:
            assert self._listener is not None
            self._waiting.remove(run)
            self._forget(run)
            self._listener.on_stopped(run.id, run.spec.generation)
            run.finished.set()
            return
        if not run.connected:  # still waiting for a slot: nothing to commit, nothing to wait for
            await self._cancel(run, "it was stopped before its Spark task started")
        try:
            await asyncio.wait_for(run.finished.wait(), timeout_s)
        except TimeoutError:
            log.warning("Task %s did not stop within %.1f s; cancelling its Spark job", task, timeout_s)
            await self._cancel(run, f"it did not stop within {timeout_s:.1f} s")
            await run.finished.wait()

    def _launch(self, run: TaskRun) -> None:
        """Place the run on a host (`HostPool.place`) and supervise it."""
        assert self._loop is not None
        run.launched = True
        self._pool.place(run, self._spread())
        supervisor = self._loop.create_task(self._supervise(run), name=f"kconnect-supervise-{run.id}")
        self._supervisors.add(supervisor)
        supervisor.add_done_callback(self._supervisors.discard)
        self._check_slots()

    def _spread(self) -> int:
        """How many shared hosts to open before tasks share one: the cores Spark has (local: the
        master's threads, at most this machine's CPUs; a cluster: its task slots, or
        `UNKNOWN_SLOTS_SPREAD` while no executor has registered and nothing else says)."""
        threads = local_threads(self._conf.get("spark.master", "local[*]"))
        if threads is not None:
            return max(1, min(threads, os.cpu_count() or 1))
        return self._slots or UNKNOWN_SLOTS_SPREAD

    def _task_launch(self, run: TaskRun) -> str:
        """What a host of the run's runtime starts the task from (a ``run`` message's launch)."""
        assert self._server is not None
        if run.spec.runtime == "java":
            return java_job.launch(run.spec, self._control_host, self._server.port, run.token)
        return encode_launch(TaskLaunch(run.spec, self._control_host, self._server.port, run.token))

    def _submit_host(self, host: HostRun) -> None:
        """Start a new host: expect its connection, submit its job from a driver thread."""
        assert self._server is not None
        host.launched = True
        self._server.add_host(host)
        launch = HostLaunch(host.label, self._control_host, self._server.port, host.token, host.capacity)
        job: tuple[Any, ...] = (self._run_job, host, launch)
        if host.runtime == "java":
            job = (self._run_java_job, host, java_job.host_launch(launch))
        threading.Thread(target=job[0], args=job[1:], name=f"kconnect-{host.job_group}", daemon=True).start()

    def _run_job(self, host: HostRun, launch: HostLaunch) -> None:
        """Driver thread: submit the host's one-partition job and wait for it to end."""
        context = self._session.sparkContext
        context.setJobGroup(host.job_group, f"kconnect {host.label}", interruptOnCancel=True)
        error: str | None = None
        try:
            context.parallelize([pickle.dumps(launch)], 1).mapPartitions(run_partition).collect()
        except Exception:
            error = traceback.format_exc()
        self._call_soon(self._host_ended, host, error)

    def _run_java_job(self, host: HostRun, launch: str) -> None:
        """Driver thread: submit a Java host's job (`kconnect_spark.java_job`) and wait for it to end."""
        context = self._session.sparkContext
        context.setJobGroup(host.job_group, f"kconnect {host.label} (Java)", interruptOnCancel=True)
        error: str | None = None
        try:
            java_job.run(context, launch)
        except Exception:
            error = traceback.format_exc()
        self._call_soon(self._host_ended, host, error)

    def _host_connected(self, host: HostRun) -> None:
        self._pool.connected(host)
        self._check_slots()

    def _host_ended(self, host: HostRun, error: str | None) -> None:
        assert self._server is not None
        self._pool.ended(host, error)
        self._server.remove_host(host)
        self._check_slots()

    async def _supervise(self, run: TaskRun) -> None:
        """Report the run's end once its Spark job has ended and its channel has closed."""
        assert self._loop is not None
        watch = self._loop.create_task(self._watch_start(run))
        try:
            await wait_for_end(
                run, lambda reason: self._cancel(run, reason), CHANNEL_LOSS_GRACE_S, CLOSE_GRACE_S
            )
        finally:
            watch.cancel()
        if run.reported is None and not run.stop_requested and self._session is not None:
            run.attempt_errors = await asyncio.to_thread(failed_attempts, self._session, run.job_group)
        self._finish(run)

    async def _watch_start(self, run: TaskRun) -> None:
        """Say why a run's Spark task has not started after `START_REPORT_S`, when no slot count did."""
        await asyncio.sleep(START_REPORT_S)
        if run.connected or run.waiting_reported or self._listener is None:
            return
        run.waiting_reported = True
        needed = len(self._pool.launched())
        reason = not_started_reason(START_REPORT_S, self._slots, needed)
        log.warning("Task %s: %s", run.id, reason)
        self._listener.on_unassigned(run.id, run.spec.generation, reason)

    def _finish(self, run: TaskRun) -> None:
        """Report how the run ended (see `outcome.decide`) and take it off its host."""
        assert self._listener is not None
        self._forget(run)
        report = decide(run.end())
        if report is not None and report.state == "FAILED":
            log.error("Task %s failed: %s", run.id, (report.trace or "").splitlines()[0])
            self._listener.on_failed(run.id, run.spec.generation, report.trace or "")
        elif report is not None:
            self._listener.on_stopped(run.id, run.spec.generation)
        run.finished.set()
        self._check_slots()

    def _forget(self, run: TaskRun) -> None:
        """Drop a finished run; its host is closed once it has no task left."""
        assert self._server is not None
        self._server.remove(run)
        if self._runs.get(run.id) is run:
            del self._runs[run.id]
        group = self._pool.release(run)
        if group is not None and self._session is not None and self._loop is not None:
            closing = self._loop.run_in_executor(None, self._session.sparkContext.cancelJobGroup, group)
            self._closing_hosts.add(closing)
            closing.add_done_callback(self._host_closed)

    def _host_closed(self, closing: asyncio.Future[None]) -> None:
        """A closed host's job group is cancelled; a failure to cancel is logged, never left unread."""
        self._closing_hosts.discard(closing)
        error = None if closing.cancelled() else closing.exception()
        if error is not None:
            log.warning("Could not cancel the Spark job of a closed task host: %s", error)

    async def _cancel(self, run: TaskRun, reason: str) -> None:
        """End the run without waiting for it (`HostPool.abandon`); `reason` ends up in its trace
        unless a stop was requested."""
        run.cancelled = run.cancelled or reason
        group = self._pool.abandon(run)
        if group is not None and self._session is not None:
            await asyncio.to_thread(self._session.sparkContext.cancelJobGroup, group)

    def _check_slots(self) -> None:
        """Mark the launched runs that cannot have a Spark task slot as waiting for one.

        Called whenever a run launches, connects or ends; `slots.without_slot` says which wait.
        """
        if self._slots is None or self._listener is None:
            return
        active = self._pool.launched()
        pending = [host for host in active if not host.connected]
        for host in without_slot(self._slots, len(active), pending, lambda host: host.order):
            for run in host.runs:
                if run.waiting_reported:
                    continue
                run.waiting_reported = True
                log.warning(
                    "Spark has %d task slots and %d Spark tasks hosting connector tasks need one: "
                    "task %s waits for a free slot",
                    self._slots,
                    len(active),
                    run.id,
                )
                self._listener.on_unassigned(
                    run.id, run.spec.generation, waiting_reason(self._slots, len(active))
                )

    def _call_soon(self, callback: Any, *args: Any) -> None:
        assert self._loop is not None
        self._loop.call_soon_threadsafe(callback, *args)


def _hostname() -> str:
    import socket

    return socket.getfqdn()
