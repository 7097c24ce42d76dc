"""Config providers in the real standalone herder (memory stores, recording executor): references
resolved when a connector or task starts, kept in every stored config, validated resolved and answered
as sent; a TTL restarts the connector; PASSWORD values scrubbed from status traces."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from kconnect import hookimpl
from kconnect.herder.standalone import StandaloneHerder
from kconnect.model import ConnectorTaskId, State
from kconnect.plugin_host import PluginHost
from kconnect.storage import MemoryConfigBackingStore, MemoryOffsetBackingStore, MemoryStatusBackingStore
from kconnect.worker_config import WorkerConfig

from tests.connectors import SecretSink
from tests.unit.kconnect.config.provider_fakes import ExpiringProvider
from tests.unit.kconnect.herder.herder_fakes import FakeAdmin, RecordingExecutor, reaches

NAME = "secret-sink"
T0 = ConnectorTaskId(NAME, 0)


class SecretsPlugin:
    @hookimpl
    def register_config_providers(self, registry: Any) -> None:
        registry.add(ExpiringProvider, aliases=["Expiring"])

    @hookimpl
    def register_connectors(self, registry: Any) -> None:
        registry.add(SecretSink, aliases=["SecretSink"])


@pytest.fixture
def secrets(tmp_path: Path) -> Path:
    path = tmp_path / "db.properties"
    path.write_text("password=s3cret-pw\nfile=/data/out.txt\ntasks=1\nbad.tasks=zero\n", encoding="utf-8")
    return path


def worker_props(ttl_ms: int = -1) -> dict[str, str]:
    return {
        "listeners": "http://localhost:8083",
        "config.providers": "file,exp",
        "config.providers.file.class": "org.apache.kafka.common.config.provider.FileConfigProvider",
        "config.providers.exp.class": "Expiring",
        "config.providers.exp.param.ttl.ms": str(ttl_ms),
    }


@contextlib.asynccontextmanager
async def secret_herder(ttl_ms: int = -1) -> AsyncIterator[tuple[StandaloneHerder, RecordingExecutor]]:
    """A started standalone herder whose worker has the file provider and an expiring one."""
    SecretSink.started.clear()
    plugins = PluginHost.load(extra_plugins=[SecretsPlugin()], disabled=["file", "spark", "basic_auth"])
    executor = RecordingExecutor()
    herder = StandaloneHerder(
        WorkerConfig.from_props(worker_props(ttl_ms)),
        plugins,
        executor,
        MemoryConfigBackingStore(),
        MemoryStatusBackingStore(),
        MemoryOffsetBackingStore(),
        FakeAdmin,
    )
    await herder.start()
    try:
        yield herder, executor
    finally:
        await herder.stop()


def connector_config(secrets: Path, **extra: str) -> dict[str, str]:
    return {
        "connector.class": "SecretSink",
        "tasks.max": f"${{file:{secrets}:tasks}}",
        "topics": "in",
        "file": f"${{file:{secrets}:file}}",
        "db.password": f"${{file:{secrets}:password}}",
        **extra,
    }


async def test_references_are_resolved_for_the_instances_and_kept_in_every_stored_config(
    secrets: Path,
) -> None:
    async with secret_herder() as (herder, executor):
        config = connector_config(secrets)
        await herder.put_connector_config(NAME, config, allow_replace=False)
        await reaches(herder, (State.RUNNING, [State.RUNNING]), NAME)
        assert SecretSink.started[0]["db.password"] == "s3cret-pw"
        assert SecretSink.started[0]["file"] == "/data/out.txt"
        # Stored: the references, as sent; task configs get the connector's references back.
        assert await herder.connector_config(NAME) == {**config, "name": NAME}
        (task,) = await herder.task_configs(NAME)
        assert task.config["db.password"] == config["db.password"]
        assert task.config["file"] == config["file"]
        assert "s3cret-pw" not in str((await herder.connector_info(NAME)).config)
        # Resolved only in what the executor receives.
        spec = executor.specs[T0]
        assert spec.task_config["db.password"] == spec.connector_config["db.password"] == "s3cret-pw"
        assert spec.task_config["file"] == "/data/out.txt"


async def test_validation_checks_the_resolved_values_and_answers_with_the_references(secrets: Path) -> None:
    async with secret_herder() as (herder, _):
        infos = await herder.validate_connector_config(connector_config(secrets, name=NAME))
        assert infos.error_count == 0
        values = {c.value.name: c.value for c in infos.configs if c.value is not None}
        assert values["tasks.max"].value == f"${{file:{secrets}:tasks}}"
        assert values["db.password"].value == f"${{file:{secrets}:password}}"
        bad = connector_config(secrets, name=NAME, **{"tasks.max": f"${{file:{secrets}:bad.tasks}}"})
        infos = await herder.validate_connector_config(bad)
        values = {c.value.name: c.value for c in infos.configs if c.value is not None}
        assert infos.error_count == len(values["tasks.max"].errors) > 0
        assert values["tasks.max"].errors[0] == (
            f"Invalid value ${{file:{secrets}:bad.tasks}} for configuration tasks.max: "
            "Not a number of type INT"
        )


async def test_a_failure_trace_never_shows_the_password(secrets: Path) -> None:
    async with secret_herder() as (herder, executor):
        await herder.put_connector_config(NAME, connector_config(secrets), allow_replace=False)
        await reaches(herder, (State.RUNNING, [State.RUNNING]), NAME)
        assert executor.listener is not None
        executor.fail(T0, "Traceback: connection to db with s3cret-pw refused")
        await reaches(herder, (State.RUNNING, [State.FAILED]), NAME)
        status = await herder.connector_status(NAME)
        assert status.tasks[0].trace == "Traceback: connection to db with [hidden] refused"

        await herder.put_connector_config(
            "failing", connector_config(secrets, fail="yes"), allow_replace=False
        )
        await reaches(herder, (State.FAILED, []), "failing")
        trace = (await herder.connector_status("failing")).connector.trace or ""
        assert "login refused for password [hidden]" in trace and "s3cret-pw" not in trace


@pytest.mark.parametrize(("reload", "restarts"), [("restart", True), ("none", False)])
async def test_a_ttl_restarts_the_connector_unless_reload_is_none(reload: str, restarts: bool) -> None:
    async with secret_herder(ttl_ms=300) as (herder, _):
        config = {"connector.class": "SecretSink", "topics": "in", "file": "${exp:/vault:file}",
                  "db.password": "pw", "config.action.reload": reload}  # fmt: skip
        await herder.put_connector_config(NAME, config, allow_replace=False)
        await reaches(herder, (State.RUNNING, [State.RUNNING]), NAME)
        assert SecretSink.started[0]["file"] == "file-value"
        await asyncio.sleep(1.0)
        assert (len(SecretSink.started) > 1) is restarts
        await reaches(herder, (State.RUNNING, [State.RUNNING]), NAME)
