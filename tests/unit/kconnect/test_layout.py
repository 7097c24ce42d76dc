"""The workspace's shape: every code folder is one src-layout distribution, import path = file path.

These are the promises `docs/architecture.md` ("Layout") and `../shared/STYLE.md` make to readers and
tools: a module is found by the path after ``src/``, no distribution lists its packages by hand or
maps folders, and the kernel knows no HTTP.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

REPO = Path(__file__).resolve().parents[3]
WORKSPACE = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
MEMBERS = WORKSPACE["tool"]["kconnect"]["workspace"]["members"]
HTTP_LIBRARIES = {"litestar", "uvicorn", "starlette", "fastapi", "httpx", "aiohttp", "requests", "msgspec"}


def _member_packages() -> list[tuple[str, Path]]:
    """(import name, folder) of every top-level package of every workspace member."""
    found = []
    for member in MEMBERS:
        for init in sorted((REPO / member / "src").glob("*/__init__.py")):
            found.append((init.parent.name, init.parent))
    return found


def test_every_code_folder_is_a_member_in_src_layout() -> None:
    folders = {"kernel", "rest", "ctl"} | {
        f"plugins/{p.name}" for p in (REPO / "plugins").iterdir() if p.is_dir()
    }
    assert set(MEMBERS) == folders
    for member in MEMBERS:
        project = tomllib.loads((REPO / member / "pyproject.toml").read_text(encoding="utf-8"))
        setuptools = project.get("tool", {}).get("setuptools", {})
        assert "packages" not in setuptools and "package-dir" not in setuptools, member
        packages = [p for p in (REPO / member / "src").iterdir() if (p / "__init__.py").exists()]
        assert len(packages) == 1, (member, packages)
        stray = [p.name for p in (REPO / member).glob("*.py")]
        assert stray == [], f"{member} has modules outside src/: {stray}"


@pytest.mark.parametrize(("package", "folder"), _member_packages(), ids=lambda v: str(v).rsplit("/", 1)[-1])
def test_every_module_imports_from_the_path_after_src(package: str, folder: Path) -> None:
    root = importlib.import_module(package)
    assert Path(root.__file__ or "").resolve() == folder / "__init__.py"
    for info in pkgutil.walk_packages(root.__path__, prefix=f"{package}."):
        module = importlib.import_module(info.name)
        relative = info.name.split(".")[1:]
        expected = folder.joinpath(*relative)
        expected = expected / "__init__.py" if info.ispkg else expected.with_suffix(".py")
        assert Path(module.__file__ or "").resolve() == expected, info.name


def test_the_kernel_distribution_depends_on_no_http_library() -> None:
    requirements = importlib.metadata.requires("kconnect") or []
    names = {re.split(r"[ <>=!~;\[]", r, maxsplit=1)[0].lower() for r in requirements}
    assert names and not names & HTTP_LIBRARIES, names


def test_no_kernel_module_imports_an_http_library() -> None:
    # A fresh interpreter, so nothing the test session imported hides an import.
    probe = (
        "import importlib, pkgutil, sys, kconnect\n"
        "for info in pkgutil.walk_packages(kconnect.__path__, prefix='kconnect.'):\n"
        "    importlib.import_module(info.name)\n"
        f"print(sorted(m for m in {sorted(HTTP_LIBRARIES)!r} if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_the_command_line_client_imports_nothing_of_kconnect() -> None:
    # kconnectctl is a client of any Kafka Connect cluster, Java's too: a fresh interpreter, as above.
    probe = (
        "import importlib, pkgutil, sys, kconnect_ctl\n"
        "for info in pkgutil.walk_packages(kconnect_ctl.__path__, prefix='kconnect_ctl.'):\n"
        "    importlib.import_module(info.name)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('kconnect', 'kconnect_rest')))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_no_bare_kernel_rest_or_plugins_module_is_importable(tmp_path: Path) -> None:
    # Run from an empty folder: only what is installed can be found, not this checkout's folders.
    bare = ("kernel", "rest", "ctl", "plugins", "src")
    probe = f"import importlib.util as u; print([n for n in {bare!r} if u.find_spec(n)])"
    leaked = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert leaked.stdout.strip() == "[]"
