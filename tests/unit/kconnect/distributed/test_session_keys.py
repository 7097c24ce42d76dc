"""The leader's session keys: written when missing or expired, never a raise into the group member."""

from __future__ import annotations

import asyncio
import time

from kconnect.distributed.request_signing import InterWorkerKeyConfig
from kconnect.distributed.session_keys import SessionKeyKeeper
from kconnect.model import SessionKey


class Topic:
    """The config topic's newest key, and every key written."""

    def __init__(self, key: SessionKey | None = None, failing: bool = False) -> None:
        self.key = key
        self.written: list[SessionKey] = []
        self.failing = failing

    async def write(self, key: SessionKey) -> None:
        if self.failing:
            raise OSError("broker unreachable")
        self.written.append(key)
        self.key = key


def keeper(topic: Topic, ttl_ms: int = 3_600_000, leading: bool = True) -> SessionKeyKeeper:
    return SessionKeyKeeper(
        InterWorkerKeyConfig(key_ttl_ms=ttl_ms), lambda: topic.key, topic.write, lambda: leading
    )


async def test_a_new_leader_writes_a_key_when_there_is_none() -> None:
    topic = Topic()
    keys = keeper(topic)
    await keys.on_lead()
    keys.close()
    [written] = topic.written
    assert (len(written.key), written.algorithm) == (32, "HmacSHA256")
    assert abs(written.creation_timestamp_ms - time.time() * 1000) < 5000


async def test_a_fresh_key_is_kept_and_an_expired_one_replaced() -> None:
    now_ms = int(time.time() * 1000)
    fresh = Topic(SessionKey(b"k" * 32, "HmacSHA256", now_ms - 1000))
    keys = keeper(fresh)
    await keys.on_lead()
    keys.close()
    assert fresh.written == []
    expired = Topic(SessionKey(b"k" * 32, "HmacSHA256", now_ms - 3_600_000))
    keys = keeper(expired)
    await keys.on_lead()
    keys.close()
    assert len(expired.written) == 1 and expired.written[0].key != b"k" * 32


async def test_a_key_that_cannot_be_written_is_logged_not_raised() -> None:
    topic = Topic(failing=True)
    keys = keeper(topic)
    await keys.on_lead()  # must not raise: the group member would leave the group
    keys.close()
    assert topic.written == []


async def test_the_leader_rotates_a_short_lived_key_in_the_background() -> None:
    topic = Topic()
    keys = keeper(topic, ttl_ms=1000)
    await keys.on_lead()
    await asyncio.sleep(2.3)
    keys.close()
    assert len(topic.written) >= 2, "the expired key was not replaced"
