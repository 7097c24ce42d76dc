"""The dashboard in a real browser (Debian's headless Chromium through Playwright) against a real
standalone worker on the real broker and Spark.

One worker with ``rest.extension.classes=Dashboard`` runs a FileStreamSource and a FlakySource whose
first task run fails. In the browser: the counts show one FAILED task, the failing connector is
listed first, its row opens on the task's real trace, "Restart" with only-failed restarts it (the
task runs again: RUNNING), both are paused in bulk, filtering by name leaves one row, a stopped
connector shows its offsets and alters them, and a delete through the page removes it. With
``KCONNECT_DASHBOARD_SCREENSHOTS=<folder>`` each screen is saved there (docs/dashboard/ holds them).
"""

from __future__ import annotations

import json
import os
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from kconnect_basic_auth.credentials import add_user
from kconnect_basic_auth.plugin import KAFKA_CLASS_NAME
from playwright.sync_api import Browser, Page, expect, sync_playwright

from tests.integration.harness import lines
from tests.plugin_package import install_connectors, plugin_env
from tests.throwaway_ca import Certificate, CertificateAuthority, pem_stores
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
#: The user of the basic-auth test.
USER = ("operator", "dashboard-pw")


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory, kafka_bootstrap: str) -> Iterator[WorkerProcess]:
    """A standalone worker serving the dashboard and /metrics, with the test connectors installed."""
    workdir = tmp_path_factory.mktemp("dashboard")
    props = {
        "bootstrap.servers": kafka_bootstrap,
        "offset.storage.file.filename": str(workdir / "connect.offsets"),
        "offset.flush.interval.ms": "300",
        "rest.extension.classes": "Dashboard,PrometheusMetrics",
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
    expect(page.locator("#executor-summary")).to_contain_text("Executor spark: ")
    expect(page.locator("#hosts td.host-cpu").first).to_have_text(re.compile(r"^\d+ %$"))  # once reported
    shot(page, "triage")

    page.get_by_role("button", name=copy, exact=True).click()  # its task's records, from /metrics
    expect(page.locator(f'tr[data-details="{copy}"] tr[data-task="0"] .task-records')).to_contain_text("100")
    page.get_by_role("button", name=copy, exact=True).click()

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
    offsets = page.locator(f'tr[data-details="{copy}"] textarea.offsets')
    expect(offsets).to_have_value(re.compile('"position"'))
    expect(offsets).to_have_value(re.compile(re.escape(str(source))))
    shot(page, "offsets")
    rewound = [{"partition": {"filename": str(source)}, "offset": {"position": 0}}]
    offsets.fill(json.dumps(rewound))
    page.locator(f'tr[data-details="{copy}"] [data-action=alter-offsets]').click()
    expect(page.locator("#message")).to_contain_text("have been altered successfully")
    assert worker.get(f"/connectors/{copy}/offsets").json() == {"offsets": rewound}

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


#: How many connectors the large-cluster test shows: the issue's "500 connectors".
MANY = 500


def test_five_hundred_connectors_cost_one_request_a_refresh(worker: WorkerProcess, browser: Browser) -> None:
    """500 connectors (created STOPPED: KIP-980's initial state, so nothing runs) are all listed, and
    the page asks for them with one request a refresh, never one per connector."""
    stem = f"many-{uuid.uuid4().hex[:4]}"
    with httpx.Client(base_url=worker.url, timeout=30) as client:
        for n in range(MANY):
            config = {"connector.class": "FileStreamSource", "file": "/dev/null", "topic": f"{stem}-t"}
            body = {"name": f"{stem}-{n:03}", "config": config, "initial_state": "STOPPED"}
            assert client.post("/connectors", json=body).status_code == 201

    page = browser.new_page(viewport={"width": 1400, "height": 900})
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    page.goto(f"{worker.url.rstrip('/')}/dashboard")
    page.locator("#search").fill(stem)
    rows = page.locator("#connectors tbody tr[data-connector]")
    expect(rows).to_have_count(MANY, timeout=30_000)
    expect(page.locator("#connector-counts [data-state=STOPPED]")).to_contain_text("STOPPED")
    asked.clear()
    page.wait_for_timeout(6_500)  # two refreshes (every 3 s)
    listings = [url for url in asked if "/connectors?" in url]
    assert 2 <= len(listings) <= 3, asked
    assert all("expand=status" in url and "expand=info" in url for url in listings)
    per_connector = [url for url in asked if f"/connectors/{stem}" in url]
    assert per_connector == []
    page.close()


def test_behind_basic_auth_and_https_the_page_and_its_calls_need_the_credentials(
    tmp_path_factory: pytest.TempPathFactory,
    kafka_bootstrap: str,
    browser: Browser,
    ca: CertificateAuthority,
    server_cert: Certificate,
) -> None:
    workdir = tmp_path_factory.mktemp("dashboard-secured")
    credentials = workdir / "credentials"
    add_user(credentials, *USER)
    props = {
        "bootstrap.servers": kafka_bootstrap,
        "offset.storage.file.filename": str(workdir / "connect.offsets"),
        "rest.extension.classes": f"{KAFKA_CLASS_NAME},Dashboard",
        "rest.basic.auth.credentials.file": str(credentials),
        **pem_stores(server_cert, ca, "listeners.https."),
    }
    secured = WorkerProcess(workdir, props, tls=ca.client_context()).start()
    try:
        assert secured.url.startswith("https://")
        created = secured.request(
            "PUT",
            "/connectors/guarded/config",
            {"connector.class": "FileStreamSource", "file": "/dev/null", "topic": "guarded-t"},
            auth=USER,
        )
        assert created.status_code == 201, created.text
        anonymous = browser.new_context(ignore_https_errors=True)
        refused = anonymous.request.get(f"{secured.url}/dashboard")  # a page load would ask for a login
        assert refused.status == 401
        anonymous.close()
        context = browser.new_context(
            ignore_https_errors=True, http_credentials={"username": USER[0], "password": USER[1]}
        )
        page = context.new_page()
        answered = page.goto(f"{secured.url}/dashboard")
        assert answered is not None and answered.status == 200
        expect(page.locator('#connectors tbody tr[data-connector="guarded"]')).to_have_count(1)
        expect(page.locator("#health")).to_have_text("healthy", timeout=60_000)
        context.close()
    finally:
        secured.stop()
