"""The REST API over the real standalone herder when a connector hangs: Kafka's 500 "Request timed
out" after the (here shortened) request timeout, while reads, other connectors and writes go on."""

from __future__ import annotations

import time

import httpx
from kconnect.worker_config import WorkerConfig
from kconnect_rest import create_app

from tests.unit.kconnect.herder.herder_fakes import CONFIG, NAME, load_plugins, running_herder

TIMEOUT_S = 0.5
HANGING = {"connector.class": "Hanging", "tasks.max": "1", "topic": "t"}


async def test_a_hanging_connector_answers_500_request_timed_out_and_blocks_nothing() -> None:
    async with running_herder(load_plugins(), request_timeout_s=TIMEOUT_S) as (herder, _):
        app = create_app(herder, WorkerConfig.from_props({}))
        # On the herder's own event loop, as in the worker (litestar's test clients run the app in
        # a thread of their own, which the herder's owner queue does not serve).
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://worker") as client:
            began = time.monotonic()
            response = await client.post("/connectors", json={"name": "hanging", "config": HANGING})
            assert time.monotonic() - began < TIMEOUT_S + 1.0
            assert response.status_code == 500
            assert response.json() == {"error_code": 500, "message": "Request timed out"}

            status = (await client.get("/connectors/hanging/status")).json()
            assert status["connector"]["state"] == "UNASSIGNED" and status["tasks"] == []
            created = await client.put(f"/connectors/{NAME}/config", json=CONFIG)
            assert created.status_code == 201, created.text
            assert [t["task"] for t in created.json()["tasks"]] == [0, 1]
            assert (await client.put(f"/connectors/{NAME}/pause")).status_code == 202
            assert (await client.delete("/connectors/hanging")).status_code == 204
            assert (await client.get("/connectors")).json() == [NAME]
