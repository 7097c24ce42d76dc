"""REST answers over the real standalone herder with config providers: PASSWORD values hidden,
references shown as written, a GET→PUT round trip keeps the password, validate answers as sent."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from kconnect.model import State
from kconnect.worker_config import WorkerConfig
from kconnect_rest import create_app

from tests.connectors import SecretSink
from tests.unit.kconnect.herder.herder_fakes import reaches
from tests.unit.kconnect.herder.test_config_providers_herder import NAME, secret_herder, worker_props


@pytest.fixture
def secrets(tmp_path: Path) -> Path:
    path = tmp_path / "db.properties"
    path.write_text("password=s3cret-pw\nfile=/data/out.txt\n", encoding="utf-8")
    return path


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with secret_herder() as (herder, _):
        # On the herder's own event loop, as in the worker.
        app = create_app(herder, WorkerConfig.from_props(worker_props()))
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://worker"
        ) as http:
            http.herder = herder  # type: ignore[attr-defined]
            yield http


async def test_password_values_are_hidden_and_references_shown_in_every_answer(
    client: httpx.AsyncClient, secrets: Path
) -> None:
    reference = f"${{file:{secrets}:file}}"
    config = {"connector.class": "SecretSink", "topics": "in", "file": reference, "db.password": "hunter22"}
    created = await client.post("/connectors", json={"name": NAME, "config": config})
    assert created.status_code == 201, created.text
    assert created.json()["config"]["db.password"] == "[hidden]"
    await reaches(client.herder, (State.RUNNING, [State.RUNNING]), NAME)  # type: ignore[attr-defined]

    shown = {**config, "name": NAME, "db.password": "[hidden]"}
    assert (await client.get(f"/connectors/{NAME}/config")).json() == shown
    assert (await client.get(f"/connectors/{NAME}")).json()["config"] == shown
    expanded = (await client.get("/connectors", params={"expand": "info"})).json()
    assert expanded[NAME]["info"]["config"] == shown
    (task,) = (await client.get(f"/connectors/{NAME}/tasks")).json()
    assert task["config"]["db.password"] == "[hidden]" and task["config"]["file"] == reference
    assert "hunter22" not in (await client.get(f"/connectors/{NAME}/tasks")).text

    referenced = {**config, "db.password": f"${{file:{secrets}:password}}"}
    updated = await client.put(f"/connectors/{NAME}/config", json=referenced)
    assert updated.json()["config"]["db.password"] == referenced["db.password"]
    assert (await client.get(f"/connectors/{NAME}/config")).json()["db.password"] == referenced["db.password"]


async def test_a_get_put_round_trip_keeps_the_stored_password(client: httpx.AsyncClient) -> None:
    config = {"connector.class": "SecretSink", "topics": "in", "file": "/out", "db.password": "hunter22"}
    assert (await client.put(f"/connectors/{NAME}/config", json=config)).status_code == 201
    fetched = (await client.get(f"/connectors/{NAME}/config")).json()
    assert fetched["db.password"] == "[hidden]"
    fetched["file"] = "/out2"
    assert (await client.put(f"/connectors/{NAME}/config", json=fetched)).status_code == 200
    stored = await client.herder.connector_config(NAME)  # type: ignore[attr-defined]
    assert stored["db.password"] == "hunter22" and stored["file"] == "/out2"
    await reaches(client.herder, (State.RUNNING, [State.RUNNING]), NAME)  # type: ignore[attr-defined]
    assert SecretSink.started[-1]["db.password"] == "hunter22"

    patched = await client.patch(
        f"/connectors/{NAME}/config", json={"db.password": "[hidden]", "file": "/o3"}
    )
    assert patched.status_code == 200, patched.text
    stored = await client.herder.connector_config(NAME)  # type: ignore[attr-defined]
    assert stored["db.password"] == "hunter22" and stored["file"] == "/o3"
    # Any other value replaces the password.
    await client.patch(f"/connectors/{NAME}/config", json={"db.password": "new-pw"})
    assert (await client.herder.connector_config(NAME))["db.password"] == "new-pw"  # type: ignore[attr-defined]


async def test_validate_answers_with_the_references_sent(client: httpx.AsyncClient, secrets: Path) -> None:
    config = {
        "name": NAME,
        "connector.class": "SecretSink",
        "topics": "in",
        "file": f"${{file:{secrets}:file}}",
        "db.password": f"${{file:{secrets}:password}}",
    }
    answer = await client.put("/connector-plugins/SecretSink/config/validate", json=config)
    assert answer.status_code == 200, answer.text
    values = {c["value"]["name"]: c["value"] for c in answer.json()["configs"] if c["value"]}
    assert answer.json()["error_count"] == 0
    assert values["file"]["value"] == config["file"]
    assert values["db.password"]["value"] == config["db.password"]
    assert "s3cret-pw" not in answer.text and "/data/out.txt" not in answer.text


async def test_a_config_providers_keys_are_kafkas_400(client: httpx.AsyncClient) -> None:
    answer = await client.get("/connector-plugins/FileConfigProvider/config")
    assert answer.status_code == 400
    assert answer.json()["message"] == (
        "Invalid plugin class FileConfigProvider. Valid types are sink, source, converter, "
        "header_converter, transformation, predicate."
    )
    listed = (await client.get("/connector-plugins", params={"connectorsOnly": "false"})).json()
    assert not [p for p in listed if "ConfigProvider" in p["class"]]
