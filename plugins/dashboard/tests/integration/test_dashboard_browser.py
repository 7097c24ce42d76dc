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


def validate_errors(worker: WorkerProcess, plugin: str, config: dict[str, str]) -> dict[str, list[str]]:
    """Each key's errors as the validate endpoint answers them."""
    body = worker.request("PUT", f"/connector-plugins/{plugin}/config/validate", config).json()
    return {
        c["value"]["name"]: c["value"]["errors"]
        for c in body["configs"]
        if c["value"] and c["value"]["errors"]
    }


def test_the_form_built_from_the_config_definition_validates_as_the_user_types_creates_and_edits(
    worker: WorkerProcess, browser: Browser, tmp_path: Path
) -> None:
    name = f"formed-{uuid.uuid4().hex[:6]}"
    source = tmp_path / "formed.txt"
    source.write_text(lines(0, 10), encoding="utf-8")
    plugins = worker.get("/connector-plugins").json()
    plugin = next(p["class"] for p in plugins if p["class"].endswith("FileStreamSourceConnector"))
    missing_topic = validate_errors(
        worker, plugin, {"connector.class": plugin, "name": name, "file": str(source)}
    )
    assert "topic" in missing_topic

    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{worker.url.rstrip('/')}/dashboard")
    page.get_by_role("button", name="New connector").click()
    page.select_option("#form-plugin", value=plugin)
    page.locator("#form-name").fill(name)
    page.locator('#form-fields input[name="file"]').fill(str(source))
    topic_errors = page.locator('#form-fields [data-key="topic"] .errors')
    expect(topic_errors).to_have_text(
        " ".join(missing_topic["topic"])
    )  # the endpoint's own words, on its key
    expect(page.locator('#form-fields [data-key="topic"] label')).to_have_class("required")
    shot(page, "form-error")
    page.locator('#form-fields input[name="topic"]').fill(f"{name}-t")
    expect(topic_errors).to_have_text("")
    expect(page.locator("#form-summary")).to_have_text("valid")
    page.locator("#form-submit").click()
    expect(page.locator("#message")).to_have_text(f"created {name}")
    expect(page.locator(f'tr[data-connector="{name}"] .badge')).to_have_text("RUNNING", timeout=60_000)
    assert worker.get(f"/connectors/{name}/config").json()["topic"] == f"{name}-t"

    page.locator(f'tr[data-connector="{name}"] [data-action=edit]').click()
    expect(page.locator("#form-title")).to_have_text(f"Edit {name}")
    expect(page.locator('#form-fields input[name="file"]')).to_have_value(str(source))
    batch = page.locator('#form-fields input[name="batch.size"]')
    batch.fill("many")
    bad_batch = validate_errors(
        worker, plugin, {"connector.class": plugin, "name": name, "batch.size": "many"}
    )
    expect(page.locator('#form-fields [data-key="batch.size"] .errors')).to_have_text(
        " ".join(bad_batch["batch.size"])
    )
    batch.fill("50")
    expect(page.locator('#form-fields [data-key="batch.size"] .errors')).to_have_text("")
    shot(page, "form-edit")
    page.locator("#form-submit").click()
    expect(page.locator("#message")).to_have_text(f"saved {name}")
    worker.wait_for(
        "the saved config", lambda: worker.get(f"/connectors/{name}/config").json().get("batch.size") == "50"
    )
    page.close()
