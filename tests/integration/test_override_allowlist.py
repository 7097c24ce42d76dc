"""The ``Allowlist`` override policy (KIP-1188) on a real worker: validate and create answer as Kafka does.

A standalone worker with ``connector.client.config.override.policy=Allowlist`` and an allowlist of
``max.poll.records`` logs Kafka's set-up line; a FileStreamSink that overrides the listed key
validates clean, is created and runs; one that overrides another key gets Kafka's error on that key
from ``PUT .../config/validate`` and a 400 with Kafka's message from ``POST /connectors``, and is not
stored. An allowlist Kafka refuses stops the worker with Kafka's message.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_task_failures import wait_task_state

pytestmark = pytest.mark.integration

POLICY = {
    "connector.client.config.override.policy": "Allowlist",
    "connector.client.config.override.allowlist": "max.poll.records",
}
REFUSED = (
    "The 'Allowlist' policy does not allow 'fetch.min.bytes' to be overridden in the connector configuration."
)


def _sink(name: str, tmp_path: Path, topic: str, **overrides: str) -> dict[str, str]:
    return {
        "name": name,
        "connector.class": "FileStreamSink",
        "file": str(tmp_path / "out.txt"),
        "topics": topic,
        **{f"consumer.override.{key}": value for key, value in overrides.items()},
    }


def _override_errors(body: dict[str, Any]) -> dict[str, list[str]]:
    return {
        entry["value"]["name"]: entry["value"]["errors"]
        for entry in body["configs"]
        if entry["value"]["name"].startswith("consumer.override.")
    }


def test_the_allowlist_policy_allows_listed_keys_and_refuses_others_as_kafka(
    start_worker: Any, tmp_path: Path, unique_topic: str
) -> None:
    worker = start_worker(POLICY)
    assert (
        "Setting up Allowlist policy for ConnectorClientConfigOverride. This will allow the following "
        "client configurations to be overridden. [max.poll.records]"
    ) in worker.log_path.read_text(errors="replace")

    allowed = _sink("allowed", tmp_path, unique_topic, **{"max.poll.records": "10"})
    response = worker.request("PUT", "/connector-plugins/FileStreamSink/config/validate", allowed)
    assert response.status_code == 200, response.text
    assert response.json()["error_count"] == 0, response.text
    assert _override_errors(response.json()) == {"consumer.override.max.poll.records": []}

    refused = _sink(
        "refused", tmp_path, unique_topic, **{"max.poll.records": "10", "fetch.min.bytes": "1024"}
    )
    response = worker.request("PUT", "/connector-plugins/FileStreamSink/config/validate", refused)
    assert response.status_code == 200, response.text
    assert response.json()["error_count"] == 1, response.text
    assert _override_errors(response.json()) == {
        "consumer.override.max.poll.records": [],
        "consumer.override.fetch.min.bytes": [REFUSED],
    }

    created = worker.request("POST", "/connectors", {"name": "refused", "config": refused})
    assert created.status_code == 400, created.text
    assert created.json() == {
        "error_code": 400,
        "message": "Connector configuration is invalid and contains the following 1 error(s):\n"
        f"{REFUSED}\n"
        "You can also find the above list of errors at the endpoint "
        "`/connector-plugins/FileStreamSink/config/validate`",
    }
    assert worker.get("/connectors").json() == []

    created = worker.request("POST", "/connectors", {"name": "allowed", "config": allowed})
    assert created.status_code == 201, created.text
    wait_task_state(worker, "allowed", "RUNNING")
    assert worker.get("/connectors").json() == ["allowed"]


def test_an_allowlist_kafka_refuses_stops_the_worker(tmp_path: Path, kafka_bootstrap: str) -> None:
    worker_file = tmp_path / "worker.properties"
    worker_file.write_text(
        f"bootstrap.servers={kafka_bootstrap}\n"
        f"offset.storage.file.filename={tmp_path / 'offsets'}\n"
        "connector.client.config.override.policy=Allowlist\n"
        "connector.client.config.override.allowlist=max.poll.records,,linger.ms\n",
        encoding="utf-8",
    )
    run = subprocess.run(
        [sys.executable, "-m", "kconnect_rest.cli", "standalone", str(worker_file)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode != 0
    assert (
        f"{worker_file}: Configuration 'connector.client.config.override.allowlist' values must not be empty."
    ) in run.stderr
