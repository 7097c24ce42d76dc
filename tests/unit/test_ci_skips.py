"""Under ``CI=true`` a skipped test fails (``tests/harness.py``), so a tool missing in CI cannot hide."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]

SAMPLE = """
import pytest

def test_needs_a_tool():
    pytest.skip("the openssl command is not installed")

@pytest.mark.xfail(reason="known")
def test_known_failure():
    assert False

def test_passes():
    pass
"""


def _run(tmp_path: Path, ci: str | None) -> subprocess.CompletedProcess[str]:
    sample = tmp_path / "test_sample.py"
    sample.write_text(SAMPLE, encoding="utf-8")
    env = {key: value for key, value in os.environ.items() if key != "CI"}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # the sample needs none of the suite's plugins
    if ci is not None:
        env["CI"] = ci
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "tests.harness"]
    return subprocess.run(
        [*argv, "--rootdir", str(tmp_path), "-c", os.devnull, str(sample)],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_under_ci_a_skip_fails_with_its_reason(tmp_path: Path) -> None:
    result = _run(tmp_path, "true")
    assert result.returncode == 1, result.stdout
    assert "1 failed, 1 passed, 1 xfailed" in result.stdout
    assert "skipped under CI=true, where nothing may skip: Skipped: the openssl command is not installed" in (
        result.stdout
    )


@pytest.mark.parametrize("ci", [None, "false"])
def test_outside_ci_a_skip_stays_a_skip(tmp_path: Path, ci: str | None) -> None:
    result = _run(tmp_path, ci)
    assert result.returncode == 0, result.stdout
    assert "1 passed, 1 skipped, 1 xfailed" in result.stdout
