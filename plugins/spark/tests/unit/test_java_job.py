"""java_job: what a Java host (``JavaHost.java``) and a Java task (``TaskMain.java``) start from."""

from __future__ import annotations

import json

from kconnect.config.worker_settings import WorkerSettings
from kconnect.executor import TaskSpec
from kconnect.model import ConnectorTaskId
from kconnect_spark.java_job import host_launch, launch
from kconnect_spark.remote import HostLaunch


def test_a_java_host_starts_from_its_label_address_token_and_capacity() -> None:
    started = host_launch(HostLaunch("Spark task host 3", "127.0.0.1", 4242, "host-token", 100))
    assert json.loads(started) == {
        "label": "Spark task host 3",
        "host": "127.0.0.1",
        "port": 4242,
        "token": "host-token",
        "capacity": 100,
    }


def test_launch_carries_the_spec_and_the_tasks_token() -> None:
    spec = TaskSpec(
        ConnectorTaskId("files", 2),
        "source",
        "org.apache.kafka.connect.file.FileStreamSourceTask",
        {"connector.class": "FileStreamSource"},
        {"file": "in.txt"},
        WorkerSettings.from_props({"plugin.path": "/plugins"}),
        generation=7,
        runtime="java",
    )
    assert json.loads(launch(spec, "127.0.0.1", 4242, "task-token")) == {
        "host": "127.0.0.1",
        "port": 4242,
        "token": "task-token",
        "connector": "files",
        "task": 2,
        "generation": 7,
        "kind": "source",
        "connector_config": {"connector.class": "FileStreamSource"},
        "task_config": {"file": "in.txt"},
        "worker": {"plugin.path": "/plugins"},
    }
