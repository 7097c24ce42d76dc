"""The automatic restart schedule in the status topic, on the real broker: it rides in the instance's
status record, every later status of the instance keeps it, and another worker reads it."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest
from kconnect.model import AutoRestarts, ConnectorTaskId, State, StateInfo, TaskStateInfo

from tests.integration.test_kafka_stores import Cluster, dump, wait_for

pytestmark = pytest.mark.integration

TASK = ConnectorTaskId("src", 0)
SCHEDULE = AutoRestarts(2, "boom\n\tat x", 1_700_000_000_000, 1_700_000_006_000, False)


@pytest.fixture
async def stores(kafka_bootstrap: str) -> AsyncIterator[Cluster]:
    """Status stores on a fresh status topic, stopped at the end."""
    made = Cluster(kafka_bootstrap)
    yield made
    for store in made.stores:
        await store.stop()


async def test_a_schedule_travels_with_its_status_to_the_next_worker(stores: Cluster) -> None:
    owner = await stores.statuses(generation=3)
    other = await stores.statuses(generation=3)
    owner.put_connector("src", StateInfo(State.RUNNING, "a:8083"))
    owner.put_task(TASK, TaskStateInfo(State.FAILED, "a:8083", "boom\n\tat x", id=0))
    owner.put_auto_restarts(TASK, SCHEDULE)
    owner.put_task(TASK, TaskStateInfo(State.RESTARTING, "a:8083", id=0))  # keeps the schedule
    assert owner.get_auto_restarts(TASK) == SCHEDULE
    await owner.flush()
    await owner.read_to_end()  # its own three writes read back: the view keeps the newest
    assert owner.get_auto_restarts(TASK) == SCHEDULE
    assert owner.get_task(TASK) == TaskStateInfo(State.RESTARTING, "a:8083", id=0)

    await wait_for(lambda: other.get_task(TASK) == TaskStateInfo(State.RESTARTING, "a:8083", id=0), other)
    assert other.get_auto_restarts(TASK) == SCHEDULE
    assert other.get_auto_restarts("src") is None
    restarted = await stores.statuses()
    assert restarted.get_auto_restarts(TASK) == SCHEDULE

    values = [json.loads(v) for k, v in await dump(stores.bootstrap, stores.props["status.storage.topic"])
              if k == b"status-task-src-0" and v is not None]  # fmt: skip
    assert [list(v)[:5] for v in values] == [["state", "trace", "worker_id", "generation", "version"]] * 3
    assert "kconnect_auto_restarts" not in values[0]  # no schedule yet: Java's bytes
    assert values[1]["kconnect_auto_restarts"]["count"] == 2
    assert values[2]["kconnect_auto_restarts"]["next_attempt_ms"] == 1_700_000_006_000

    other.remove("src")
    await other.flush()
    await wait_for(lambda: owner.get_task(TASK) is None, owner)
    assert owner.get_auto_restarts(TASK) is None
