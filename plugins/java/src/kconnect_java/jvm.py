"""The JVM that answers plugin questions: Kafka's isolation in a class loader of its own, behind JSON calls.

`FacadeJvm` is the one interface the rest of ``kconnect_java`` uses: ``call(request) -> answer``,
two dicts. This version starts a JVM of its own through py4j (the worker's Spark driver JVM is
started later than plugins are registered, on a thread of the executor); switching to Spark's
driver JVM means changing this module alone. Either way the facade and Kafka's runtime jars load
in a ``java.net.URLClassLoader`` whose parent is the *platform* class loader, so the classes of
whatever else the JVM holds (Spark's jackson and slf4j versions) never clash with Kafka's.
"""

from __future__ import annotations

import json
import logging
import threading
from pathlib import Path
from typing import Any

from kconnect_java.build import FACADE_CLASS, facade_classpath, tool

log = logging.getLogger(__name__)

#: A small heap (the facade holds class loaders and config definitions, never records), and the quick
#: compiler alone: scanning is one pass of reflection that C2 would only slow down on 2 cores.
_JAVA_OPTIONS = ["-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"]


class FacadeError(RuntimeError):
    """The facade answered an error: its message, and the Java stack trace when there is one."""

    def __init__(self, message: str, trace: str = "") -> None:
        super().__init__(message)
        self.trace = trace


class FacadeJvm:
    """A JVM holding kconnect's facade (`kconnect_java.build`), called with JSON through py4j.

    Created by the plugin's registration hook when a worker has a ``plugin.path``; lives as long as
    the worker process (py4j's gateway ends with it). Calls are serialized: the facade is not
    thread-safe and calls are rare (start-up, validate).
    """

    def __init__(self, classpath: list[Path] | None = None) -> None:
        from py4j.java_gateway import GatewayParameters, JavaGateway, launch_gateway

        jars = classpath if classpath is not None else facade_classpath()
        port = launch_gateway(die_on_exit=True, java_path=tool("java"), javaopts=_JAVA_OPTIONS)
        self._gateway = JavaGateway(gateway_parameters=GatewayParameters(port=port, auto_convert=True))
        jvm: Any = self._gateway.jvm
        urls = self._gateway.new_array(jvm.java.net.URL, len(jars))
        for index, jar in enumerate(jars):
            urls[index] = jvm.java.io.File(str(jar)).toURI().toURL()
        platform = jvm.java.lang.ClassLoader.getPlatformClassLoader()
        self._loader = jvm.java.net.URLClassLoader("kconnect-java", urls, platform)
        facade_class = jvm.java.lang.Class.forName(FACADE_CLASS, True, self._loader)
        no_types = self._gateway.new_array(jvm.java.lang.Class, 0)
        no_args = self._gateway.new_array(jvm.java.lang.Object, 0)
        self._facade = facade_class.getDeclaredConstructor(no_types).newInstance(no_args)
        self._lock = threading.Lock()

    def call(self, request: dict[str, Any]) -> dict[str, Any]:
        """Send one request to the facade and return its answer; FacadeError when it answers an error."""
        with self._lock:
            return self.call_beside(request)

    def call_beside(self, request: dict[str, Any]) -> dict[str, Any]:
        """`call` without waiting for other calls: for the facade's thread-safe requests that wait
        (``connector_events``), each on a Python thread of its own (py4j gives it a JVM thread)."""
        # The facade's work (scanning, plugin code) sees its own loader as the context loader.
        thread = self._gateway.jvm.java.lang.Thread.currentThread()
        previous = thread.getContextClassLoader()
        thread.setContextClassLoader(self._loader)
        try:
            answer: dict[str, Any] = json.loads(self._facade.apply(json.dumps(request)))
        finally:
            thread.setContextClassLoader(previous)
        if "error" in answer:
            raise FacadeError(str(answer["error"]), str(answer.get("trace", "")))
        return answer

    def close(self) -> None:
        """Shut the gateway and its JVM down."""
        self._gateway.shutdown()


_shared: FacadeJvm | None = None
_shared_lock = threading.Lock()


def shared_jvm() -> FacadeJvm:
    """The process's one facade JVM, started on first use (a build first when the cache has none)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = FacadeJvm()
        return _shared
