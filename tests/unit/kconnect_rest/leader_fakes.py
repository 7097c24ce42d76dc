"""The REST layer's distributed-mode test parts: a follower that refuses writes, a herder with the
inter-worker endpoints, and a leader that records what reaches it (an httpx MockTransport).

No network: a worker's forwarder gets an in-process transport (`send_to_leader`), either a
`RecordingLeader` or another app through ``httpx.ASGITransport``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import httpx
from kconnect.errors import NotLeaderError
from kconnect.herder.api import PutResult
from kconnect.model import ConnectorInfo, ConnectorStateInfo, RestartRequest, SessionKey, TargetState
from kconnect_rest.forwarding import LeaderForwarder
from litestar import Litestar

from tests.fake_herder import FakeHerder

SESSION_KEY = SessionKey(bytes(range(32)), "HmacSHA256", 0)
"""The cluster's session key in these tests."""
TASKS_BODY = b'[{"task.class":"T","n":"0"},{"task.class":"T","n":"1"}]'
"""A follower's task configs for the leader, as bytes (signatures are over the exact bytes)."""


class FollowerHerder(FakeHerder):
    """A FakeHerder on a worker that is not the leader: every write raises NotLeaderError(leader_url)."""

    def __init__(self, leader_url: str | None) -> None:
        super().__init__()
        self.leader_url = leader_url

    def _not_leader(self) -> NotLeaderError:
        return NotLeaderError("This worker is not able to communicate with the leader", self.leader_url)

    async def put_connector_config(
        self,
        name: str,
        config: Mapping[str, str],
        *,
        allow_replace: bool,
        initial_state: TargetState | None = None,
    ) -> PutResult:
        raise self._not_leader()

    async def delete_connector(self, name: str) -> ConnectorInfo:
        raise self._not_leader()

    async def pause_connector(self, name: str) -> None:
        raise self._not_leader()

    async def restart_connector(self, request: RestartRequest) -> ConnectorStateInfo:
        raise self._not_leader()


class InternalFakeHerder(FakeHerder):
    """A FakeHerder with the inter-worker endpoints (`kconnect.herder.api.InternalHerder`).

    With `leader_url` (not None) it is a follower: `put_task_configs` raises NotLeaderError.
    """

    def __init__(
        self, session_key: SessionKey | None, signed: bool = True, leader_url: str | None = None
    ) -> None:
        super().__init__()
        self.session_key = session_key
        self.signed = signed
        self.leader_url = leader_url
        self.written: list[tuple[str, list[dict[str, str]]]] = []
        self.fenced: list[str] = []

    def internal_request_key(self) -> SessionKey | None:
        return self.session_key

    def internal_requests_signed(self) -> bool:
        return self.signed

    async def put_task_configs(self, connector: str, configs: Sequence[Mapping[str, str]]) -> None:
        if self.leader_url is not None:
            raise NotLeaderError("This worker is not the leader", self.leader_url)
        self.written.append((connector, [dict(c) for c in configs]))

    async def fence_zombies(self, connector: str) -> None:
        if self.leader_url is not None:
            raise NotLeaderError("This worker is not the leader", self.leader_url)
        self.fenced.append(connector)


class RecordingLeader:
    """An httpx MockTransport handler: records each request, answers `reply` (or raises it)."""

    def __init__(self, reply: httpx.Response | Exception) -> None:
        self.reply = reply
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if isinstance(self.reply, Exception):
            raise self.reply
        return self.reply

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self)


def forwarder_of(app: Litestar) -> LeaderForwarder:
    """The LeaderForwarder `create_app` registered as the NotLeaderError handler."""
    forwarder = getattr(app.exception_handlers[NotLeaderError], "__self__", None)
    assert isinstance(forwarder, LeaderForwarder)
    return forwarder


def send_to_leader(app: Litestar, transport: httpx.AsyncBaseTransport) -> Litestar:
    """Make `app` forward through `transport` (no network); returns `app`."""
    forwarder_of(app)._client = httpx.AsyncClient(transport=transport, follow_redirects=False)
    return app
