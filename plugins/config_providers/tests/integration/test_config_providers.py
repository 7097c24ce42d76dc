"""Config providers (KIP-297, `plugins/config_providers`) in a real worker: broker, Spark, files.

A worker with ``config.providers=file,env,directory`` reads its own broker address through a
reference, and runs a FileStreamSink whose ``file`` and ``topics`` come from ``${directory:...}``,
``${env:...}`` and ``${file:...}``: records arrive at the resolved path, while the REST API answers
with the references, never the values.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from aiokafka import AIOKafkaProducer

from tests.integration.harness import path_of
from tests.worker_process import count_lines

pytestmark = pytest.mark.integration

P = "org.apache.kafka.common.config.provider"


async def _produce(bootstrap: str, topic: str, values: list[bytes]) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap)
    await producer.start()
    try:
        for value in values:
            await producer.send_and_wait(topic, value)
    finally:
        await producer.stop()


def _providers(secrets: Path, mount: Path) -> dict[str, str]:
    return {
        "config.providers": "file,env,directory",
        "config.providers.file.class": f"{P}.FileConfigProvider",
        "config.providers.file.param.allowed.paths": str(secrets),
        "config.providers.env.class": f"{P}.EnvVarConfigProvider",
        "config.providers.env.param.allowlist.pattern": "KCONNECT_TEST_.*",
        "config.providers.directory.class": "DirectoryConfigProvider",
        "config.providers.directory.param.allowed.paths": str(mount),
    }


def test_a_sink_whose_file_and_topic_come_from_providers_writes_to_the_resolved_path(
    start_worker: Any, tmp_path: Path, kafka_bootstrap: str, unique_topic: str
) -> None:
    secrets, mount, out = tmp_path / "secrets", tmp_path / "mount", tmp_path / "out"
    for folder in (secrets, mount, out):
        folder.mkdir()
    properties = secrets / "pipeline.properties"
    properties.write_text(f"topic={unique_topic}\nbootstrap={kafka_bootstrap}\n", encoding="utf-8")
    (mount / "sink-dir").write_text(str(out), encoding="utf-8")
    worker = start_worker(
        {**_providers(secrets, mount), "bootstrap.servers": f"${{file:{properties}:bootstrap}}"},
        env={"KCONNECT_TEST_SINK_FILE": "records.txt"},
    )
    name = "secret-sink"
    config = {
        "connector.class": "org.apache.kafka.connect.file.FileStreamSinkConnector",
        "topics": f"${{file:{properties}:topic}}",
        "file": f"${{directory:{mount}:sink-dir}}/${{env:KCONNECT_TEST_SINK_FILE}}",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
    }
    created = worker.request("POST", "/connectors", {"name": name, "config": config})
    assert created.status_code == 201, created.text
    assert created.json()["config"] == {**config, "name": name}

    asyncio.run(_produce(kafka_bootstrap, unique_topic, [f"secret line {i}".encode() for i in range(10)]))
    sink_file = out / "records.txt"
    worker.wait_for("10 lines at the resolved path", lambda: count_lines(sink_file) == 10)
    assert sink_file.read_text(encoding="utf-8").splitlines() == [f"secret line {i}" for i in range(10)]
    assert worker.status(name)["connector"]["state"] == "RUNNING"

    # The stored config and every answer keep the references.
    assert worker.get(f"{path_of(name)}/config").json() == {**config, "name": name}
    assert worker.get(path_of(name)).json()["config"] == {**config, "name": name}
    (task,) = worker.get(f"{path_of(name)}/tasks").json()
    assert task["config"]["file"] == config["file"] and task["config"]["topics"] == config["topics"]
    assert str(out) not in worker.get(f"{path_of(name)}/tasks").text

    # Validation checks the resolved values and answers with the references.
    validated = worker.request(
        "PUT", "/connector-plugins/FileStreamSinkConnector/config/validate", {**config, "name": name}
    ).json()
    assert validated["error_count"] == 0
    values = {c["value"]["name"]: c["value"]["value"] for c in validated["configs"] if c["value"]}
    assert values["topics"] == config["topics"] and values["file"] == config["file"]


def test_an_unknown_provider_class_stops_the_worker_naming_the_key(start_worker: Any, tmp_path: Path) -> None:
    with pytest.raises(RuntimeError) as error:
        start_worker({"config.providers": "vault", "config.providers.vault.class": "VaultConfigProvider"})
    assert (
        "config.providers.vault.class: Failed to find any class that implements ConfigProvider and which "
        "name matches VaultConfigProvider, available ConfigProviders are: "
    ) in str(error.value)
