"""Shared fixtures: one real Kafka broker per test session, and per-test topic names.

Integration tests mark themselves with ``pytestmark = pytest.mark.integration``. Under ``CI=true`` (set
by ``.ci/run``) a skipped test fails: a tool missing on the CI machine must not leave CI green.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
import uuid
from collections.abc import Generator, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent


def _load_script(name: str) -> ModuleType:
    """Import ``scripts/<name>.py`` by path; ``scripts`` is a folder of tools, not a package."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, REPO_ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling look modules up here
    spec.loader.exec_module(module)
    return module


kafka_broker_script = _load_script("kafka_broker")


# --- CI runs everything ------------------------------------------------------------------------------------


def skips_fail() -> bool:
    """Whether a skipped test counts as failed: under ``CI=true``, where every tool must be installed."""
    return os.environ.get("CI", "").lower() in {"true", "1", "yes"}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
    """Under ``CI=true``, report a skipped test (not an expected failure) as failed, with its reason."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and not hasattr(report, "wasxfail") and skips_fail():
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped under CI=true, where nothing may skip: {reason}"


# --- Kafka -------------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def kafka_broker() -> Iterator[Any]:
    """Start one real single-node Kafka broker (KRaft) for the whole session; stop it at the end."""
    with kafka_broker_script.KafkaBroker() as broker:
        yield broker


@pytest.fixture(scope="session")
def kafka_bootstrap(kafka_broker: Any) -> str:
    """Return the session broker's ``bootstrap.servers`` string."""
    return str(kafka_broker.bootstrap_servers)


@pytest.fixture
def unique_topic(request: pytest.FixtureRequest) -> str:
    """Return a topic name no other test uses: the test's name plus a random suffix."""
    stem = re.sub(r"[^a-zA-Z0-9._-]+", "-", request.node.name)[:80].strip("-")
    return f"{stem}-{uuid.uuid4().hex[:8]}"


# --- kconnect workers ------------------------------------------------------------------------------------


@pytest.fixture
def start_worker(tmp_path: Path, kafka_bootstrap: str) -> Iterator[Any]:
    """A factory starting real ``kconnect standalone`` workers on the session broker; stopped at the end.

    Call ``start_worker(extra_props, connector_files, env, python)``; the offset file defaults to the test's
    tmp dir, the interpreter to this one (pass a `venv_without` python to run without a package).
    """
    from tests.worker_process import WorkerProcess

    workers: list[WorkerProcess] = []

    def start(
        props: dict[str, str] | None = None,
        connector_files: list[Path] | None = None,
        env: dict[str, str] | None = None,
        python: str = sys.executable,
    ) -> WorkerProcess:
        worker_props = {
            "bootstrap.servers": kafka_bootstrap,
            "offset.storage.file.filename": str(tmp_path / "connect.offsets"),
            "offset.flush.interval.ms": "1000",
            **(props or {}),
        }
        worker = WorkerProcess(tmp_path, worker_props, connector_files, env, python)
        workers.append(worker)
        return worker.start()

    yield start
    for worker in workers:
        worker.stop()
