"""How many Spark task slots the worker's Spark has: each Spark task hosting connector tasks holds one.

`task_slots` reads the master string and the ``spark.*`` settings (pure, no Spark needed);
the executor calls it once Spark is up and compares it with the connector tasks that need a slot.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

T = TypeVar("T")

_LOCAL = re.compile(r"^local(?:\[(\*|\d+)(?:\s*,\s*(\d+))?\])?$")
_LOCAL_CLUSTER = re.compile(r"^local-cluster\[\s*(\d+)\s*,\s*(\d+)\s*,\s*\d+\s*\]$")


def local_threads(master: str) -> int | None:
    """The task threads of a ``local``/``local[N]``/``local[*]``/``local[N,F]`` master, else None."""
    match = _LOCAL.match(master.strip())
    if match is None:
        return None
    threads = match.group(1)
    if threads is None:
        return 1
    return os.cpu_count() or 1 if threads == "*" else int(threads)


def task_slots(conf: Mapping[str, str], registered: int | None = None) -> int | None:
    """Connector tasks that can run at once, or None when nothing says.

    local[N]: N threads; local-cluster[n, cores, mem]: n * cores; with dynamic allocation None
    (executors come and go). Any other cluster: `registered`, Spark's own count of the task slots
    on the executors registered now (`kconnect_spark.driver_state.registered_task_slots`), because a
    cluster grants what it has free, which may be less than ``spark.cores.max``; before any
    executor registered, ``spark.cores.max``, else ``spark.executor.instances`` *
    ``spark.executor.cores``, else None. Configured core counts are divided by ``spark.task.cpus``
    (`registered` already is).
    """
    master = conf.get("spark.master", "").strip()
    cores = local_threads(master)
    if cores is None and (match := _LOCAL_CLUSTER.match(master)) is not None:
        cores = int(match.group(1)) * int(match.group(2))
    if cores is None and _dynamic(conf):
        return None  # executors come and go: no fixed count
    if cores is None and registered:
        return registered
    if cores is None:
        cores = _cluster_cores(conf)
    if cores is None:
        return None
    return max(cores // max(int(conf.get("spark.task.cpus", "1")), 1), 0)


def watched_slots(conf: Mapping[str, str]) -> bool:
    """True when the executor should follow Spark's registered executors for the slot count.

    A cluster without dynamic allocation: its executors register after the session starts, and
    leave when a cluster worker dies.
    """
    master = conf.get("spark.master", "").strip()
    local = local_threads(master) is not None or _LOCAL_CLUSTER.match(master) is not None
    return not local and not _dynamic(conf)


def _cluster_cores(conf: Mapping[str, str]) -> int | None:
    if "spark.cores.max" in conf:
        return int(conf["spark.cores.max"])
    if "spark.executor.instances" in conf and "spark.executor.cores" in conf:
        return int(conf["spark.executor.instances"]) * int(conf["spark.executor.cores"])
    return None


def _dynamic(conf: Mapping[str, str]) -> bool:
    return conf.get("spark.dynamicAllocation.enabled", "false").strip().lower() == "true"


def waiting_reason(slots: int, needed: int) -> str:
    """The status trace of a task that waits for a slot."""
    return (
        f"Waiting for a Spark task slot: Spark has {slots} task slots and {needed} Spark tasks "
        f"hosting connector tasks need one (each holds a slot while it hosts tasks; raise "
        f"spark.master's thread count or the cluster's cores, raise executor.tasks.per.spark.task, "
        f"or stop a task)"
    )


def not_started_reason(after_s: float, slots: int | None, needed: int) -> str:
    """The status trace of a task whose Spark task has not started `after_s` after its job was submitted."""
    known = "an unknown number of" if slots is None else str(slots)
    return (
        f"Spark has not started the task's Spark task {after_s:.0f} s after its job was submitted: "
        f"it waits for a free task slot or executor (Spark has {known} task slots and {needed} "
        f"Spark tasks hosting connector tasks need one)"
    )


def without_slot(slots: int, active: int, pending: Sequence[T], order: Callable[[T], int]) -> list[T]:
    """Of the `pending` runs (Spark job submitted, task not started), those no slot is free for.

    `active` runs hold or want a slot; Spark hands free slots to jobs in submission order, so the
    ``active - slots`` latest pending runs (highest `order`) are the ones that wait.
    """
    excess = active - slots
    if excess <= 0:
        return []
    return sorted(pending, key=order, reverse=True)[:excess]
