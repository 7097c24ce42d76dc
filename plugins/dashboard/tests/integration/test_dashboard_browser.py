"""The dashboard in a real browser (Debian's headless Chromium through Playwright) against a real
standalone worker on the real broker and Spark.

One worker with ``rest.extension.classes=Dashboard`` runs a FileStreamSource and a FlakySource whose
first task run fails. In the browser: the counts show one FAILED task, the failing connector is
listed first, its row opens on the task's real trace, "Restart" with only-failed restarts it (the
task runs again: RUNNING), both are paused in bulk, filtering by name leaves one row, a stopped
connector shows its offsets, and a delete through the page removes it. With
``KCONNECT_DASHBOARD_SCREENSHOTS=<folder>`` each screen is saved there (docs/dashboard/ holds them).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from tests.integration.harness import lines
from tests.plugin_package import install_connectors, plugin_env
from tests.worker_process import WorkerProcess

pytestmark = pytest.mark.integration

#: Debian's Chromium (.ci/run installs the package); Playwright downloads no browser of its own.
CHROMIUM = "/usr/bin/chromium"
#: Chromium's flags for a closed network (no background connections, no first-run work).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SHOTS = os.environ.get("KCONNECT_DASHBOARD_SCREENSHOTS")


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory, kafka_bootstrap: str) -> Iterator[WorkerProcess]:
    """A standalone worker serving the dashboard, with the test connectors installed."""
    workdir = tmp_path_factory.mktemp("dashboard")
    props = {
        "bootstrap.servers": kafka_bootstrap,
        "offset.storage.file.filename": str(workdir / "connect.offsets"),
        "offset.flush.interval.ms": "300",
        "rest.extension.classes": "Dashboard",
    }
    env = plugin_env(install_connectors(workdir / "plugins"))
    started = WorkerProcess(workdir, props, env=env).start()
    yield started
    started.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Headless Chromium, started once for the module."""
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


def shot(page: Page, name: str) -> None:
    """Save the screen as `name`.png when screenshots are asked for."""
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=True)


def create(worker: WorkerProcess, name: str, config: dict[str, str]) -> None:
    """Create a connector through the REST API."""
    response = worker.request("PUT", f"/connectors/{name}/config", config)
    assert response.status_code == 201, response.text


def status(worker: WorkerProcess, name: str) -> dict[str, Any]:
    """The connector's status body."""
    body: dict[str, Any] = worker.get(f"/connectors/{name}/status").json()
    return body


def task_states(worker: WorkerProcess, name: str) -> list[str]:
    """The states of the connector's tasks, in task order."""
    return [task["state"] for task in status(worker, name)["tasks"]]


def test_triage_trace_restart_bulk_pause_filter_offsets_and_delete_in_a_real_browser(
    worker: WorkerProcess, browser: Browser, tmp_path: Path
) -> None:
    suffix = uuid.uuid4().hex[:6]
    copy, flaky = f"copy-{suffix}", f"flaky-{suffix}"
    source = tmp_path / "lines.txt"
    source.write_text(lines(0, 100), encoding="utf-8")
    create(worker, copy, {"connector.class": "FileStreamSource", "file": str(source), "topic": f"{copy}-t"})
    create(
        worker,
        flaky,
        {
            "connector.class": "FlakySource",
            "topic": f"{flaky}-t",
            "runs.file": str(tmp_path / "runs"),
            "failing.runs": "1",
            "lines": "20",
        },
    )
    worker.wait_for("the flaky task FAILED", lambda: task_states(worker, flaky) == ["FAILED"], 90)

    page = browser.new_page(viewport={"width": 1400, "height": 900})
    response = page.goto(f"{worker.url.rstrip('/')}/dashboard")
    assert response is not None and response.status == 200
    rows = page.locator("#connectors tbody tr[data-connector]")
    expect(rows.first).to_have_attribute("data-connector", flaky)  # failed first
    expect(page.locator("#task-counts [data-state=FAILED]")).to_have_text("1 FAILED")
    expect(page.locator("#worker")).to_contain_text("Kafka cluster")
    shot(page, "triage")

    page.get_by_role("button", name=flaky, exact=True).click()
    trace = page.locator(f'tr[data-details="{flaky}"] tr[data-task="0"] pre.trace')
    expect(trace).to_contain_text("Flaky run 1 fails on purpose")
    expect(trace).to_contain_text("RuntimeError")
    shot(page, "trace")

    page.locator("#only-failed").check()
    page.locator(f'tr[data-connector="{flaky}"] [data-action=restart]').click()
    expect(page.locator("#message")).to_have_text(f"restart: {flaky}")
    summary = page.locator(f'tr[data-connector="{flaky}"] .task-summary')
    expect(summary).to_have_text("1 running", timeout=60_000)
    assert task_states(worker, flaky) == ["RUNNING"]

    page.locator("#select-all").check()
    expect(page.locator("#selected-count")).to_have_text("2 selected")
    page.locator("[data-bulk=pause]").click()
    for name in (copy, flaky):
        expect(page.locator(f'tr[data-connector="{name}"] .badge')).to_have_text("PAUSED", timeout=60_000)
        assert status(worker, name)["connector"]["state"] == "PAUSED"
    shot(page, "bulk-paused")

    page.locator("#search").fill(copy)
    expect(rows).to_have_count(1)
    expect(rows.first).to_have_attribute("data-connector", copy)

    page.locator(f'tr[data-connector="{copy}"] [data-action=stop]').click()
    expect(page.locator(f'tr[data-connector="{copy}"] .badge')).to_have_text("STOPPED", timeout=60_000)
    page.get_by_role("button", name=copy, exact=True).click()
    offsets = page.locator(f'tr[data-details="{copy}"] pre.offsets')
    expect(offsets).to_contain_text('"position"')
    expect(offsets).to_contain_text(str(source))
    shot(page, "offsets")

    page.once("dialog", lambda dialog: dialog.accept())
    page.locator(f'tr[data-connector="{copy}"] [data-action=delete]').click()
    expect(rows).to_have_count(0)
    expect(page.locator("#empty")).to_be_visible()
    assert worker.get(f"/connectors/{copy}").status_code == 404
    page.close()
