"""Test-only kconnect plugins for real worker processes: a module and its ``kconnect`` entry point on disk.

A worker process (and the Spark Python workers it starts, which inherit ``PYTHONPATH``) finds
plugins through entry points only, so a test that needs a connector of its own writes the module
next to a ``.dist-info`` that declares it, exactly what ``pip install`` leaves in site-packages,
and starts the worker with `plugin_env`. `install_connectors` installs ``tests/connectors.py`` so.
"""

from __future__ import annotations

import os
from pathlib import Path

from tests import connectors

#: The module name `install_connectors` installs ``tests/connectors.py`` under.
CONNECTORS_MODULE = "kconnect_test_connectors"


def write_plugin(where: Path, module: str, source: str, version: str = "1.0.0") -> Path:
    """Write `source` as module `module` under `where`, declared as the ``kconnect`` entry point
    ``module = module`` of a distribution of the same name; return `where` (for `plugin_env`)."""
    where.mkdir(parents=True, exist_ok=True)
    (where / f"{module}.py").write_text(source, encoding="utf-8")
    dist = where / f"{module}-{version}.dist-info"
    dist.mkdir(exist_ok=True)
    (dist / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {module}\nVersion: {version}\n", encoding="utf-8"
    )
    (dist / "entry_points.txt").write_text(f"[kconnect]\n{module} = {module}\n", encoding="utf-8")
    (dist / "top_level.txt").write_text(f"{module}\n", encoding="utf-8")
    return where


def plugin_env(*paths: Path) -> dict[str, str]:
    """The environment additions that let a worker process find plugins written by `write_plugin`."""
    inherited = os.environ.get("PYTHONPATH", "")
    return {"PYTHONPATH": os.pathsep.join([*(str(p) for p in paths), *([inherited] if inherited else [])])}


def install_connectors(where: Path) -> Path:
    """Install ``tests/connectors.py`` under `where` as the plugin `CONNECTORS_MODULE` (`write_plugin`):
    a worker started with ``plugin_env(where)`` runs its connectors under `connectors.ALIASES`."""
    return write_plugin(where, CONNECTORS_MODULE, Path(connectors.__file__).read_text(encoding="utf-8"))
