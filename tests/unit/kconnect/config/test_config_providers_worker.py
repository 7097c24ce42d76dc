"""The worker's config providers: its own properties resolved at start, its connectors' configs at
instance start, a TTL that restarts the connector, secrets remembered for scrubbing."""

from __future__ import annotations

import logging
import re
import threading
from pathlib import Path
from typing import Any

import pytest
from kconnect import hookimpl
from kconnect.config.providers_worker import ConfigProviderError, WorkerConfigTransformer
from kconnect.plugin_host import PluginHost
from kconnect.worker_config import ConfigFileError
from kconnect.worker_providers import (
    connector_password_keys,
    create_providers,
    read_worker_config,
    worker_config_transformer,
)

from tests.connectors import SecretSink
from tests.unit.kconnect.config.provider_fakes import ExpiringProvider

JAVA = "org.apache.kafka.common.config.provider."


class SecretsPlugin:
    @hookimpl
    def register_config_providers(self, registry: Any) -> None:
        registry.add(ExpiringProvider, aliases=["Expiring"])

    @hookimpl
    def register_connectors(self, registry: Any) -> None:
        registry.add(SecretSink, aliases=["SecretSink"])


def host() -> PluginHost:
    return PluginHost.load(extra_plugins=[SecretsPlugin()])


# --- the worker's own properties --------------------------------------------------------------------


def test_a_worker_files_references_are_resolved_when_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "kafka.properties").write_text("servers=broker-1:9092\n", encoding="utf-8")
    (tmp_path / "mount").mkdir()
    (tmp_path / "mount" / "offsets").write_text(str(tmp_path / "offsets.json"), encoding="utf-8")
    monkeypatch.setenv("KCONNECT_TEST_GROUP", "connect-cluster")
    worker = tmp_path / "worker.properties"
    worker.write_text(
        "config.providers=file,env,directory\n"
        f"config.providers.file.class={JAVA}FileConfigProvider\n"
        "config.providers.env.class=EnvVarConfigProvider\n"
        "config.providers.env.param.allowlist.pattern=KCONNECT_TEST_.*\n"
        f"config.providers.directory.class={JAVA}DirectoryConfigProvider\n"
        f"config.providers.directory.param.allowed.paths={tmp_path / 'mount'}\n"
        f"bootstrap.servers=${{file:{tmp_path / 'kafka.properties'}:servers}}\n"
        "group.id=${env:KCONNECT_TEST_GROUP}\n"
        "client.id=${env:HOME}\n"
        f"offset.storage.file.filename=${{directory:{tmp_path / 'mount'}:offsets}}\n",
        encoding="utf-8",
    )
    config = read_worker_config(worker, host())
    assert config.bootstrap_servers == "broker-1:9092"
    assert config.props["group.id"] == "connect-cluster"
    assert config.props["client.id"] == "${env:HOME}"  # not in the allowlist: left as written
    assert config.offset_storage_file == str(tmp_path / "offsets.json")
    assert config.props["config.providers"] == "file,env,directory"


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (
            ["config.providers=vault", "config.providers.vault.class=VaultConfigProvider"],
            "config.providers.vault.class: Failed to find any class that implements ConfigProvider and which "
            "name matches VaultConfigProvider, available ConfigProviders are: ",
        ),
        (
            ["config.providers=file", "config.providers.file.class=FileConfigProvider",
             "config.providers.file.param.allowed.paths=relative"],
            "config.providers.file.param.allowed.paths: Path relative is not absolute",
        ),
        (
            ["config.providers=file", "config.providers.file.class=FileConfigProvider",
             "config.providers.file.param.allowed.path=/tmp"],
            "config.providers.file.param.allowed.path: Unknown parameter allowed.path: FileConfigProvider "
            "takes allowed.paths",
        ),
        (
            ["config.providers=file", "config.providers.file.class=FileConfigProvider",
             "bootstrap.servers=${file:/no/such/file:servers}"],
            "Could not read properties from file /no/such/file",
        ),
    ],
)  # fmt: skip
def test_a_bad_provider_stops_the_worker_naming_the_file_and_key(
    tmp_path: Path, lines: list[str], message: str
) -> None:
    worker = tmp_path / "worker.properties"
    worker.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ConfigFileError) as error:
        read_worker_config(worker, host())
    assert str(error.value).startswith(f"{worker}: {message}")


def test_a_listed_provider_without_a_class_leaves_its_references(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        providers = create_providers(
            {"config.providers": "file, env", "config.providers.env.class": "Expiring"}, host()
        )
    assert list(providers) == ["env"]
    assert "config.providers.file.class is not set" in caplog.text


def test_params_reach_the_provider_without_their_prefix() -> None:
    props = {
        "config.providers": "exp",
        "config.providers.exp.class": "Expiring",
        "config.providers.exp.param.ttl.ms": "1234",
    }
    provider = create_providers(props, host())["exp"]
    assert isinstance(provider, ExpiringProvider) and provider.ttl == 1234
    cls = f"{ExpiringProvider.__module__}.ExpiringProvider"
    failing = f"config.providers.exp.class: {cls} failed to start: ValueError"
    with pytest.raises(ConfigProviderError, match=re.escape(failing)):
        create_providers({**props, "config.providers.exp.param.ttl.ms": "x"}, host())


# --- connectors: TTL restarts and secrets ---------------------------------------------------------------


def transformer(ttl_ms: int, restarted: list[str], done: threading.Event) -> WorkerConfigTransformer:
    props = {"config.providers": "exp", "config.providers.exp.class": "Expiring",
             "config.providers.exp.param.ttl.ms": str(ttl_ms)}  # fmt: skip

    def restart(name: str) -> None:
        restarted.append(name)
        done.set()

    return worker_config_transformer(props, host(), restart)


def test_a_value_with_a_ttl_restarts_its_connector_when_it_expires() -> None:
    restarted: list[str] = []
    done = threading.Event()
    resolver = transformer(100, restarted, done)
    config = {"connector.class": "SecretSink", "db.user": "${exp:/vault/db:user}"}
    assert resolver.resolve_connector("sink", config)["db.user"] == "user-value"
    # A second resolution of the same path replaces the pending restart: one restart, not two.
    resolver.resolve_connector("sink", config)
    assert done.wait(5)
    threading.Event().wait(0.3)
    assert restarted == ["sink"]
    resolver.close()


def test_config_action_reload_none_never_restarts_and_close_cancels() -> None:
    restarted: list[str] = []
    done = threading.Event()
    resolver = transformer(100, restarted, done)
    config = {"connector.class": "SecretSink", "db.user": "${exp:p:user}", "config.action.reload": "none"}
    resolver.resolve_task("sink", config, {"db.user": "${exp:p:user}"})
    assert not done.wait(0.4)
    resolver.resolve_connector("other", {"db.user": "${exp:p:user}"})
    resolver.close()
    assert not done.wait(0.3)
    assert restarted == []


def test_validation_resolves_without_scheduling() -> None:
    restarted: list[str] = []
    done = threading.Event()
    resolver = transformer(50, restarted, done)
    assert resolver.transform({"db.user": "${exp:p:user}", "x": None}) == {"db.user": "user-value", "x": None}
    assert not done.wait(0.3)
    resolver.close()


def test_password_values_are_remembered_and_scrubbed_from_traces() -> None:
    resolver = transformer(-1, [], threading.Event())
    assert connector_password_keys(host(), {"connector.class": "SecretSink"}) == {"db.password"}
    config = {"connector.class": "SecretSink", "db.password": "${exp:p:pw}", "db.user": "admin"}
    connector, task = resolver.resolve_task(
        "sink", config, {"db.password": "${exp:p:pw}", "db.user": "admin"}
    )
    assert connector["db.password"] == task["db.password"] == "pw-value"
    trace = "java.sql.SQLException: login admin/pw-value refused"
    assert resolver.scrub("sink", trace) == "java.sql.SQLException: login admin/[hidden] refused"
    assert resolver.scrub("another", trace) == trace
    # A plain (not referenced) password is a secret too.
    resolver.resolve_connector("plain", {"connector.class": "SecretSink", "db.password": "hunter22"})
    assert resolver.scrub("plain", "bad password hunter22") == "bad password [hidden]"


def test_without_providers_nothing_changes() -> None:
    resolver = WorkerConfigTransformer()
    assert not resolver.enabled
    config = {"a": "${env:HOME}"}
    assert resolver.resolve_connector("c", config) == config
    assert resolver.resolve_task("c", config, config) == (config, config)
