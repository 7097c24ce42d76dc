"""A follower's task configs reach the leader: retried while no leader is known, then a failure."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from kconnect.errors import ConnectError
from kconnect.herder import task_config_route
from kconnect.herder.task_config_route import LeaderRoutedConfigStore
from kconnect.model import SessionKey

KEY = SessionKey(b"k" * 32, "HmacSHA256", 0)
CONFIGS = [{"task.class": "T", "n": "0"}]


class Store:
    """The config topic's part the router uses."""

    session_key = KEY

    def __init__(self) -> None:
        self.written: list[tuple[str, list[dict[str, str]]]] = []

    async def put_task_configs(self, connector: str, configs: Sequence[Mapping[str, str]]) -> None:
        self.written.append((connector, [dict(c) for c in configs]))


class Leader:
    """The leader's endpoint: refuses `refusals` times, then takes the configs."""

    def __init__(self, refusals: int = 0) -> None:
        self.refusals = refusals
        self.calls: list[tuple[str, str, SessionKey | None]] = []

    async def put_task_configs(
        self, leader_url: str, connector: str, configs: Sequence[Mapping[str, str]], key: SessionKey | None
    ) -> None:
        self.calls.append((leader_url, connector, key))
        if len(self.calls) <= self.refusals:
            raise ConnectError(f"Request to leader {leader_url} failed: 409 rebalancing")


def router(
    store: Store, leader: Leader, url: Any, failures: list[tuple[str, str]]
) -> LeaderRoutedConfigStore:
    routed = LeaderRoutedConfigStore(store, leader, url, lambda: False)  # type: ignore[arg-type]
    routed.set_failure_listener(lambda connector, reason: failures.append((connector, reason)))
    return routed


@pytest.fixture(autouse=True)
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(task_config_route, "RETRY_BACKOFF_S", (0.01,))
    monkeypatch.setattr(task_config_route, "LEADER_RETRY_TIMEOUT_S", 0.3)


async def test_a_follower_sends_signed_task_configs_to_the_leader_and_retries_a_refusal() -> None:
    store, leader, failures = Store(), Leader(refusals=2), []
    routed = router(store, leader, lambda: "http://leader:8083/", failures)
    await routed.put_task_configs("c", CONFIGS)
    await asyncio.sleep(0.1)
    assert leader.calls == [("http://leader:8083/", "c", KEY)] * 3
    assert (store.written, failures) == ([], [])


async def test_no_leader_for_too_long_fails_the_connector_with_the_reason() -> None:
    store, leader, failures = Store(), Leader(), []
    routed = router(store, leader, lambda: None, failures)
    await routed.put_task_configs("c", CONFIGS)
    await asyncio.sleep(0.5)
    assert leader.calls == []
    [(connector, reason)] = failures
    assert connector == "c"
    assert reason.startswith("The worker could not hand the connector's task configs to the group's leader")
    assert reason.endswith("no leader is known (a rebalance is under way)")


async def test_a_newer_hand_over_replaces_one_still_trying() -> None:
    store, leader, failures = Store(), Leader(refusals=1000), []
    routed = router(store, leader, lambda: "http://leader:8083/", failures)
    await routed.put_task_configs("c", CONFIGS)
    await asyncio.sleep(0.05)
    await routed.put_task_configs("c", [{"task.class": "T", "n": "1"}])
    await routed.close()
    assert failures == []
