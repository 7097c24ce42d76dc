"""The documentation site (``mkdocs.yml``, ``docs/``) builds with ``--strict`` and no warning.

A broken link or anchor, a missing image, a page in neither the nav nor ``not_in_nav``, a README
section the getting-started pages include that is gone: each is a warning, and strict mode fails
the build on it. The OpenAPI page must also be what ``scripts/openapi_doc.py`` generates from the
REST app now, so the REST reference cannot drift from the server.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.harness import REPO_ROOT


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    out = tmp_path_factory.mktemp("site")
    # Material prints a banner about MkDocs 2 that names this variable; it is not a build warning.
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return build, out


def test_the_site_builds_strict_without_a_warning(
    site: tuple[subprocess.CompletedProcess[str], Path],
) -> None:
    build, _ = site
    output = build.stdout + build.stderr
    assert build.returncode == 0, output
    assert "WARNING" not in output, output
    assert "Documentation built in" in output


@pytest.mark.parametrize(
    ("page", "text"),
    [
        ("index.html", "runs Kafka Connect connectors written in plain Python"),
        ("getting-started/install/index.html", "kconnect-rest"),
        ("getting-started/quickstart/index.html", "bash scripts/quickstart.sh"),
        ("getting-started/first-connector/index.html", "register_connectors"),
        ("connector-developer-guide/index.html", "Resuming from previous offsets"),
        ("rest/index.html", "GET /openapi"),
        ("rest-openapi/index.html", "PUT /connectors/{connector}/config"),
        ("differences/index.html", "Differences"),
        ("performance/index.html", "_repo/benchmarks/results/task_footprint.png"),
    ],
)
def test_a_key_page_is_in_the_site(
    site: tuple[subprocess.CompletedProcess[str], Path], page: str, text: str
) -> None:
    build, out = site
    assert build.returncode == 0, build.stderr
    assert text in (out / page).read_text(encoding="utf-8")


def test_the_site_serves_the_openapi_json_and_the_charts(
    site: tuple[subprocess.CompletedProcess[str], Path],
) -> None:
    _, out = site
    assert (out / "rest-openapi.json").read_bytes() == (REPO_ROOT / "docs" / "rest-openapi.json").read_bytes()
    assert (out / "_repo" / "benchmarks" / "results" / "task_footprint.png").stat().st_size > 0


def test_the_openapi_page_is_what_the_rest_app_generates() -> None:
    check = subprocess.run(
        [sys.executable, str(REPO_ROOT / "scripts" / "openapi_doc.py"), "--check"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert check.returncode == 0, check.stderr
