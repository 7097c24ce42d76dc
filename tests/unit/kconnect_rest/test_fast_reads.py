"""The fast reads (`kconnect_rest.fast_reads`) answer exactly what litestar's handlers answer.

Each request goes to one app twice: once as built (the fast path takes the two hot reads) and once
with the fast path off (litestar answers everything); the ASGI messages sent must be identical.
"""

from __future__ import annotations

import asyncio
import copy
from typing import Any, cast

import pytest
from kconnect.worker_config import WorkerConfig
from kconnect_rest import create_app
from kconnect_rest.app import ConnectApp
from kconnect_rest.fast_reads import FastReads

from tests.fake_herder import FakeHerder

SINK = {"connector.class": "FileStreamSinkConnector", "tasks.max": "2", "file": "out.txt", "topics": "t"}
HEADERS = {
    "access.control.allow.origin": "https://ui.example",
    "access.control.allow.methods": "GET,PUT",
    "response.http.headers.config": "add X-Frame-Options: DENY, set Cache-Control: no-store",
}


def _scope(method: str, target: str, headers: list[tuple[bytes, bytes]] = ()) -> dict[str, Any]:  # type: ignore[assignment]
    path, _, query = target.partition("?")
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": [(b"host", b"localhost:8083"), *headers],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8083),
        "state": {},
    }


async def _call(app: ConnectApp, scope: dict[str, Any]) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Any) -> None:
        sent.append(dict(message))

    await app(cast("Any", copy.deepcopy(scope)), receive, send)
    return sent


def _app(herder: FakeHerder, props: dict[str, str]) -> ConnectApp:
    return cast("ConnectApp", create_app(herder, WorkerConfig.from_props(props)))


@pytest.fixture
def herder() -> FakeHerder:
    herder = FakeHerder()
    for name in ("local-file-sink", "a/b", "naïve 100%"):
        asyncio.run(herder.put_connector_config(name, {**SINK, "name": name}, allow_replace=False))
    return herder


REQUESTS = [
    ("GET", "/connectors"),
    ("HEAD", "/connectors"),
    ("GET", "/connectors/local-file-sink/status"),
    ("HEAD", "/connectors/local-file-sink/status"),
    ("GET", "/connectors/a%2Fb/status"),
    ("GET", "/connectors/na%C3%AFve%20100%25/status"),
    ("GET", "/connectors/missing/status"),
    ("GET", "/connectors//status"),
    ("GET", "/connectors?expand=status"),
    ("GET", "/connectors/local-file-sink/status?x=1"),
    ("GET", "/connectors/"),
    ("POST", "/connectors/local-file-sink/status"),
    ("OPTIONS", "/connectors"),
]


@pytest.mark.parametrize("props", [{}, HEADERS], ids=["plain", "cors-and-header-config"])
@pytest.mark.parametrize(("method", "target"), REQUESTS)
def test_the_fast_path_sends_what_litestar_sends(
    herder: FakeHerder, props: dict[str, str], method: str, target: str
) -> None:
    fast, slow = _app(herder, props), _app(herder, props)
    assert fast.fast_reads is not None
    slow.fast_reads = None
    origin = [(b"origin", b"https://ui.example")] if props else []
    scope = _scope(method, target, origin)
    assert asyncio.run(_call(fast, scope)) == asyncio.run(_call(slow, scope))


@pytest.mark.parametrize(
    ("target", "taken"),
    [
        ("/connectors", True),
        ("/connectors/a%2Fb/status", True),
        ("/connectors/missing/status", False),
        ("/connectors?expand=info", False),
        ("/connectors/local-file-sink", False),
        ("/connectors/local-file-sink/tasks/0/status", False),
    ],
)
def test_the_fast_path_takes_the_two_reads_and_leaves_the_rest(
    herder: FakeHerder, target: str, taken: bool
) -> None:
    sent: list[Any] = []

    async def send(message: Any) -> None:
        sent.append(message)

    answered = asyncio.run(FastReads(herder).answer(cast("Any", _scope("GET", target)), send))
    assert answered is taken
    assert (sent[0]["status"] if sent else None) == (200 if taken else None)


def test_a_rest_extension_turns_the_fast_path_off(herder: FakeHerder) -> None:
    def extension(config: Any, cluster: Any) -> Any:
        from litestar.plugins import InitPluginProtocol

        class Nothing(InitPluginProtocol):
            def on_app_init(self, app_config: Any) -> Any:
                return app_config

        return Nothing()

    app = cast("ConnectApp", create_app(herder, WorkerConfig.from_props({}), extensions=[extension]))
    assert app.fast_reads is None
