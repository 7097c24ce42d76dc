"""CORS and ``response.http.headers.config`` on a real worker, checked on the wire as Java's answers."""

from __future__ import annotations

import subprocess
import sys
import time
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.worker_process import free_port, write_properties

pytestmark = pytest.mark.integration

HEADERS_CONFIG = 'set X-Frame-Options: DENY,"add Cache-Control: no-cache, no-store",addDate Expires: 60000'


def test_cors_and_response_headers_on_the_wire(start_worker: Any) -> None:
    worker = start_worker(
        {
            "access.control.allow.origin": r"http://.*\.example\.com",
            "access.control.allow.methods": "GET,PUT,DELETE",
            "response.http.headers.config": HEADERS_CONFIG,
        }
    )
    preflight = httpx.options(
        worker.url + "/connectors",
        headers={"Origin": "http://ui.example.com", "Access-Control-Request-Method": "PUT"},
        timeout=30,
    )
    assert preflight.status_code == 200
    assert preflight.headers["vary"] == "Origin"
    assert preflight.headers["access-control-allow-origin"] == "http://ui.example.com"
    assert preflight.headers["access-control-allow-methods"] == "GET,PUT,DELETE"
    assert preflight.headers["access-control-allow-headers"] == "Content-Type"
    assert preflight.headers["access-control-max-age"] == "60"
    assert preflight.headers["allow"] == "HEAD,POST,GET,OPTIONS"  # the resource still answers
    assert preflight.headers["x-frame-options"] == "DENY"

    listed = worker.get("/connectors", headers={"Origin": "http://ui.example.com"})
    assert listed.status_code == 200 and listed.json() == []
    assert listed.headers["access-control-allow-origin"] == "http://ui.example.com"
    assert "access-control-allow-methods" not in listed.headers
    assert listed.headers["x-frame-options"] == "DENY"
    assert listed.headers["cache-control"] == "no-cache, no-store"
    assert listed.headers["content-type"] == "application/json"
    ahead = parsedate_to_datetime(listed.headers["expires"]).timestamp() - time.time()
    assert 50 < ahead <= 60

    stranger = worker.get("/connectors", headers={"Origin": "http://evil.org"})
    assert stranger.status_code == 200
    assert "access-control-allow-origin" not in stranger.headers
    assert stranger.headers["vary"] == "Origin"

    missing = worker.get("/connectors/nope", headers={"Origin": "http://ui.example.com"})
    assert missing.status_code == 404
    assert missing.headers["access-control-allow-origin"] == "http://ui.example.com"
    assert missing.headers["x-frame-options"] == "DENY"


def test_a_bad_rule_stops_the_worker_naming_the_key(tmp_path: Path) -> None:
    worker_file = write_properties(
        tmp_path / "w.properties",
        {
            "bootstrap.servers": "127.0.0.1:1",
            "offset.storage.file.filename": str(tmp_path / "o"),
            "listeners": f"http://127.0.0.1:{free_port()}",
            "response.http.headers.config": "bogus X-Frame-Options: DENY",
        },
    )
    done = subprocess.run(
        [sys.executable, "-m", "kconnect_rest.cli", "standalone", str(worker_file)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        f"kconnect: {worker_file}: response.http.headers.config: Invalid header config action: 'bogus'. "
        "Expected one of [set, add, setDate, addDate]"
    )
