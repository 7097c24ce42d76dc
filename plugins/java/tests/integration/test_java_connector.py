"""A Java connector instance runs in the facade JVM as the worker runs a Python one.

Kafka's own ``FileStreamSourceConnector`` (``connect-file`` 4.3.1 from Maven Central) through
`kconnect_java.plugins.JavaPluginInstance`: ``start``, ``task_class``, ``task_configs`` and
``stop`` are the Java connector's; a ``start`` that Java refuses raises with Kafka's message.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from kconnect_java.jvm import FacadeError, FacadeJvm
from kconnect_java.plugins import JavaPlugin, found_plugins
from kconnect_testkit.plugin_jars import fetch_connect_file

pytestmark = pytest.mark.integration

SOURCE = "org.apache.kafka.connect.file.FileStreamSourceConnector"
SOURCE_TASK = "org.apache.kafka.connect.file.FileStreamSourceTask"


class Recorder:
    """A worker's connector context that records what the Java connector asked."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def request_task_reconfiguration(self) -> None:
        """Record a reconfiguration request."""
        self.calls.append("reconfigure")

    def raise_error(self, error: Exception) -> None:
        """Record an error."""
        self.calls.append(f"error: {error}")


@pytest.fixture(scope="module")
def source() -> Iterator[JavaPlugin]:
    """Kafka's FileStreamSourceConnector 4.3.1 found on a plugin.path by the facade JVM."""
    jvm = FacadeJvm()
    try:
        scan = jvm.call({"op": "scan", "plugin.path": str(fetch_connect_file("4.3.1"))})
        yield next(p for p in found_plugins(scan, jvm) if p.class_name == SOURCE)
    finally:
        jvm.close()


def test_connector_runs_in_the_facade_jvm(source: JavaPlugin) -> None:
    instance = source()
    context = Recorder()
    instance.initialize(context)
    instance.start({"name": "file", "connector.class": SOURCE, "file": "/tmp/in.txt", "topic": "lines"})
    try:
        assert instance.task_class().java_class_names == (
            "org.apache.kafka.connect.file.FileStreamSourceTask",
        )
        configs = instance.task_configs(3)
        assert len(configs) == 1  # Kafka's file source has one task whatever tasks.max says
        assert configs[0]["file"] == "/tmp/in.txt"
        assert configs[0]["topic"] == "lines"
    finally:
        instance.stop()
    assert context.calls == []


def test_a_start_java_refuses_raises_its_message(source: JavaPlugin) -> None:
    instance = source()
    instance.initialize(Recorder())
    with pytest.raises(FacadeError, match="topic"):
        instance.start({"name": "file", "connector.class": SOURCE, "file": "/tmp/in.txt"})
