"""DirectoryConfigProvider: one value per regular file, as Kafka's (and Kubernetes secret mounts)."""

from __future__ import annotations

import logging
import os
import pwd
import tempfile
from collections.abc import Callable
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


def test_an_unreadable_file_is_kafkas_config_exception() -> None:
    # Root reads every file whatever its mode, so as root the check runs in a child process that has
    # dropped to the unprivileged user `nobody` (CI runs the tests as root).
    with tempfile.TemporaryDirectory() as scratch:
        mount = Path(scratch) / "secrets"
        mount.mkdir()
        Path(scratch).chmod(0o755)
        mount.chmod(0o755)
        secret = mount / "locked"
        secret.write_text("x", encoding="utf-8")
        secret.chmod(0)
        expected = f"Could not read file {secret} for property locked"
        assert _as_unprivileged(lambda: _read_error(mount)) == expected


def _read_error(mount: Path) -> str:
    try:
        provider().get(str(mount), {"locked"})
    except ConfigException as exc:
        return str(exc)
    return "no error"


def _as_unprivileged(check: Callable[[], str]) -> str:
    """`check()`, run in a forked child as `nobody` when this process is root, else here."""
    if os.geteuid() != 0:
        return check()
    nobody = pwd.getpwnam("nobody")
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: drop root, answer through the pipe, never return into pytest
        try:
            os.setgroups([])
            os.setgid(nobody.pw_gid)
            os.setuid(nobody.pw_uid)
            answer = check()
        except BaseException as exc:
            answer = f"child failed: {exc!r}"
        os.write(write_end, answer.encode())
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        answer = pipe.read().decode()
    os.waitpid(pid, 0)
    return answer


def test_an_unknown_parameter_is_refused() -> None:
    with pytest.raises(ConfigException, match="Unknown parameter x"):
        provider(x="1")
