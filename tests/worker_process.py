"""Runs a real ``kconnect standalone`` worker process for integration tests, and talks to it."""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import sysconfig
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

#: How often `WorkerProcess.wait_for` and `start` check again. A wait ends on average half an interval
#: after its condition came true, and the REST tests wait about twice each; a check is one small call.
POLL_INTERVAL_S = 0.1


def free_port() -> int:
    """A free loopback TCP port."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def write_properties(path: Path, props: Mapping[str, str]) -> Path:
    """Write a Java-style properties file (values here contain no characters needing escapes)."""
    path.write_text("".join(f"{k}={v}\n" for k, v in props.items()), encoding="utf-8")
    return path


class WorkerProcess:
    """A kconnect worker subprocess with its REST base URL and log file.

    `mode` is ``standalone`` (connector files allowed) or ``distributed``. With `tls` (a client's
    SSL context) the worker listens on ``https://`` and every REST call here verifies with it."""

    def __init__(
        self,
        workdir: Path,
        worker_props: Mapping[str, str],
        connector_files: list[Path] | None = None,
        env: Mapping[str, str] | None = None,
        python: str = sys.executable,
        mode: str = "standalone",
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.python = python
        self.mode = mode
        self.workdir = workdir
        self.port = free_port()
        self.verify: ssl.SSLContext | bool = tls if tls is not None else True
        scheme = "http" if tls is None else "https"
        props = {"listeners": f"{scheme}://127.0.0.1:{self.port}", **worker_props}
        self.worker_file = write_properties(workdir / f"worker-{self.port}.properties", props)
        self.connector_files = connector_files or []
        self.log_path = workdir / f"worker-{self.port}.log"
        self.env = {**os.environ, **(env or {})}
        self.process: subprocess.Popen[bytes] | None = None
        self.interrupted = False
        self.url = f"{scheme}://127.0.0.1:{self.port}"

    @classmethod
    def from_files(
        cls, workdir: Path, worker_file: Path, connector_files: list[Path], url: str
    ) -> WorkerProcess:
        """A worker run from an existing worker file, unchanged (its own listener at `url`)."""
        worker = cls.__new__(cls)
        worker.python = sys.executable
        worker.mode = "standalone"
        worker.workdir = workdir
        worker.port = int(url.rsplit(":", 1)[1])
        worker.worker_file = worker_file
        worker.connector_files = connector_files
        worker.log_path = workdir / "worker.log"
        worker.env = dict(os.environ)
        worker.process = None
        worker.interrupted = False
        worker.url = url
        worker.verify = True
        return worker

    def start(self, timeout: float = 60.0) -> WorkerProcess:
        """Start the process and wait until its REST server answers."""
        command = [
            self.python,
            "-m",
            "kconnect_rest.cli",
            self.mode,
            str(self.worker_file),
            *map(str, self.connector_files),
        ]
        self._log = self.log_path.open("ab")
        self.interrupted = False
        self.process = subprocess.Popen(
            command, cwd=self.workdir, stdout=self._log, stderr=subprocess.STDOUT, env=self.env
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"worker exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                httpx.get(self.url + "/", timeout=1, verify=self.verify)
                return self
            except httpx.HTTPError:
                time.sleep(POLL_INTERVAL_S)
        raise RuntimeError(f"worker REST did not come up:\n{self.log_tail()}")

    def stop(self, timeout: float = 60.0) -> int:
        """SIGINT (graceful: offsets committed), then wait; kill after `timeout`."""
        self.interrupt()
        if self.process is None:
            return 0
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._log.close()
        return int(self.process.returncode)

    def interrupt(self) -> None:
        """Send SIGINT once, so the graceful stop begins; `stop` waits for it. A second SIGINT would
        cut the stop short, so a worker already interrupted (or exited) gets none."""
        if self.process is not None and self.process.poll() is None and not self.interrupted:
            self.process.send_signal(signal.SIGINT)
            self.interrupted = True

    def log_tail(self, lines: int = 60) -> str:
        """The end of the worker's log, for failure messages."""
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "<no log>"

    # --- REST helpers ----------------------------------------------------------------------------

    def get(self, path: str, **kwargs: Any) -> httpx.Response:
        """GET a REST path."""
        return httpx.get(self.url + path, timeout=30, verify=self.verify, **kwargs)

    def request(self, method: str, path: str, body: Any = None, **kwargs: Any) -> httpx.Response:
        """Any REST call, with a JSON body when given."""
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

    def wait_for(self, what: str, check: Callable[[], bool], timeout: float = 90.0) -> None:
        """Poll `check` until true, else fail naming `what` with the log tail."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if check():
                    return
            except (httpx.HTTPError, KeyError, ValueError):
                pass
            time.sleep(POLL_INTERVAL_S)
        raise AssertionError(f"timed out waiting for {what}\n--- worker log ---\n{self.log_tail()}")

    def status(self, connector: str) -> dict[str, Any]:
        """The connector's status JSON (the name URL-encoded, so any name works)."""
        response = self.get(f"/connectors/{quote(connector, safe='')}/status")
        response.raise_for_status()
        return dict(response.json())

    def wait_for_state(
        self, connector: str, state: str, tasks: int | None = None, timeout: float = 90.0
    ) -> None:
        """Wait until the connector and all its tasks are in `state` (and there are `tasks` tasks)."""

        def reached() -> bool:
            body = self.status(connector)
            states = [t["state"] for t in body["tasks"]]
            return (
                body["connector"]["state"] == state
                and all(s == state for s in states)
                and (tasks is None or len(states) == tasks)
            )

        self.wait_for(f"{connector} to be {state}", reached, timeout)


def stop_all(workers: list[WorkerProcess], timeout: float = 60.0) -> list[int]:
    """Stop `workers` together: SIGINT to every one first, then wait for each; their exit codes.

    One after the other, each stop would wait for the one before, and the workers still running
    would rebalance every departed worker's tasks among themselves, work a full stop throws away.
    """
    for worker in workers:
        worker.interrupt()
    return [worker.stop(timeout) for worker in workers]


def descendants(pid: int) -> list[int]:
    """Every process started (directly or not) by `pid`."""
    found: list[int] = []
    children = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    for child in map(int, children):
        found += [child, *descendants(child)]
    return found


def kill_worker_and_its_processes(worker: WorkerProcess) -> None:
    """SIGKILL the worker and all its descendants (Spark's JVM and Python workers) at once, as a
    process group kill would."""
    assert worker.process is not None
    victims = [worker.process.pid, *descendants(worker.process.pid)]
    for pid in victims:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    worker.process.wait()


def venv_without(distribution: str, where: Path) -> str:
    """A throwaway virtualenv with every package of this one except `distribution`; returns its python.

    The shared test environment is left alone: the new venv links to this one's packages, except the
    files `distribution` installed, which are copied and then removed by a real ``pip uninstall`` run
    in the new venv, so the worker sees exactly what a user sees after uninstalling it.
    """
    site = Path(sysconfig.get_paths()["purelib"])
    owned = {Path(str(f)).parts[0] for f in importlib.metadata.distribution(distribution).files or ()}
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    python = str(where / "bin" / "python")
    purelib = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    new_site = Path(
        subprocess.run([python, "-c", purelib], check=True, capture_output=True, text=True).stdout.strip()
    )
    for entry in site.iterdir():
        if entry.name not in owned:
            (new_site / entry.name).symlink_to(entry)
        elif entry.is_dir():
            shutil.copytree(entry, new_site / entry.name, symlinks=True)
        else:
            shutil.copy2(entry, new_site / entry.name)
    pip = [python, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "uninstall", "-y", distribution], check=True)
    return python


def count_lines(path: Path) -> int:
    """Lines in a file (0 if it does not exist)."""
    if not path.exists():
        return 0
    return path.read_bytes().count(b"\n")
