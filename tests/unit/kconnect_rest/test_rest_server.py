"""RestServer: serves the app with uvicorn in the caller's event loop, on every listener (https ones:
`test_rest_https.py`)."""

from __future__ import annotations

import socket
import statistics
import time

import httpx
import pytest
from kconnect.errors import ConnectError
from kconnect.worker_config import WorkerConfig
from kconnect_rest import RestServer, create_app

from tests import rest_expectations as expect
from tests.fake_herder import FakeHerder


async def test_start_serve_stop() -> None:
    config = WorkerConfig.from_props({"listeners": "http://127.0.0.1:0"})
    server = RestServer(create_app(FakeHerder(), config), config)
    await server.start()
    try:
        async with httpx.AsyncClient(base_url=server.url) as client:
            assert (await client.get("/health")).status_code == 200
            expect.assert_error(await client.get("/connectors/a%2Fb"), 404, expect.connector_not_found("a/b"))
    finally:
        await server.stop()
    with pytest.raises(httpx.ConnectError):
        async with httpx.AsyncClient(base_url=server.url) as client:
            await client.get("/health")


async def test_answers_are_not_held_for_a_delayed_ack() -> None:
    # Headers and body are two writes; with Nagle on, the body waits for the client's delayed ACK
    # (40 ms on Linux) and one keep-alive connection manages ~25 requests/s instead of thousands.
    config = WorkerConfig.from_props({"listeners": "http://127.0.0.1:0"})
    server = RestServer(create_app(FakeHerder(), config), config)
    await server.start()
    try:
        async with httpx.AsyncClient(base_url=server.url) as client:
            took = []
            for _ in range(20):
                started = time.perf_counter()
                assert (await client.get("/connectors")).status_code == 200
                took.append(time.perf_counter() - started)
    finally:
        await server.stop()
    assert statistics.median(took) < 0.02, took


async def test_port_in_use_is_a_connect_error() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        config = WorkerConfig.from_props({"listeners": f"http://127.0.0.1:{port}"})
        with pytest.raises(ConnectError, match="cannot bind"):
            await RestServer(create_app(FakeHerder(), config), config).start()


def test_an_https_admin_listener_is_refused_naming_the_key_and_value() -> None:
    with pytest.raises(ConnectError) as refused:
        WorkerConfig.from_props({"admin.listeners": "https://127.0.0.1:0"}, "w.properties")
    assert str(refused.value).startswith(
        "w.properties: admin.listeners: https://127.0.0.1:0 is not supported"
    )


def test_plain_http_listeners_are_accepted() -> None:
    config = WorkerConfig.from_props({"listeners": "HTTP://127.0.0.1:0", "rest.advertised.listener": "http"})
    assert config.rest_host_port() == ("127.0.0.1", 0)
