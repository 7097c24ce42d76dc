"""java_job.launch: what a Java task starts from, as ``TaskMain.java`` reads it."""

from __future__ import annotations

import json

from kconnect.executor import TaskSpec
from kconnect.model import ConnectorTaskId
from kconnect_spark.java_job import launch


def test_launch_carries_the_spec_and_both_tokens() -> None:
    spec = TaskSpec(
        ConnectorTaskId("files", 2),
        "source",
        "org.apache.kafka.connect.file.FileStreamSourceTask",
        {"connector.class": "FileStreamSource"},
        {"file": "in.txt"},
        {"plugin.path": "/plugins"},
        generation=7,
        runtime="java",
    )
    assert json.loads(launch(spec, "127.0.0.1", 4242, "host-token", "task-token")) == {
        "host": "127.0.0.1",
        "port": 4242,
        "host_token": "host-token",
        "token": "task-token",
        "connector": "files",
        "task": 2,
        "generation": 7,
        "kind": "source",
        "connector_config": {"connector.class": "FileStreamSource"},
        "task_config": {"file": "in.txt"},
        "worker": {"plugin.path": "/plugins"},
    }
