"""Runs a test in private network and mount namespaces, where fixed ports and ``/tmp`` paths cannot clash.

Kafka's sample files and Confluent's guide name fixed addresses: ``localhost:9092``, port 8083 and
``/tmp/connect.offsets``. A test that must use them unchanged starts with::

    if not private_net.inside():
        private_net.rerun_inside(request)
        return

Outside, `rerun_inside` runs that same test again in a child pytest under ``unshare --net --mount
--pid``: a network namespace of its own with only loopback (brought up), a fresh tmpfs on ``/tmp`` (paths the
child needs that live under ``/tmp``, such as a CI checkout and its venv, are bound back in),
and a PID namespace. The child's broker, worker and files are invisible to every other test and
process, and vanish with it (within the outer test's timeout, below pytest-timeout's 300 s).
The outer test passes only if the child's run passed, and fails with the child's output otherwise.
Inside (`INSIDE_ENV` set by the wrapper), the test body runs with the fixed addresses to itself.

Needs util-linux ``unshare`` and iproute2 ``ip``; as root directly, otherwise in a user namespace
(``--map-root-user``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

INSIDE_ENV = "KCONNECT_PRIVATE_NAMESPACE"
REPO_ROOT = Path(__file__).resolve().parent.parent
# A fresh tmpfs on /tmp, with the host's /tmp still reachable under /mnt/kconnect-host-tmp (itself on a
# private tmpfs) so that what the child needs and that lives under /tmp (a CI checkout, its tox venv) is
# bound back at the same path. $KCONNECT_KEEP_PATHS: those paths, colon-separated.
_SETUP = """set -e
ip link set lo up
mount -t tmpfs kconnect-mnt /mnt
mkdir /mnt/kconnect-host-tmp
mount --bind /tmp /mnt/kconnect-host-tmp
mount -t tmpfs -o mode=1777 kconnect-tmp /tmp
IFS=:
for keep in $KCONNECT_KEEP_PATHS; do
    case "$keep" in /tmp/*)
        rel="${keep#/tmp/}"
        mkdir -p "/tmp/$rel"
        mount --bind "/mnt/kconnect-host-tmp/$rel" "/tmp/$rel";;
    esac
done
unset IFS
exec "$@"
"""


def inside() -> bool:
    """Whether this process runs inside the private namespaces `rerun_inside` made."""
    return os.environ.get(INSIDE_ENV) == "1"


def command(*argv: str) -> list[str]:
    """The command running `argv` in fresh network, mount and PID namespaces (loopback up, tmpfs on /tmp)."""
    for tool in ("unshare", "ip"):
        if shutil.which(tool) is None:
            pytest.fail(f"running with fixed ports in a private network namespace needs `{tool}` on PATH")
    user = [] if os.geteuid() == 0 else ["--user", "--map-root-user"]
    # A PID namespace too: when its first process ends (or is killed with unshare), the kernel ends every
    # process left in it, so no broker or worker outlives the test.
    namespaces = ["--net", "--mount", "--pid", "--mount-proc", "--fork", "--kill-child"]
    return ["unshare", *namespaces, *user, "--", "sh", "-c", _SETUP, "sh", *argv]


def rerun_inside(request: pytest.FixtureRequest, timeout: float = 280.0) -> None:
    """Run the requesting test again in private namespaces; fail with the child's output unless it passed."""
    nodeid = request.node.nodeid
    argv = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-o", "addopts=", nodeid]
    # Spark binds the host name's address unless told otherwise; only loopback exists in here.
    keep = {str(REPO_ROOT), sys.prefix, sys.base_prefix, str(Path(sys.executable).resolve().parent.parent)}
    env = {
        **os.environ,
        INSIDE_ENV: "1",
        "SPARK_LOCAL_IP": "127.0.0.1",
        "KCONNECT_KEEP_PATHS": ":".join(sorted(keep)),
    }
    done = subprocess.run(
        command(*argv), cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    if done.returncode != 0 or " passed" not in done.stdout:
        pytest.fail(
            f"{nodeid} failed in its private namespaces (exit {done.returncode}):\n"
            f"{done.stdout[-8000:]}\n{done.stderr[-4000:]}",
            pytrace=False,
        )
