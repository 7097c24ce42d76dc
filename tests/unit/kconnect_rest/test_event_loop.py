"""The worker's event loop: uvloop when installed, asyncio's own loop otherwise."""

from __future__ import annotations

import asyncio
import sys

import pytest
from kconnect_rest import event_loop


async def _loop_class() -> str:
    return type(asyncio.get_running_loop()).__module__


def test_runs_on_uvloop_when_installed() -> None:
    pytest.importorskip("uvloop")
    assert event_loop.run(_loop_class()).startswith("uvloop")


def test_runs_on_asyncio_without_uvloop(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "uvloop", None)  # what a missing package looks like to import
    assert event_loop.run(_loop_class()).startswith("asyncio")


def test_answers_what_the_coroutine_returns() -> None:
    async def answer() -> int:
        await asyncio.sleep(0)
        return 42

    assert event_loop.run(answer()) == 42
