"""A real Spark standalone cluster on this machine: one master and N workers, from pyspark's own jars.

Importable (``SparkCluster``) and a CLI::

    python scripts/spark_cluster.py start [--workers 2] [--cores 2] [--memory 1g]

Every daemon is ``spark-class org.apache.spark.deploy.master.Master`` / ``...worker.Worker`` from the
pip-installed pyspark (its ``SPARK_HOME`` is the ``pyspark`` package folder), bound to 127.0.0.1 on
free ports, with its work and scratch folders and its log in a temporary folder. Each daemon runs in
its own process group, so stopping one also stops the executors and Python workers it launched.
Every port is bound by Spark itself (port 0) and read back from the daemon's log, so two clusters
started at once (parallel test sessions) never race for a port picked in advance.
A kconnect worker uses the cluster with ``spark.master=<cluster.master_url>`` and
``executor.control.host=127.0.0.1`` (see ``docs/spark-cluster.md``).
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import json
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

logger = logging.getLogger(__name__)

MASTER_CLASS = "org.apache.spark.deploy.master.Master"
WORKER_CLASS = "org.apache.spark.deploy.worker.Worker"


class SparkClusterError(RuntimeError):
    """The cluster could not start; the message names the log to read and shows its end."""


class PortNotBoundYet(OSError):
    """The daemon's log does not say yet which port a service bound (it is still starting)."""


def logged_port(log_path: Path, service: str) -> int:
    """The port Spark's log says `service` bound (``Successfully started service '<service>' on port N``)."""
    pattern = re.compile(rf"Successfully started service '{re.escape(service)}' on port (\d+)")
    try:
        text = log_path.read_text(errors="replace")
    except FileNotFoundError:
        text = ""
    found = pattern.search(text)
    if found is None:
        raise PortNotBoundYet(f"{log_path.name} does not show the port of {service} yet")
    return int(found.group(1))


@dataclass
class Daemon:
    """One master or worker JVM: its process (leader of its own process group), log and web UI service."""

    name: str
    process: subprocess.Popen[bytes]
    log_path: Path
    #: The name Spark logs its web UI service under: ``MasterUI`` or ``WorkerUI``.
    ui_service: str
    #: Killed on purpose (`kill`): its exit is no start-up failure.
    killed: bool = False

    @property
    def webui_port(self) -> int:
        """The web UI's port, from the log; PortNotBoundYet (an OSError) until the UI is up."""
        return logged_port(self.log_path, self.ui_service)

    @property
    def running(self) -> bool:
        """Whether the JVM is alive."""
        return self.process.poll() is None

    def kill(self, sig: signal.Signals = signal.SIGKILL) -> None:
        """Send `sig` to the daemon's whole process group (its executors and Python workers too)."""
        self.killed = True
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, sig)


class SparkCluster:
    """A Spark standalone master and `workers` workers on loopback ports.

    Use as a context manager, or call ``start()`` and ``stop()``. ``start()`` returns once the
    master's JSON lists every worker ALIVE. The temporary folder (work dirs, scratch, logs) is
    deleted by ``stop()`` unless `keep_dir` is set.
    """

    def __init__(
        self,
        *,
        workers: int = 2,
        cores: int = 2,
        memory: str = "1g",
        daemon_heap: str = "256m",
        base_dir: str | Path | None = None,
        keep_dir: bool = False,
        startup_timeout: float = 90.0,
    ) -> None:
        self.worker_count = workers
        self.cores = cores
        self.memory = memory
        self.daemon_heap = daemon_heap
        self.base_dir = Path(base_dir) if base_dir else Path(tempfile.mkdtemp(prefix="kconnect-spark-"))
        self.keep_dir = keep_dir or base_dir is not None
        self.startup_timeout = startup_timeout
        self.master_port = 0
        self.master: Daemon | None = None
        self.workers: list[Daemon] = []

    # --- what clients use ------------------------------------------------------------------------

    @property
    def master_url(self) -> str:
        """The ``spark.master`` value of this cluster: ``spark://127.0.0.1:<port>``."""
        return f"spark://127.0.0.1:{self.master_port}"

    @property
    def master_webui_url(self) -> str:
        """The master's web UI (its JSON is at ``/json/``)."""
        assert self.master is not None, "start the cluster first"
        return f"http://127.0.0.1:{self.master.webui_port}"

    def state(self) -> dict[str, Any]:
        """The master's JSON: workers (state, cores, coresused), active and completed applications."""
        with urllib.request.urlopen(f"{self.master_webui_url}/json/", timeout=10) as response:
            answer: dict[str, Any] = json.load(response)
        return answer

    def running_workers(self) -> list[Daemon]:
        """The worker daemons whose JVM is alive (not killed)."""
        return [worker for worker in self.workers if worker.running and not worker.killed]

    def worker_state(self, worker: Daemon) -> dict[str, Any]:
        """A worker's own JSON: its executors (``appid``, ``id``) and finished ones."""
        url = f"http://127.0.0.1:{worker.webui_port}/json/"
        with urllib.request.urlopen(url, timeout=10) as response:
            answer: dict[str, Any] = json.load(response)
        return answer

    def alive_workers(self) -> list[dict[str, Any]]:
        """The workers the master lists as ALIVE."""
        return [w for w in self.state()["workers"] if w.get("state") == "ALIVE"]

    def logs(self, lines: int = 30) -> str:
        """The end of every daemon's log, for failure messages."""
        daemons = [d for d in (self.master, *self.workers) if d is not None]
        return "\n".join(f"--- {d.log_path} ---\n{_tail(d.log_path, lines)}" for d in daemons)

    # --- lifecycle -------------------------------------------------------------------------------

    def __enter__(self) -> SparkCluster:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def start(self) -> SparkCluster:
        """Start the master, then the workers; return once the master lists them all ALIVE.

        Steps: the master on a port and a web UI port it binds itself (its REST submission server off,
        so no fixed port is taken), both read from its log; wait for its JSON to say ALIVE; each
        worker with `cores` cores and `memory`, its own work dir; wait until the master lists
        `workers` workers ALIVE. On any failure everything started is stopped and the error shows
        the logs' ends.
        """
        try:
            self.master = master = self._launch(
                "master",
                MASTER_CLASS,
                ["--host", "127.0.0.1", "--port", "0"],
                "SPARK_MASTER_OPTS",
                "MasterUI",
            )
            self._wait("the master's port", lambda: bool(self._read_master_port(master)))
            self._wait("the master to be ALIVE", lambda: self.state().get("status") == "ALIVE")
            for _ in range(self.worker_count):
                self.start_worker()
            self.wait_for_workers(self.worker_count)
        except BaseException:
            self.stop()
            raise
        atexit.register(self.stop)
        logger.info(
            "Spark cluster ready: %s (web UI %s), %d workers x %d cores, logs in %s",
            self.master_url,
            self.master_webui_url,
            self.worker_count,
            self.cores,
            self.base_dir,
        )
        return self

    def start_worker(self) -> Daemon:
        """Start one more worker (also to replace a killed one); it registers with the master."""
        index = len(self.workers) + 1
        work_dir = self.base_dir / f"worker-{index}"
        worker = self._launch(
            f"worker-{index}",
            WORKER_CLASS,
            [
                self.master_url,
                "--host",
                "127.0.0.1",
                "--cores",
                str(self.cores),
                "--memory",
                self.memory,
                "--work-dir",
                str(work_dir),
            ],
            "SPARK_WORKER_OPTS",
            "WorkerUI",
        )
        self.workers.append(worker)
        return worker

    def replace_dead_workers(self) -> None:
        """Start a worker for each one that died or was killed, and wait until the master lists
        exactly the running ones ALIVE (a killed worker stays ALIVE there until the master notices)."""
        for _ in range(self.worker_count - len(self.running_workers())):
            self.start_worker()
        self._wait(
            f"the master to list the {self.worker_count} running workers ALIVE",
            lambda: (
                {w["webuiaddress"] for w in self.alive_workers()}
                == {f"http://127.0.0.1:{d.webui_port}" for d in self.running_workers()}
            ),
        )

    def wait_for_workers(self, count: int) -> None:
        """Wait until the master lists `count` workers ALIVE."""
        self._wait(f"{count} workers ALIVE in the master's JSON", lambda: len(self.alive_workers()) >= count)

    def stop(self) -> None:
        """Kill every daemon's process group (workers first, then the master) and clean up."""
        atexit.unregister(self.stop)
        for daemon in [*reversed(self.workers), self.master]:
            if daemon is not None and daemon.running:
                daemon.kill(signal.SIGTERM)
                try:
                    daemon.process.wait(10)
                except subprocess.TimeoutExpired:
                    daemon.kill(signal.SIGKILL)
                    daemon.process.wait()
            if daemon is not None:
                daemon.kill(signal.SIGKILL)  # executors and Python workers left in its group
        if not self.keep_dir:
            shutil.rmtree(self.base_dir, ignore_errors=True)

    # --- steps -----------------------------------------------------------------------------------

    def _read_master_port(self, master: Daemon) -> int:
        self.master_port = logged_port(master.log_path, "sparkMaster")
        return self.master_port

    def _launch(self, name: str, main_class: str, args: list[str], opts_var: str, ui_service: str) -> Daemon:
        spark_home = _spark_home()
        (self.base_dir / "logs").mkdir(parents=True, exist_ok=True)
        scratch = self.base_dir / "scratch"
        scratch.mkdir(exist_ok=True)
        conf_dir = self.base_dir / "conf"
        conf_dir.mkdir(exist_ok=True)
        log_path = self.base_dir / "logs" / f"{name}.log"
        env = {
            **os.environ,
            "SPARK_HOME": str(spark_home),
            "SPARK_LOCAL_IP": "127.0.0.1",
            "SPARK_LOCAL_DIRS": str(scratch),
            "SPARK_DAEMON_MEMORY": self.daemon_heap,
            "SPARK_CONF_DIR": str(conf_dir),  # empty: no stray spark-defaults.conf
            # The REST submission server would take fixed port 6066.
            opts_var: "-Dspark.master.rest.enabled=false",
        }
        command = [
            str(spark_home / "bin" / "spark-class"),
            main_class,
            *args,
            "--webui-port",
            "0",
        ]
        with log_path.open("ab") as log:
            process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,
            )
        logger.debug("started Spark %s, pid %d: %s", name, process.pid, " ".join(command))
        return Daemon(name, process, log_path, ui_service)

    def _wait(self, what: str, ready: Any) -> None:
        deadline = time.monotonic() + self.startup_timeout
        last_error = "no answer yet"
        while time.monotonic() < deadline:
            daemons = [d for d in (self.master, *self.workers) if d is not None and not d.killed]
            dead = [d for d in daemons if not d.running]
            if dead:
                codes = ", ".join(f"{d.name} exited with {d.process.returncode}" for d in dead)
                raise SparkClusterError(f"while waiting for {what}: {codes}\n{self.logs()}")
            try:
                if ready():
                    return
            except OSError as exc:  # the web UI is not up yet
                last_error = repr(exc)
            except ValueError as exc:
                # An HTML page where the JSON will be: under load the UI answers on its port before
                # its JSON handler is attached, and its root page answers every other path.
                last_error = f"not JSON yet: {exc}"
            time.sleep(0.5)
        raise SparkClusterError(
            f"timed out after {self.startup_timeout:.0f} s waiting for {what} ({last_error})\n{self.logs()}"
        )


# --- helpers ---------------------------------------------------------------------------------------


def _spark_home() -> Path:
    """pyspark's package folder: a pip-installed pyspark is a complete SPARK_HOME (bin/, jars/)."""
    import pyspark

    home = Path(pyspark.__file__).resolve().parent
    if not (home / "bin" / "spark-class").is_file():
        raise SparkClusterError(f"no bin/spark-class in {home}: is pyspark installed with its jars?")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        raise SparkClusterError("Java ('java' on PATH or JAVA_HOME) is needed; Spark 4 needs Java 17+")
    return home


def _tail(path: Path, lines: int) -> str:
    try:
        return "\n".join(path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])
    except OSError:
        return f"(no log at {path})"


# --- CLI -------------------------------------------------------------------------------------------


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI: ``start`` runs a cluster in the foreground until Ctrl-C."""
    parser = argparse.ArgumentParser(prog="spark_cluster.py", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    start = commands.add_parser("start", help="run a master and workers in the foreground until Ctrl-C")
    start.add_argument("--workers", type=int, default=2, help="number of workers (default 2)")
    start.add_argument("--cores", type=int, default=2, help="cores each worker offers (default 2)")
    start.add_argument("--memory", default="1g", help="memory each worker offers (default 1g)")
    start.add_argument(
        "--dir", type=Path, help="folder for work dirs and logs, kept (default: a temporary one)"
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    # The daemons run in their own process groups: a SIGTERM must stop them too, as Ctrl-C does.
    signal.signal(signal.SIGTERM, _interrupt)
    cluster = SparkCluster(workers=args.workers, cores=args.cores, memory=args.memory, base_dir=args.dir)
    try:
        with cluster:
            print(cluster.master_url, flush=True)
            print(
                f"web UI {cluster.master_webui_url}, logs in {cluster.base_dir / 'logs'}; in the kconnect "
                f"worker's properties: spark.master={cluster.master_url} and "
                "executor.control.host=127.0.0.1; Ctrl-C to stop",
                file=sys.stderr,
                flush=True,
            )
            with contextlib.suppress(KeyboardInterrupt):
                assert cluster.master is not None
                code = cluster.master.process.wait()
                print(f"the Spark master exited with code {code}\n{cluster.logs()}", file=sys.stderr)
                return 1
        return 0
    except SparkClusterError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
