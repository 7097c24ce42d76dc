"""A task config's ``task.class`` shows a ported task's Java name, and the task still loads from it."""

from __future__ import annotations

import re

import pytest
from kconnect.errors import PluginError
from kconnect.herder.validation import ConnectorValidator
from kconnect.plugin_host import PluginHost, shown_class_name
from kconnect_file.sink import FileStreamSinkTask
from kconnect_file.source import FileStreamSourceTask

from tests.connectors import IdleSourceTask

SOURCE_TASK = "org.apache.kafka.connect.file.FileStreamSourceTask"
SINK_TASK = "org.apache.kafka.connect.file.FileStreamSinkTask"


@pytest.fixture(scope="module")
def host() -> PluginHost:
    return PluginHost.load()


def test_a_ported_task_is_shown_by_its_java_name_any_other_by_its_python_path() -> None:
    assert shown_class_name(FileStreamSourceTask) == SOURCE_TASK
    assert shown_class_name(FileStreamSinkTask) == SINK_TASK
    assert shown_class_name(IdleSourceTask) == "tests.connectors.IdleSourceTask"


@pytest.mark.parametrize(
    ("connector", "task_class", "cls"),
    [
        ("FileStreamSource", SOURCE_TASK, FileStreamSourceTask),
        (
            "FileStreamSource",
            "kconnect_file.source.FileStreamSourceTask",
            FileStreamSourceTask,
        ),  # stored before
        ("org.apache.kafka.connect.file.FileStreamSinkConnector", SINK_TASK, FileStreamSinkTask),
        ("FileStreamSink", "kconnect_file.sink.FileStreamSinkTask", FileStreamSinkTask),
    ],
)
def test_the_task_loads_from_the_java_name_or_the_python_path(
    host: PluginHost, connector: str, task_class: str, cls: type
) -> None:
    assert host.task_class(connector, task_class) is cls


def test_another_tasks_name_is_refused_naming_the_expected_one(host: PluginHost) -> None:
    message = f"task.class {SINK_TASK} is not the task class of connector "
    with pytest.raises(PluginError, match=re.escape(message) + r".*\(" + re.escape(SOURCE_TASK) + r"\)"):
        host.task_class("FileStreamSource", SINK_TASK)


def test_the_task_version_is_found_from_the_java_name(host: PluginHost) -> None:
    validator = ConnectorValidator(host, {})
    assert validator.task_version({"connector.class": "FileStreamSource"}, SOURCE_TASK) == "0.1.0"
