"""FileConfigProvider: Kafka's behaviour, including ``allowed.paths`` (KIP-993)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from kconnect.config import ConfigException
from kconnect_config_providers.file import FileConfigProvider


def provider(**params: str) -> FileConfigProvider:
    instance = FileConfigProvider()
    instance.configure(params)
    return instance


@pytest.fixture
def secrets(tmp_path: Path) -> Path:
    folder = tmp_path / "secrets"
    folder.mkdir()
    (folder / "db.properties").write_text(
        "# Java properties syntax\nuser = admin\npassword=s3cr\\u00e9t\n"
        "url: jdbc\\:pg://h/db\nmulti=a\\\n  b\n",
        encoding="utf-8",
    )
    return folder


def test_reads_every_key_or_only_the_keys_asked(secrets: Path) -> None:
    path = str(secrets / "db.properties")
    everything = {"user": "admin", "password": "s3cr\u00e9t", "url": "jdbc:pg://h/db", "multi": "ab"}
    assert provider().get(path).data == everything
    assert provider().get(path, {"user", "missing"}).data == {"user": "admin"}
    assert provider().get(path).ttl is None


def test_an_empty_path_answers_nothing() -> None:
    assert provider().get("", {"x"}).data == {}


def test_a_file_that_cannot_be_read_is_kafkas_config_exception(tmp_path: Path) -> None:
    missing = str(tmp_path / "nope.properties")
    with pytest.raises(ConfigException, match=f"^Could not read properties from file {missing}$"):
        provider().get(missing, {"x"})


def test_allowed_paths_lets_only_files_under_them_be_read(
    secrets: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "other.properties").write_text("user=x\n", encoding="utf-8")
    guarded = provider(**{"allowed.paths": str(secrets)})
    assert guarded.get(str(secrets / "db.properties"), {"user"}).data == {"user": "admin"}
    with caplog.at_level(logging.WARNING):
        assert guarded.get(str(tmp_path / "other.properties"), {"user"}).data == {}
        # Normalised before the check: a '..' cannot climb out of an allowed folder.
        assert guarded.get(f"{secrets}/../other.properties", {"user"}).data == {}
        # Component by component: /x/secrets-old is not under /x/secrets.
        assert guarded.get(f"{secrets}-old/db.properties", {"user"}).data == {}
    assert "is not allowed to be accessed" in caplog.text


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("relative/dir", "Path relative/dir is not absolute"),
        ("/no/such/dir", "Path /no/such/dir does not exist"),
    ],
)
def test_bad_allowed_paths_are_kafkas_errors(value: str, message: str) -> None:
    with pytest.raises(ConfigException, match=f"^{message}$"):
        provider(**{"allowed.paths": value})


def test_an_unknown_parameter_is_refused() -> None:
    with pytest.raises(
        ConfigException, match=r"Unknown parameter allowed\.path: FileConfigProvider takes allowed\.paths"
    ):
        provider(**{"allowed.path": "/tmp"})


def test_get_before_configure_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="not been configured"):
        FileConfigProvider().get("/x", {"k"})
