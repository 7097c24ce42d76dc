"""Java connector tasks on Spark: Java hosts, one-partition Spark jobs whose Spark task runs Java
task loops on an executor JVM.

A task whose `TaskSpec.runtime` is ``java`` (a connector found on ``plugin.path`` by kconnect-java)
is placed on a Java host (`host_run.place` among Java hosts only). A Java host's job is submitted
from the driver through py4j (``sc._jsc``), with kconnect-java's ``ExecutorTask`` as the partition
function: no Python worker process runs it. ``ExecutorTask`` (given to Spark with ``addJar``) loads
kconnect's facade and Kafka's jars in a class loader of their own, once per executor JVM, and runs
``JavaHost``: it connects as a host (`host_launch`) and runs each task the worker sends it
(`launch`) in a thread of its own, which reports over its own task connection, as Python tasks do
(`kconnect_spark.control_server`). The facade's jars and the worker's ``plugin.path`` must be at the
same paths on every node.
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

from kconnect.executor import TaskSpec
from kconnect.runtime.exactly_once import ExactlyOnceSource

from kconnect_spark.remote import HostLaunch


def host_launch(launch: HostLaunch) -> str:
    """The JSON a Java host starts from (``JavaHost.java``): its label, how to reach the worker, its
    token and capacity."""
    return json.dumps(dataclasses.asdict(launch))


def launch(spec: TaskSpec, host: str, port: int, token: str) -> str:
    """The JSON a Java task starts from, a ``run`` message's launch to a Java host: its spec and how
    to reach the worker (``TaskMain.java``)."""
    return json.dumps(
        {
            "host": host,
            "port": port,
            "token": token,
            "connector": spec.id.connector,
            "task": spec.id.task,
            "generation": spec.generation,
            "kind": spec.kind,
            "connector_config": dict(spec.connector_config),
            "task_config": dict(spec.task_config),
            "worker": dict(spec.worker.props),
            **exactly_once(spec),
        }
    )


def exactly_once(spec: TaskSpec) -> dict[str, Any]:
    """``exactly_once``: what a source task under exactly-once support needs (its transactional id,
    offsets topics, boundary), as `ExactlyOnceSource.for_task` decides it once for Python and Java
    tasks (``SourceTransactions.java``); nothing for a task that delivers at least once."""
    settings = ExactlyOnceSource.for_task(spec)
    return {} if settings is None else {"exactly_once": dataclasses.asdict(settings)}


def run(context: Any, launch_json: str) -> None:
    """Driver thread: run one Java host's job (`host_launch`; its job group set by the caller) until
    it ends.

    Builds kconnect-java's jars on first use (`kconnect_java.build`); raises what Spark raised when
    the job failed. kconnect-java is this distribution's optional extra ``java``, imported here only:
    a Java task exists only when kconnect-java found its connector, so kconnect-spark alone never
    reaches this import.
    """
    try:
        from kconnect_java.build import SPARK_ENTRY_CLASS, facade_classpath, spark_entry_jar
    except ImportError as exc:
        raise RuntimeError(
            "Java tasks need kconnect-java installed beside kconnect-spark "
            "(pip install 'kconnect-spark[java]')"
        ) from exc
    import pyspark

    entry = spark_entry_jar(Path(pyspark.__file__).parent / "jars")
    classpath = os.pathsep.join(str(jar) for jar in facade_classpath())
    if f"/{entry.name}" not in context._jsc.sc().listJars().mkString(","):  # Spark keeps the first
        context._jsc.addJar(str(entry))
    jvm = context._jvm
    urls = context._gateway.new_array(jvm.java.net.URL, 1)
    urls[0] = jvm.java.io.File(str(entry)).toURI().toURL()
    parent = jvm.java.lang.Thread.currentThread().getContextClassLoader()
    loader = jvm.java.net.URLClassLoader(urls, parent)
    entry_class = jvm.java.lang.Class.forName(SPARK_ENTRY_CLASS, True, loader)
    args = context._gateway.new_array(jvm.java.lang.Object, 1)
    args[0] = classpath
    function = entry_class.getConstructors()[0].newInstance(args)  # its one: (String classpath)
    context._jsc.parallelize([launch_json], 1).mapPartitions(function).collect()
