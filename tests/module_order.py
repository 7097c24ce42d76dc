"""Slowest test modules first, so the two test sessions finish together.

The suite runs in two pytest-xdist sessions, a module at a time each (``--dist loadfile``, tox.ini).
xdist hands out modules in collection order (``--no-loadscope-reorder``), so a slow module collected
last keeps one session busy long after the other ran out of work. This hook orders the modules by
the seconds each took in a recorded run (`DURATIONS`, written by ``scripts/test_durations.py``),
slowest first; a module missing there counts as `UNKNOWN_INTEGRATION_S` when it is an integration
module (a new one is usually a real-systems test) and as nothing otherwise. Tests keep their order
inside a module.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

DURATIONS = Path(__file__).with_name("module_seconds.json")
"""Seconds per test module (its path from the checkout's root), from one whole run."""

UNKNOWN_INTEGRATION_S = 30.0
"""The seconds an integration module missing from `DURATIONS` is taken to need."""


def module_seconds(path: str, recorded: dict[str, float]) -> float:
    """The seconds module `path` is expected to take (see the module's docstring)."""
    if path in recorded:
        return recorded[path]
    return UNKNOWN_INTEGRATION_S if "/integration/" in f"/{path}" else 0.0


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Reorder `items` slowest module first (a stable sort: each module's tests keep their order)."""
    recorded = json.loads(DURATIONS.read_text()) if DURATIONS.exists() else {}
    root = config.rootpath

    def module(item: pytest.Item) -> str:
        return item.path.relative_to(root).as_posix() if item.path.is_relative_to(root) else str(item.path)

    items.sort(key=lambda item: -module_seconds(module(item), recorded))
