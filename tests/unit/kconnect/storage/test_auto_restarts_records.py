"""The automatic restart schedule in a status record: one more field Java's reader ignores."""

from __future__ import annotations

import json

from kconnect.model import AutoRestarts, ConnectorTaskId, State, StateInfo, TaskStateInfo
from kconnect.storage.memory import MemoryStatusBackingStore
from kconnect.storage.record_formats import StatusRecord, parse_status_value, status_value

SCHEDULE = AutoRestarts(2, "boom\n\tat x", 1_700_000_000_000, 1_700_000_006_000, False)


def test_a_status_without_a_schedule_keeps_javas_bytes() -> None:
    record = StatusRecord(State.RUNNING, "w:8083", 3)
    assert status_value(record) == (
        b'{"state":"RUNNING","trace":null,"worker_id":"w:8083","generation":3,"version":null}'
    )


def test_a_schedule_rides_in_one_more_field_and_reads_back() -> None:
    record = StatusRecord(State.FAILED, "w:8083", 3, "boom", None, SCHEDULE)
    value = status_value(record)
    fields = json.loads(value)
    assert list(fields)[:5] == ["state", "trace", "worker_id", "generation", "version"]
    assert fields["kconnect_auto_restarts"] == {
        "count": 2,
        "last_failure": "boom\n\tat x",
        "last_failure_ms": 1_700_000_000_000,
        "next_attempt_ms": 1_700_000_006_000,
        "gave_up": False,
    }
    assert parse_status_value(value) == record


def test_a_malformed_schedule_leaves_the_status_readable_without_it() -> None:
    value = (
        b'{"state":"RUNNING","trace":null,"worker_id":"w","generation":1,'
        b'"kconnect_auto_restarts":{"count":"x"}}'
    )
    assert parse_status_value(value) == StatusRecord(State.RUNNING, "w", 1)


def test_the_memory_store_keeps_schedules_until_the_status_goes() -> None:
    store = MemoryStatusBackingStore()
    task = ConnectorTaskId("c", 0)
    store.put_connector("c", StateInfo(State.FAILED, "w"))
    store.put_task(task, TaskStateInfo(State.FAILED, "w", id=0))
    store.put_auto_restarts("c", SCHEDULE)
    store.put_auto_restarts(task, SCHEDULE)
    store.put_task(task, TaskStateInfo(State.RUNNING, "w", id=0))
    assert store.get_auto_restarts(task) == SCHEDULE
    store.remove_task(task)
    assert store.get_auto_restarts(task) is None
    assert store.get_auto_restarts("c") == SCHEDULE
    store.remove("c")
    assert store.get_auto_restarts("c") is None
