"""The README's local cluster (`scripts/local_cluster.py`): a broker and three distributed workers.

Runs the script as a user would, with ``--demo --exit``: the three workers come up, a file pipeline
runs through them, every line arrives, the tasks are spread over the workers, and the script stops
everything and exits 0.
"""

from __future__ import annotations

import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "local_cluster.py"


def free_ports(count: int) -> int:
    """A port such that it and the `count - 1` after it are free on loopback."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            base = int(s.getsockname()[1])
        if base + count > 65535:
            continue
        sockets = []
        try:
            for port in range(base, base + count):
                s = socket.socket()
                sockets.append(s)
                s.bind(("127.0.0.1", port))
            return base
        except OSError:
            continue
        finally:
            for s in sockets:
                s.close()


def test_the_local_cluster_runs_a_pipeline_over_three_workers_and_stops(tmp_path: Path) -> None:
    base = free_ports(3)
    command = [
        sys.executable,
        str(SCRIPT),
        "--base-port",
        str(base),
        "--out",
        str(tmp_path),
        "--demo",
        "--exit",
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=280)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "every line arrived" in out, out
    for n in range(3):
        assert f"worker {n + 1}: http://127.0.0.1:{base + n}" in out, out
    placed = set(re.findall(r"RUNNING on (127\.0\.0\.1:\d+)", out))
    assert placed == {f"127.0.0.1:{base + n}" for n in range(3)}, out
    assert sorted(p.name for p in tmp_path.glob("worker-*.properties")) == [
        "worker-1.properties", "worker-2.properties", "worker-3.properties"
    ]  # fmt: skip
