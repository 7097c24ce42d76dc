"""SparkExecutor: each connector task is one long-running Spark task.

`start_task` submits a one-partition Spark job from a dedicated driver thread; the job's single
Spark task runs the kernel's task loop (`kconnect_spark.remote`) until the worker asks it to stop.
Pause and resume travel over the control channel, so they take effect within milliseconds and
cost no Spark job. Stopping is graceful (the loop commits offsets and returns, the job ends);
after the timeout the job group is cancelled.

The SparkSession starts in a background thread when the executor starts, so the REST server is
up at once; tasks started meanwhile are launched as soon as Spark is ready.
"""

from __future__ import annotations

import asyncio
import logging
import pickle
import threading
import traceback
from typing import Any

from kconnect.executor import TaskListener, TaskSpec
from kconnect.herder.model import ConnectorTaskId, TargetState
from kconnect.worker_config import WorkerConfig

from kconnect_spark.control_server import ControlServer, TaskRun
from kconnect_spark.remote import TaskLaunch, run_partition
from kconnect_spark.session import build_session, is_local, spark_conf

log = logging.getLogger(__name__)


class SparkExecutor:
    """Runs every task inside a Spark task of the worker's SparkSession."""

    name = "spark"

    def __init__(self, config: WorkerConfig) -> None:
        self._config = config
        self._conf = spark_conf(config.props)
        self._runs: dict[ConnectorTaskId, TaskRun] = {}
        self._waiting: list[TaskRun] = []
        self._session: Any = None
        self._session_error: BaseException | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._listener: TaskListener | None = None
        self._server: ControlServer | None = None
        self._control_host = config.props.get(
            "executor.control.host", "127.0.0.1" if is_local(self._conf) else _hostname()
        )

    # --- lifecycle -------------------------------------------------------------------------------

    async def start(self, listener: TaskListener) -> None:
        """Open the control channel and start Spark in the background."""
        self._loop = asyncio.get_running_loop()
        self._listener = listener
        self._server = ControlServer(listener)
        bind = self._control_host if is_local(self._conf) else "0.0.0.0"
        await self._server.start(bind)
        threading.Thread(target=self._start_session, name="kconnect-spark-start", daemon=True).start()

    def _start_session(self) -> None:
        try:
            session = build_session(self._conf)
        except Exception as exc:  # reported to every waiting task and to `ready`
            log.exception("Spark failed to start")
            self._call_soon(self._session_failed, exc)
            return
        self._call_soon(self._session_ready, session)

    def _session_ready(self, session: Any) -> None:
        self._session = session
        waiting, self._waiting = self._waiting, []
        for run in waiting:
            self._launch(run)

    def _session_failed(self, error: BaseException) -> None:
        self._session_error = error
        waiting, self._waiting = self._waiting, []
        trace = "".join(traceback.format_exception(error))
        for run in waiting:
            self._finish(run, f"Spark failed to start, so the task cannot run:\n{trace}")

    def ready(self) -> bool:
        """True once Spark is up."""
        return self._session is not None

    def startup_error(self) -> str | None:
        """Why Spark failed to start, or None."""
        error = self._session_error
        return None if error is None else f"Spark failed to start: {type(error).__name__}: {error}"

    async def stop(self) -> None:
        """Stop all tasks gracefully, then Spark and the control channel."""
        timeout = self._config.task_shutdown_graceful_timeout_ms / 1000
        await asyncio.gather(*(self.stop_task(task, timeout) for task in list(self._runs)))
        if self._session is not None:
            await asyncio.to_thread(self._session.stop)
            self._session = None
        if self._server is not None:
            await self._server.close()

    # --- tasks -----------------------------------------------------------------------------------

    def start_task(self, spec: TaskSpec) -> None:
        """Launch the task now, or as soon as Spark is ready."""
        assert self._server is not None, "start the executor first"
        previous = self._runs.get(spec.id)
        if previous is not None:
            previous.stop_requested = True
            previous.target = TargetState.STOPPED
            previous.send_target()
        run = TaskRun(spec, spec.target_state)
        self._runs[spec.id] = run
        self._server.add(run)
        if self._session is not None:
            self._launch(run)
        elif self._session_error is not None:
            self._finish(run, f"Spark failed to start: {self._session_error!r}")
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
        if run in self._waiting:
            self._waiting.remove(run)
            self._finish(run, None)
            return
        try:
            await asyncio.wait_for(run.finished.wait(), timeout_s)
        except TimeoutError:
            log.warning("Task %s did not stop within %.1f s; cancelling its Spark job", task, timeout_s)
            if self._session is not None:
                await asyncio.to_thread(self._session.sparkContext.cancelJobGroup, _job_group(run))
            await run.finished.wait()

    def _launch(self, run: TaskRun) -> None:
        assert self._server is not None
        launch = TaskLaunch(run.spec, self._control_host, self._server.port, run.token)
        threading.Thread(
            target=self._run_job, args=(run, launch), name=f"kconnect-{run.id}", daemon=True
        ).start()

    def _run_job(self, run: TaskRun, launch: TaskLaunch) -> None:
        """Driver thread: submit the task's one-partition job and wait for it to end."""
        context = self._session.sparkContext
        context.setJobGroup(_job_group(run), f"kconnect task {run.id}", interruptOnCancel=True)
        error: str | None = None
        try:
            context.parallelize([pickle.dumps(launch)], 1).mapPartitions(run_partition).collect()
        except Exception:
            error = traceback.format_exc()
        self._call_soon(self._finish, run, error)

    def _finish(self, run: TaskRun, spark_error: str | None) -> None:
        """The task's Spark job ended: report STOPPED, or FAILED if it died without saying so."""
        assert self._listener is not None and self._server is not None
        self._server.remove(run)
        run.finished.set()
        if self._runs.get(run.id) is run:
            del self._runs[run.id]
        if run.failed:
            return
        if spark_error is not None and not run.stop_requested:
            self._listener.on_failed(run.id, run.spec.generation, spark_error)
        else:
            self._listener.on_stopped(run.id, run.spec.generation)

    def _call_soon(self, callback: Any, *args: Any) -> None:
        assert self._loop is not None
        self._loop.call_soon_threadsafe(callback, *args)


def _job_group(run: TaskRun) -> str:
    return f"kconnect-{run.id}-{run.token[:8]}"


def _hostname() -> str:
    import socket

    return socket.getfqdn()
