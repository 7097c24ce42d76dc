"""A real ``kconnect standalone`` worker process for a plugin's tests, and the REST calls a test makes.

The worker runs ``python -m kconnect_rest.cli standalone`` with the test's own Python, so it loads
exactly the plugins installed in the test's environment, as a user's worker would.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any
from urllib.parse import quote

import httpx

from kconnect_testkit.broker import free_port

#: How often the waits here check again.
POLL_INTERVAL_S = 0.1


class KconnectWorker:
    """One standalone worker process on a free loopback port: its REST `url`, `log_path` and helpers.

    `worker_props` add to (or override) the defaults: the listener, ``bootstrap.servers`` and an
    offsets file in `workdir`. Start it with `start`; `stop` ends it gracefully (offsets committed).
    """

    def __init__(
        self,
        workdir: Path,
        bootstrap_servers: str,
        worker_props: Mapping[str, str] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.workdir = workdir
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        props = {
            "listeners": self.url,
            "bootstrap.servers": bootstrap_servers,
            "offset.storage.file.filename": str(workdir / f"offsets-{self.port}"),
            "offset.flush.interval.ms": "1000",
            **(worker_props or {}),
        }
        self.worker_file = workdir / f"worker-{self.port}.properties"
        self.worker_file.write_text("".join(f"{k}={v}\n" for k, v in props.items()), encoding="utf-8")
        self.log_path = workdir / f"worker-{self.port}.log"
        self.env = {**os.environ, **(env or {})}
        self.process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    def start(self, timeout: float = 60.0) -> KconnectWorker:
        """Start the process and return once its REST API answers; RuntimeError with the log if not."""
        command = [sys.executable, "-m", "kconnect_rest.cli", "standalone", str(self.worker_file)]
        self._log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            command, cwd=self.workdir, stdout=self._log, stderr=subprocess.STDOUT, env=self.env
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the worker exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                httpx.get(self.url + "/", timeout=1)
                return self
            except httpx.HTTPError:
                time.sleep(POLL_INTERVAL_S)
        raise RuntimeError(f"the worker's REST API did not answer within {timeout:.0f} s:\n{self.log_tail()}")

    def stop(self, timeout: float = 60.0) -> int:
        """SIGINT (a graceful stop: tasks stopped, offsets committed), then wait; kill after `timeout`."""
        if self.process is None:
            return 0
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self._log is not None:
            self._log.close()
        return int(self.process.returncode)

    def log_tail(self, lines: int = 60) -> str:
        """The end of the worker's log, for a failure message."""
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "<no log>"

    # --- REST ------------------------------------------------------------------------------------------

    def request(self, method: str, path: str, body: Any = None) -> httpx.Response:
        """Any REST call, with `body` sent as JSON when given."""
        content = None if body is None else json.dumps(body)
        headers = {"Content-Type": "application/json"} if body is not None else {}
        return httpx.request(method, self.url + path, content=content, headers=headers, timeout=30)

    def status(self, connector: str) -> dict[str, Any]:
        """``GET /connectors/{connector}/status``."""
        response = self.request("GET", f"/connectors/{quote(connector, safe='')}/status")
        response.raise_for_status()
        return dict(response.json())

    def wait_for(self, what: str, check: Callable[[], bool], timeout: float = 60.0) -> None:
        """Poll `check` until true; AssertionError naming `what`, with the worker's log, if it never is."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if check():
                    return
            except (httpx.HTTPError, KeyError, ValueError):
                pass
            time.sleep(POLL_INTERVAL_S)
        raise AssertionError(f"timed out waiting for {what}\n--- worker log ---\n{self.log_tail()}")

    def wait_for_state(self, connector: str, state: str = "RUNNING", timeout: float = 60.0) -> dict[str, Any]:
        """Wait until the connector and every one of its tasks (at least one) are in `state`; the status.

        A connector or task that FAILED instead ends the wait at once, with its trace."""
        seen: dict[str, Any] = {}

        def reached() -> bool:
            seen.update(self.status(connector))
            states = [seen["connector"], *seen["tasks"]]
            failed = [s for s in states if s["state"] == "FAILED" and state != "FAILED"]
            if failed:
                raise AssertionError(f"{connector} failed:\n{failed[0].get('trace', '')}")
            return bool(seen["tasks"]) and all(s["state"] == state for s in states)

        self.wait_for(f"{connector} and its tasks to be {state}", reached, timeout)
        return seen

    def run_connector(self, name: str, config: Mapping[str, str], timeout: float = 60.0) -> dict[str, Any]:
        """Create connector `name` with `config` (``POST /connectors``) and wait until it and its tasks are
        RUNNING; returns the status. AssertionError with the REST answer or the task's trace otherwise."""
        response = self.request("POST", "/connectors", {"name": name, "config": dict(config)})
        if response.status_code != 201:
            raise AssertionError(f"creating {name} answered {response.status_code}: {response.text}")
        return self.wait_for_state(name, "RUNNING", timeout)
