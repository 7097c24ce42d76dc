"""`kconnect plugin new` writes plugins whose own tests pass: scaffolded into a temporary folder,
pip-installed into a throwaway venv, their generated tests run there on a real broker and worker."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from kconnect_testkit import jars

pytestmark = pytest.mark.integration


def throwaway_venv(where: Path) -> str:
    """A venv that sees this environment's packages (and their ``.pth`` files, the editable installs)
    behind its own, so what is installed there stays there; returns its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    python = str(where / "bin" / "python")
    purelib = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    site = subprocess.run([python, "-c", purelib], check=True, capture_output=True, text=True).stdout
    ours = sysconfig.get_paths()["purelib"]
    (Path(site.strip()) / "tests_environment.pth").write_text(
        f"import site; site.addsitedir({ours!r})\n", encoding="utf-8"
    )
    return python


def test_scaffolded_plugins_install_and_pass_their_own_tests(tmp_path: Path) -> None:
    for name, kind in (("acme-counter", "source"), ("acme-lines", "sink")):
        new = [sys.executable, "-m", "kconnect_rest.cli", "plugin", "new", name, "--kind", kind]
        done = subprocess.run([*new, "--dir", str(tmp_path)], capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip().endswith(str(tmp_path / name)), done.stdout
    python = throwaway_venv(tmp_path / "venv")
    install = [python, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps"]
    install += ["--no-build-isolation", str(tmp_path / "acme-counter"), str(tmp_path / "acme-lines")]
    subprocess.run(install, check=True, cwd=tmp_path)

    tests = [str(tmp_path / "acme-counter" / "tests"), str(tmp_path / "acme-lines" / "tests")]
    env = {**os.environ, "KCONNECT_CACHE": str(jars.cache_root())}  # Kafka's jars, already fetched
    run = subprocess.run(
        [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=280,
        check=False,
    )

    assert run.returncode == 0, run.stdout + run.stderr
    assert "2 passed" in run.stdout, run.stdout
