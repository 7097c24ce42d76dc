"""Builds the worker's SparkSession from its ``spark.*`` properties.

Embedded default: a local Spark in the worker (``local[K]``, K task slots, one per connector task
that can run at once). ``spark.master`` and every other ``spark.*`` key go to the builder
unchanged, so the same worker drives a real cluster, except the settings that would let Spark
retry or speculate a task: a connector task must never run twice at once nor be re-run behind the
worker's back, so `fence_retries` overrides them (with a warning naming the user's value).
The executors' Python is ``spark.pyspark.python`` (default ``PYSPARK_PYTHON``, else this
interpreter); `unreachable_control_host` warns about a control address executors cannot reach.
"""

from __future__ import annotations

import logging
import os
import re
import sys
from collections.abc import Mapping
from typing import Any

log = logging.getLogger(__name__)

#: Task slots of the embedded Spark. Connector tasks are long-running Spark tasks, so the slot
#: count bounds how many tasks can run at once; Spark's ``local[*]`` (one per core) is too few.
DEFAULT_LOCAL_SLOTS = 32
#: The driver JVM's default options when no Java connector can run in it: the quick compiler only.
QUICK_COMPILER = "-XX:TieredStopAtLevel=1"
#: Kafka's worker key naming Java plugin folders (kconnect-java runs their tasks on Spark's JVMs).
PLUGIN_PATH = "plugin.path"


def spark_conf(worker_props: Mapping[str, str], environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The SparkSession settings: kconnect's defaults, the worker's ``spark.*`` keys, then `fence_retries`.

    `environ` (default: this process's environment) supplies ``PYSPARK_PYTHON`` as the default of
    ``spark.pyspark.python``, as Spark does; without either, the executors run this worker's own
    interpreter, so on a cluster the same venv must exist at the same path on every node.
    """
    environ = os.environ if environ is None else environ
    conf = {
        "spark.master": f"local[{DEFAULT_LOCAL_SLOTS}]",
        "spark.app.name": "kconnect-worker",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        # Executors must run an interpreter that has kconnect and its plugins installed.
        "spark.pyspark.python": environ.get("PYSPARK_PYTHON") or sys.executable,
        "spark.pyspark.driver.python": sys.executable,
        "spark.python.worker.reuse": "true",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.driver.host": "127.0.0.1",
    }
    if not worker_props.get(PLUGIN_PATH, "").strip():
        # The driver JVM schedules long-running tasks and moves no records: the quick compiler
        # alone starts Spark about a second sooner on 2 cores and costs nothing measurable later.
        # With plugin.path, Java connector tasks may run in it (a local executor is the driver's
        # JVM) and move every record: those need the full JIT compiler (docs/performance.md).
        conf["spark.driver.extraJavaOptions"] = QUICK_COMPILER
    user = {k: v for k, v in worker_props.items() if k.startswith("spark.")}
    if "spark.master" in user and not user["spark.master"].startswith("local"):
        # A cluster must reach the driver: drop the loopback-only defaults unless the user set them.
        conf.pop("spark.driver.bindAddress")
        conf.pop("spark.driver.host")
    conf.update(user)
    return fence_retries(conf)


#: Settings that keep Spark from running a connector task twice: one attempt, no speculation.
NO_RETRIES = {"spark.task.maxFailures": "1", "spark.speculation": "false"}

_LOCAL_WITH_RETRIES = re.compile(r"^local\[\s*(\*|\d+)\s*,\s*(\d+)\s*\]$")


def fence_retries(conf: dict[str, str]) -> dict[str, str]:
    """`conf` with task retries and speculation off, warning about each user value it overrides.

    A failed connector task shows FAILED and is restarted only when the user asks (Kafka's
    behaviour); a Spark retry or a speculative copy would run the task twice. Local masters take
    their retry count from ``local[N,F]`` (Spark ignores ``spark.task.maxFailures`` there), so
    ``local[N,F]`` becomes ``local[N]``.
    """
    for key, value in NO_RETRIES.items():
        if key in conf and conf[key].strip().lower() != value:
            log.warning(
                "Ignoring %s=%s: connector tasks run exactly once in Spark (no retries, no "
                "speculation); a failed task shows FAILED until it is restarted. Using %s=%s",
                key,
                conf[key],
                key,
                value,
            )
        conf[key] = value
    master = conf.get("spark.master", "").strip()
    match = _LOCAL_WITH_RETRIES.match(master)
    if match is not None:
        fenced = f"local[{match.group(1)}]"
        if match.group(2) != "1":
            log.warning(
                "Ignoring the task retries in spark.master=%s: connector tasks run exactly once "
                "in Spark. Using spark.master=%s",
                master,
                fenced,
            )
        conf["spark.master"] = fenced
    return conf


def unreachable_control_host(conf: Mapping[str, str], control_host: str) -> str | None:
    """A warning when executors on other machines could not reach `control_host`, else None.

    A loopback ``executor.control.host`` works only when every executor runs on the worker's
    machine: fine for a local master or a cluster on loopback, wrong for a master on another
    host. (Only the text is checked: no name is resolved here.)
    """
    master = conf.get("spark.master", "")
    match = re.match(r"^spark://([^:/,]+)", master.strip())
    master_host = match.group(1) if match else None
    if is_local(conf) or not _loopback(control_host) or (master_host is not None and _loopback(master_host)):
        return None
    return (
        f"executor.control.host is {control_host}, a loopback address, but spark.master={master} "
        f"runs executors on other machines, which cannot connect to it: set executor.control.host "
        f"to an address of this worker that every executor node can reach"
    )


def _loopback(host: str) -> bool:
    return host == "localhost" or host.startswith("127.") or host == "::1"


def is_local(conf: Mapping[str, str]) -> bool:
    """True when Spark runs inside the worker (``local`` master)."""
    return conf.get("spark.master", "").startswith("local")


def launch_jvm_apart(conf: Mapping[str, str]) -> None:
    """Start Spark's driver JVM (PySpark's gateway) in a session of its own, unless it is running.

    A stop the user asks for by signalling the worker's whole process group (systemd's default,
    Ctrl-C in a terminal, ``kill -TERM -PGID``) must reach only the worker: it stops its tasks,
    commits their offsets, then stops Spark. A JVM in the worker's group would get the signal too
    and run its shutdown hook at once, stopping Spark under the running tasks (errors and
    tracebacks in the log, jobs cut short). Apart, the JVM still ends with the worker however the
    worker ends: PySpark's gateway exits when its stdin, a pipe from the worker, closes.
    """
    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway

    if SparkContext._gateway is not None:
        return
    submitted = SparkConf(loadDefaults=False).setAll(list(conf.items()))
    gateway = launch_gateway(submitted, popen_kwargs={"start_new_session": True})  # type: ignore[no-untyped-call]
    SparkContext._ensure_initialized(gateway=gateway)


def build_session(conf: Mapping[str, str]) -> Any:
    """Start (or join) the SparkSession; slow (seconds), so callers run it off the event loop."""
    from pyspark.sql import SparkSession

    # PySpark takes the executors' interpreter from PYSPARK_PYTHON (`spark_conf` chose it).
    os.environ["PYSPARK_PYTHON"] = conf["spark.pyspark.python"]
    if is_local(conf):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    launch_jvm_apart(conf)
    builder = SparkSession.builder
    for key, value in conf.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel(conf.get("spark.log.level", "WARN"))
    log.info(
        "Spark is up: master %s, version %s; Python tasks run with %s (spark.pyspark.python)",
        conf["spark.master"],
        session.version,
        conf["spark.pyspark.python"],
    )
    return session
