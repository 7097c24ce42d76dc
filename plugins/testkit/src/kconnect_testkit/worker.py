"""A real kconnect worker process for tests, and the REST calls a test makes.

The worker runs ``python -m kconnect_rest.cli standalone|distributed`` with the test's own Python (or
another interpreter), so it loads exactly the plugins installed in that environment, as a user's
worker would. `WorkerProcess` runs a worker file as given; `KconnectWorker` adds the defaults a
plugin's test wants (``bootstrap.servers``, an offsets file) and fails fast on a FAILED task.
"""

from __future__ import annotations

import json
import os
import signal
import ssl
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any, TypeVar
from urllib.parse import quote

import httpx

from kconnect_testkit.broker import free_port

#: How often the waits here check again. A wait ends on average half an interval after its
#: condition came true; a check is one small call.
POLL_INTERVAL_S = 0.1

#: How many other free ports a worker whose chosen port was taken tries before giving up.
PORT_RETRIES = 5


def write_properties(path: Path, props: Mapping[str, str]) -> Path:
    """Write a Java-style properties file (values here contain no characters needing escapes)."""
    path.write_text("".join(f"{k}={v}\n" for k, v in props.items()), encoding="utf-8")
    return path


#: The errors a check may raise while what it waits for is not there yet: the worker not answering
#: yet, a body without the field yet.
NOT_YET: tuple[type[BaseException], ...] = (httpx.HTTPError, KeyError, ValueError)


def wait_until(
    what: str,
    check: Callable[[], bool],
    timeout: float,
    describe: Callable[[], str] = lambda: "",
    not_yet: tuple[type[BaseException], ...] = NOT_YET,
) -> None:
    """Poll `check` until true; AssertionError naming `what` and `describe()` (a log tail) if it never
    is. A check raising one of `not_yet` counts as not yet true."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except not_yet:
            pass
        time.sleep(POLL_INTERVAL_S)
    raise AssertionError(f"timed out waiting for {what}\n{describe()}".rstrip())


_Worker = TypeVar("_Worker", bound="WorkerProcess")


class PortTaken(Exception):
    """A worker exited because another process had bound the port chosen for it."""


class WorkerProcess:
    """A kconnect worker subprocess on a free loopback port, with its REST base `url` and `log_path`.

    `mode` is ``standalone`` (connector files allowed) or ``distributed``. `worker_props` are written
    as given, after the ``listeners`` line. With `tls` (a client's SSL context) the worker listens on
    ``https://`` and every REST call here verifies with it. `port` defaults to a free one. With
    `own_process_group` the worker leads a process group of its own (as under systemd or in a terminal
    of its own), so a test can signal the whole group as those do, without signalling pytest.

    A free port is only free when chosen: another process (a Kafka client's outgoing connection takes
    one from the same range) may bind it before the worker does. A worker on a port chosen here that
    exits because its port was taken is started again on another free port (`url` and `port` follow);
    a port the caller gave is kept, and its failure raised."""

    def __init__(
        self,
        workdir: Path,
        worker_props: Mapping[str, str],
        connector_files: list[Path] | None = None,
        env: Mapping[str, str] | None = None,
        python: str = sys.executable,
        mode: str = "standalone",
        tls: ssl.SSLContext | None = None,
        port: int | None = None,
        own_process_group: bool = False,
    ) -> None:
        self.python = python
        self.own_process_group = own_process_group
        self.mode = mode
        self.workdir = workdir
        self.port = port or free_port()
        self.port_chosen = port is None
        self.verify: ssl.SSLContext | bool = tls if tls is not None else True
        scheme = "http" if tls is None else "https"
        self.url = f"{scheme}://127.0.0.1:{self.port}"
        props = {"listeners": self.url, **worker_props}
        self.worker_file = write_properties(workdir / f"worker-{self.port}.properties", props)
        self.connector_files = connector_files or []
        self.log_path = workdir / f"worker-{self.port}.log"
        self.env = {**os.environ, **(env or {})}
        self.process: subprocess.Popen[bytes] | None = None
        self.interrupted = False
        self._log: IO[bytes] | None = None

    @classmethod
    def from_files(
        cls, workdir: Path, worker_file: Path, connector_files: list[Path], url: str
    ) -> WorkerProcess:
        """A standalone worker run from an existing worker file, unchanged (its own listener at `url`)."""
        worker = cls.__new__(cls)
        worker.python = sys.executable
        worker.mode = "standalone"
        worker.workdir = workdir
        worker.port = int(url.rsplit(":", 1)[1])
        worker.port_chosen = False
        worker.verify = True
        worker.url = url
        worker.worker_file = worker_file
        worker.connector_files = connector_files
        worker.log_path = workdir / "worker.log"
        worker.env = dict(os.environ)
        worker.process = None
        worker.own_process_group = False
        worker.interrupted = False
        worker._log = None
        return worker

    # --- the process -----------------------------------------------------------------------------

    def start(self: _Worker, timeout: float = 60.0) -> _Worker:
        """Start the process and return once its REST API answers; RuntimeError with the log if not."""
        for _ in range(PORT_RETRIES):
            try:
                return self._start_once(timeout)
            except PortTaken:
                self._move_to(free_port(exclude=self.port))
        return self._start_once(timeout)

    def _start_once(self: _Worker, timeout: float) -> _Worker:
        """One start; PortTaken if the worker exits because another process bound its chosen port."""
        command = [
            self.python,
            "-m",
            "kconnect_rest.cli",
            self.mode,
            str(self.worker_file),
            *map(str, self.connector_files),
        ]
        self._log = self.log_path.open("ab")
        log_start = self._log.tell()
        self.interrupted = False
        self.process = subprocess.Popen(
            command,
            cwd=self.workdir,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            env=self.env,
            start_new_session=self.own_process_group,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                self._log.close()
                if self.port_chosen and self._bind_failed(log_start):
                    raise PortTaken(self.port)
                raise RuntimeError(f"the worker exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                httpx.get(self.url + "/", timeout=1, verify=self.verify)
                return self
            except httpx.HTTPError:
                time.sleep(POLL_INTERVAL_S)
        raise RuntimeError(f"the worker's REST API did not answer within {timeout:.0f} s:\n{self.log_tail()}")

    def _bind_failed(self, log_start: int) -> bool:
        """Whether the run whose output began at `log_start` ended on its own port being in use."""
        with self.log_path.open("rb") as log:
            log.seek(log_start)
            output = log.read().decode(errors="replace")
        return f"cannot bind REST server to 127.0.0.1:{self.port}: Address already in use" in output

    def _move_to(self, port: int) -> None:
        """Point the worker file's listener (and `url`, `port`) at `port` instead of the taken one."""
        old = f"127.0.0.1:{self.port}"
        new = f"127.0.0.1:{port}"
        self.worker_file.write_text(
            self.worker_file.read_text(encoding="utf-8").replace(old, new), encoding="utf-8"
        )
        self.url = self.url.replace(old, new)
        self.port = port

    def stop(self, timeout: float = 60.0) -> int:
        """SIGINT (a graceful stop: tasks stopped, offsets committed), then wait; kill after `timeout`."""
        self.interrupt()
        if self.process is None:
            return 0
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self._log is not None:
            self._log.close()
        return int(self.process.returncode)

    def interrupt(self) -> None:
        """Send SIGINT once, so the graceful stop begins; `stop` waits for it. A second SIGINT would
        cut the stop short, so a worker already interrupted (or exited) gets none."""
        if self.process is not None and self.process.poll() is None and not self.interrupted:
            self.process.send_signal(signal.SIGINT)
            self.interrupted = True

    def log_tail(self, lines: int = 60) -> str:
        """The end of the worker's log, for a failure message."""
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "<no log>"

    # --- REST ------------------------------------------------------------------------------------

    def get(self, path: str, **kwargs: Any) -> httpx.Response:
        """GET a REST path."""
        return httpx.get(self.url + path, timeout=30, verify=self.verify, **kwargs)

    def request(self, method: str, path: str, body: Any = None, **kwargs: Any) -> httpx.Response:
        """Any REST call, with `body` sent as JSON when given."""
        content = None if body is None else json.dumps(body)
        headers = {"Content-Type": "application/json"} if body is not None else {}
        return httpx.request(
            method,
            self.url + path,
            content=content,
            headers=headers,
            timeout=30,
            verify=self.verify,
            **kwargs,
        )

    def status(self, connector: str) -> dict[str, Any]:
        """``GET /connectors/{connector}/status`` (the name URL-encoded, so any name works)."""
        response = self.get(f"/connectors/{quote(connector, safe='')}/status")
        response.raise_for_status()
        return dict(response.json())

    def wait_for(self, what: str, check: Callable[[], bool], timeout: float = 90.0) -> None:
        """Poll `check` until true; AssertionError naming `what`, with the worker's log, if it never is."""
        wait_until(what, check, timeout, lambda: f"--- worker log ---\n{self.log_tail()}")

    def wait_for_state(
        self,
        connector: str,
        state: str = "RUNNING",
        tasks: int | None = None,
        timeout: float = 90.0,
        fail_fast: bool = False,
        min_tasks: int = 0,
    ) -> dict[str, Any]:
        """Wait until the connector and all its tasks are in `state`, with exactly `tasks` tasks (when
        given) or at least `min_tasks`; the status. With `fail_fast`, a connector or task that FAILED
        instead ends the wait at once with its trace (without it, a FAILED task about to be restarted
        is waited through)."""
        seen: dict[str, Any] = {}

        def reached() -> bool:
            seen.clear()
            seen.update(self.status(connector))
            states = [seen["connector"], *seen["tasks"]]
            failed = [s for s in states if s["state"] == "FAILED" and state != "FAILED"]
            if fail_fast and failed:
                raise AssertionError(f"{connector} failed:\n{failed[0].get('trace', '')}")
            count = len(seen["tasks"])
            enough = count == tasks if tasks is not None else count >= min_tasks
            return enough and all(s["state"] == state for s in states)

        self.wait_for(f"{connector} to be {state}", reached, timeout)
        return seen


class KconnectWorker(WorkerProcess):
    """A standalone worker for a plugin's tests, on the test broker.

    `worker_props` add to (or override) the defaults: ``bootstrap.servers`` and an offsets file in
    `workdir`. Start it with `start`; `stop` ends it gracefully (offsets committed). Its waits for a
    state fail at once when a task FAILED, with the task's trace."""

    def __init__(
        self,
        workdir: Path,
        bootstrap_servers: str,
        worker_props: Mapping[str, str] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        port = free_port()
        props = {
            "bootstrap.servers": bootstrap_servers,
            "offset.storage.file.filename": str(workdir / f"offsets-{port}"),
            "offset.flush.interval.ms": "1000",
            **(worker_props or {}),
        }
        super().__init__(workdir, props, env=env, port=port)
        self.port_chosen = True  # chosen here: another free one will do if it is taken

    def wait_for_state(
        self,
        connector: str,
        state: str = "RUNNING",
        tasks: int | None = None,
        timeout: float = 60.0,
        fail_fast: bool = True,
        min_tasks: int = 1,
    ) -> dict[str, Any]:
        """Wait until the connector and every one of its tasks (at least one) are in `state`; the status.

        A connector or task that FAILED instead ends the wait at once, with its trace."""
        return super().wait_for_state(connector, state, tasks, timeout, fail_fast, min_tasks)

    def run_connector(self, name: str, config: Mapping[str, str], timeout: float = 60.0) -> dict[str, Any]:
        """Create connector `name` with `config` (``POST /connectors``) and wait until it and its tasks are
        RUNNING; returns the status. AssertionError with the REST answer or the task's trace otherwise."""
        response = self.request("POST", "/connectors", {"name": name, "config": dict(config)})
        if response.status_code != 201:
            raise AssertionError(f"creating {name} answered {response.status_code}: {response.text}")
        return self.wait_for_state(name, "RUNNING", timeout=timeout)
