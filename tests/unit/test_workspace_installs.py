"""The README's two commands install the whole workspace, at the versions of the lock (issue 36).

`scripts/quickstart.sh` (pip) and tox (uv) each name the workspace's members; a member one of them
leaves out breaks the install as soon as another member depends on it (the quickstart did, when
the test kit came to depend on kconnect-java). Both, and `.ci/run`, install with
``requirements.lock`` as their constraints, which pins every package once (one line a package and
Python version).
"""

from __future__ import annotations

import configparser
import re

import tomllib

from tests.harness import REPO_ROOT


def _members() -> list[str]:
    with (REPO_ROOT / "pyproject.toml").open("rb") as f:
        return list(tomllib.load(f)["tool"]["kconnect"]["workspace"]["members"])


def _editables(text: str) -> set[str]:
    return set(re.findall(r"-e\s+(\S+)", text))


def test_the_quickstart_installs_every_member_with_the_lock() -> None:
    script = (REPO_ROOT / "scripts" / "quickstart.sh").read_text(encoding="utf-8")
    install = next(line for line in script.splitlines() if "pip install" in line and " -e " in line)
    assert _editables(install) == set(_members())
    assert "--constraint requirements.lock" in install


def test_tox_installs_every_member_with_the_lock() -> None:
    tox = configparser.ConfigParser(interpolation=None)
    tox.read(REPO_ROOT / "tox.ini", encoding="utf-8")
    assert _editables(tox["testenv"]["deps"]) == set(_members())
    setenv = tox["testenv"]["setenv"]
    for variable in ("UV_CONSTRAINT", "UV_BUILD_CONSTRAINT", "PIP_CONSTRAINT"):
        assert re.search(rf"^{variable}\s*=\s*{{toxinidir}}/requirements.lock$", setenv, re.M), variable


def test_ci_installs_tox_with_the_lock() -> None:
    run = (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "pip install --quiet --constraint requirements.lock tox tox-uv" in run


def test_the_lock_pins_each_package_once_per_python() -> None:
    pins: dict[tuple[str, str], str] = {}
    for line in (REPO_ROOT / "requirements.lock").read_text(encoding="utf-8").splitlines():
        requirement = line.split("#", 1)[0].strip()
        if not requirement:
            continue
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)==(\S+)(?:\s*;\s*(.+))?", requirement)
        assert match, f"not an exact pin: {line}"
        name, version, marker = match.group(1).lower(), match.group(2), match.group(3) or ""
        assert (name, marker) not in pins, f"{name} pinned twice for {marker or 'every Python'}"
        pins[(name, marker)] = version
    names = {name for name, _ in pins}
    assert {"msgspec", "litestar", "pyspark", "aiokafka", "pytest", "tox", "tox-uv", "uv"} <= names
