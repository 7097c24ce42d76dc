"""EnvVarConfigProvider: environment variables, filtered by ``allowlist.pattern`` as in Kafka."""

from __future__ import annotations

import pytest
from kconnect.config import ConfigException
from kconnect_config_providers.env_var import EnvVarConfigProvider

ENVIRONMENT = {"DB_PASSWORD": "s3cret", "DB_USER": "admin", "HOME": "/home/k", "XDB_USER": "no"}


def provider(**params: str) -> EnvVarConfigProvider:
    instance = EnvVarConfigProvider(ENVIRONMENT)
    instance.configure(params)
    return instance


def test_every_variable_by_default() -> None:
    assert provider().get("").data == ENVIRONMENT
    assert provider().get("", {"HOME", "NOPE"}).data == {"HOME": "/home/k"}


def test_the_allowlist_pattern_must_match_the_whole_name() -> None:
    allowed = provider(**{"allowlist.pattern": "DB_.*"})
    assert allowed.get("").data == {"DB_PASSWORD": "s3cret", "DB_USER": "admin"}
    assert allowed.get("", {"HOME", "DB_USER", "XDB_USER"}).data == {"DB_USER": "admin"}


def test_a_path_is_kafkas_error() -> None:
    with pytest.raises(
        ConfigException, match=r"^Path is not supported for EnvVarConfigProvider, invalid value '/x'$"
    ):
        provider().get("/x", {"HOME"})


def test_a_bad_pattern_and_an_unknown_parameter_are_refused() -> None:
    with pytest.raises(ConfigException, match=r"Invalid value \( for configuration allowlist.pattern"):
        provider(**{"allowlist.pattern": "("})
    with pytest.raises(ConfigException, match="Unknown parameter allowlist: EnvVarConfigProvider"):
        provider(allowlist="x")


def test_reads_the_process_environment_when_created(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KCONNECT_TEST_SECRET", "v1")
    instance = EnvVarConfigProvider()
    monkeypatch.setenv("KCONNECT_TEST_SECRET", "v2")
    instance.configure({})
    assert instance.get("", {"KCONNECT_TEST_SECRET"}).data == {"KCONNECT_TEST_SECRET": "v1"}
