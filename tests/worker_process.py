"""Runs real kconnect worker processes for integration tests (the testkit's `WorkerProcess`), and
the suite's helpers around them: stopping several at once, killing one with its Spark processes, a
venv without a plugin."""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
from pathlib import Path

from kconnect_testkit.broker import free_port
from kconnect_testkit.worker import POLL_INTERVAL_S, WorkerProcess, write_properties

__all__ = [
    "POLL_INTERVAL_S",
    "WorkerProcess",
    "count_lines",
    "descendants",
    "free_port",
    "kill_worker_and_its_processes",
    "stop_all",
    "venv_without",
    "write_properties",
]


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
