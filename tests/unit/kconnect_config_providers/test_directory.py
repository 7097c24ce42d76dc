"""DirectoryConfigProvider: one value per regular file, as Kafka's (and Kubernetes secret mounts)."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest
from kconnect.config import ConfigException
from kconnect_config_providers.directory import DirectoryConfigProvider


def provider(**params: str) -> DirectoryConfigProvider:
    instance = DirectoryConfigProvider()
    instance.configure(params)
    return instance


@pytest.fixture
def mount(tmp_path: Path) -> Path:
    """A folder shaped like a Kubernetes secret mount: files are links into a hidden data folder."""
    folder = tmp_path / "secrets"
    data = folder / "..data"
    data.mkdir(parents=True)
    (data / "password").write_text("s3cret\n", encoding="utf-8")
    (folder / "password").symlink_to(data / "password")
    (folder / "user").write_text("admin", encoding="utf-8")
    (folder / "nested").mkdir()
    return folder


def test_reads_regular_files_content_unchanged(mount: Path) -> None:
    assert provider().get(str(mount)).data == {"password": "s3cret\n", "user": "admin"}
    assert provider().get(str(mount), {"user", "nested", "missing"}).data == {"user": "admin"}


def test_a_path_that_is_not_a_directory_answers_nothing(
    mount: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        assert provider().get(str(mount / "user"), {"user"}).data == {}
        assert provider().get(str(mount / "missing"), {"user"}).data == {}
    assert "is not a directory" in caplog.text
    assert provider().get("", {"user"}).data == {}


def test_allowed_paths(mount: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "user").write_text("x", encoding="utf-8")
    guarded = provider(**{"allowed.paths": f"{mount},{tmp_path / 'other' / '..' / 'secrets'}"})
    assert guarded.get(str(mount), {"user"}).data == {"user": "admin"}
    assert guarded.get(str(other), {"user"}).data == {}


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file")
def test_an_unreadable_file_is_kafkas_config_exception(mount: Path) -> None:
    secret = mount / "locked"
    secret.write_text("x", encoding="utf-8")
    secret.chmod(0)
    with pytest.raises(ConfigException, match=f"^Could not read file {secret} for property locked$"):
        provider().get(str(mount), {"locked"})


def test_an_unknown_parameter_is_refused() -> None:
    with pytest.raises(ConfigException, match="Unknown parameter x"):
        provider(x="1")
