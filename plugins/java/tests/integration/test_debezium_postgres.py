"""Debezium's PostgreSQL connector (3.6.1.Final, its ``tar.gz:plugin`` archive from Maven Central
unpacked into ``plugin.path``) on kconnect, beside the same connector on Java Kafka Connect 4.3.1.

A PostgreSQL server of this module's own (``wal_level=logical``; it is stopped in one test) holds a
table with rows. Both workers run the same connector config (JsonConverter, schemas on, pgoutput),
each with its own replication slot, publication and ``topic.prefix``, on the same database and
broker. Both snapshot the same rows; then one INSERT, UPDATE and DELETE are made once, and each
connector streams them from its own slot, so from the same WAL. The messages are compared byte
for byte after exactly these edits: the prefix (``kcon`` / ``java``, in topic and schema names and
``source.name``) is written as ``PREFIX``; the envelope's ``ts_ms``/``ts_us``/``ts_ns`` (when the
connector processed the row) are removed; and in snapshot records only, the ``source`` block's
``ts_ms``/``ts_us``/``ts_ns``, ``lsn``, ``txId``, ``xmin`` and ``sequence`` (each slot is created at
its own moment, so each snapshot has its own position). Streamed records keep ``source`` whole:
their commit time, LSN and transaction id come from the WAL and are equal.

A distributed kconnect worker SIGKILLed (with its Spark processes) while rows are inserted, then a
new worker of its group, resumes from the offset (LSN) stored in the offsets topic: every row arrives
at least once, the slot's confirmed LSN follows (Debezium's commit()); the changes after the last
stored offset arrive again, as on Java Connect after a crash (the test prints how many). With the
database stopped, the task is FAILED with Debezium's own trace (``errors.max.retries=0``).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kconnect_testkit.plugin_jars import fetch_debezium_postgres

from tests.databases import PASSWORD, USER, PostgresServer
from tests.integration.harness import consume_to_end
from tests.integration.test_distributed import group_props
from tests.java_connect import JavaConnectWorker
from tests.worker_process import WorkerProcess, kill_worker_and_its_processes

pytestmark = pytest.mark.integration

JSON = "org.apache.kafka.connect.json.JsonConverter"
POSTGRES_CONNECTOR = "io.debezium.connector.postgresql.PostgresConnector"
SNAPSHOT_VOLATILE = ("ts_ms", "ts_us", "ts_ns", "lsn", "txId", "xmin", "sequence")

Message = tuple[bytes | None, bytes | None]


@pytest.fixture(scope="module")
def postgres() -> Iterator[PostgresServer]:
    """A PostgreSQL server this module alone uses (one test stops it)."""
    server = PostgresServer().start()
    yield server
    server.stop()


def _props(bootstrap: str, folder: Path, stem: str) -> dict[str, str]:
    return {
        "bootstrap.servers": bootstrap,
        "offset.storage.file.filename": str(folder / f"{stem}.offsets"),
        "offset.flush.interval.ms": "500",
        "key.converter": JSON,
        "value.converter": JSON,
        "plugin.path": str(fetch_debezium_postgres()),
    }


def _kconnect(folder: Path, bootstrap: str) -> WorkerProcess:
    return WorkerProcess(folder, {**_props(bootstrap, folder, "kconnect"), "spark.master": "local[1]"})


def _connector(postgres: PostgresServer, database: str, prefix: str, slot: str) -> dict[str, str]:
    """Debezium's config: pgoutput, a slot and a publication of its own, JsonConverter with schemas."""
    return {
        "connector.class": POSTGRES_CONNECTOR,
        "tasks.max": "1",
        "database.hostname": "127.0.0.1",
        "database.port": str(postgres.port),
        "database.user": USER,
        "database.password": PASSWORD,
        "database.dbname": database,
        "topic.prefix": prefix,
        "table.include.list": "public.customers",
        "plugin.name": "pgoutput",
        "slot.name": slot,
        "publication.name": f"pub_{slot}",
        "publication.autocreate.mode": "filtered",
        "key.converter": JSON,
        "value.converter": JSON,
        "key.converter.schemas.enable": "true",
        "value.converter.schemas.enable": "true",
    }


def _table(postgres: PostgresServer, rows: int) -> str:
    database = postgres.new_database()
    postgres.execute(
        database,
        "CREATE TABLE customers (id integer PRIMARY KEY, name text NOT NULL, active boolean, "
        "score double precision, joined date)",
        "ALTER TABLE customers REPLICA IDENTITY FULL",
        *(
            f"INSERT INTO customers VALUES ({i}, 'name {i}', {str(i % 2 == 0).lower()}, {i * 1.5}, "
            f"DATE '2024-01-01' + {i})"
            for i in range(1, rows + 1)
        ),
    )
    return database


def _drop_slot(postgres: PostgresServer, database: str, slot: str) -> None:
    postgres.execute(
        database,
        f"SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '{slot}'",
    )


async def _read(bootstrap: str, topic: str, count: int, timeout: float = 180.0) -> list[Message]:
    """Every message of `topic` once it holds at least `count`, read to its end offset then."""
    return [(m.key, m.value) for m in await consume_to_end(bootstrap, topic, count, timeout)]


def _comparable(message: Message, prefix: str) -> Message:
    """`message` with the prefix written as ``PREFIX`` and the volatile fields (module docstring) removed."""
    key, value = (None if b is None else b.replace(prefix.encode(), b"PREFIX") for b in message)
    if value is None:
        return key, value
    envelope = json.loads(value)
    payload = envelope["payload"]
    for field in ("ts_ms", "ts_us", "ts_ns"):
        payload.pop(field, None)
    if payload["source"]["snapshot"] != "false":
        for field in SNAPSHOT_VOLATILE:
            payload["source"].pop(field, None)
    return key, json.dumps(envelope, separators=(",", ":")).encode()


def _payload(message: Message) -> dict[str, Any]:
    assert message[1] is not None
    return dict(json.loads(message[1])["payload"])


def _changes(postgres: PostgresServer, database: str, first: int) -> None:
    postgres.execute(
        database,
        f"INSERT INTO customers VALUES ({first}, 'new {first}', true, 0.25, DATE '2025-06-30')",
        "UPDATE customers SET name = 'renamed', score = score + 1 WHERE id = 2",
        "DELETE FROM customers WHERE id = 3",
    )


def test_snapshot_and_changes_equal_java_connects_byte_for_byte(
    postgres: PostgresServer, kafka_bootstrap: str, tmp_path: Path
) -> None:
    database = _table(postgres, 20)
    run = uuid.uuid4().hex[:6]
    ours = _kconnect(tmp_path, kafka_bootstrap)
    java = JavaConnectWorker(tmp_path, _props(kafka_bootstrap, tmp_path, "java"), standalone=True)
    prefixes = {"kcon": f"kcon{run}", "java": f"java{run}"}
    java.start()
    try:
        ours.start(timeout=300)
        try:
            java.wait_ready()
            for side, worker in (("kcon", ours), ("java", java)):
                config = _connector(postgres, database, prefixes[side], f"slot_{side}_{run}")
                response = worker.request("PUT", f"/connectors/dbz-{side}/config", config)
                assert response.status_code in (200, 201), response.text
            ours.wait_for_state("dbz-kcon", "RUNNING", tasks=1, fail_fast=True, timeout=180)
            topics = {side: f"{prefix}.public.customers" for side, prefix in prefixes.items()}
            # Both snapshots are in Kafka before the changes, which both slots then hold.
            for topic in topics.values():
                asyncio.run(_read(kafka_bootstrap, topic, 20))
            _changes(postgres, database, 100)
            # 20 snapshot reads, the insert, the update, the delete and its tombstone.
            got = {side: asyncio.run(_read(kafka_bootstrap, topic, 24)) for side, topic in topics.items()}
        finally:
            for side, worker in (("kcon", ours), ("java", java)):
                worker.request("DELETE", f"/connectors/dbz-{side}")
            ours.stop()
    finally:
        java.stop()
        for side in ("kcon", "java"):
            _drop_slot(postgres, database, f"slot_{side}_{run}")

    kcon = got["kcon"]
    assert [_payload(m)["op"] for m in kcon[:20]] == ["r"] * 20
    assert [_payload(m)["op"] for m in kcon[20:23]] == ["c", "u", "d"] and kcon[23][1] is None
    assert _payload(kcon[21])["after"]["name"] == "renamed" and _payload(kcon[22])["before"]["id"] == 3
    assert [_comparable(m, prefixes["kcon"]) for m in kcon] == [
        _comparable(m, prefixes["java"]) for m in got["java"]
    ]


def _ids(bootstrap: str, topic: str) -> list[int]:
    """The ``after.id`` of every create/read message of `topic`, in order (a duplicate shows twice)."""
    messages = asyncio.run(_read(bootstrap, topic, 1))
    return [_payload(m)["after"]["id"] for m in messages if m[1] is not None and _payload(m)["op"] in "cr"]


def _insert_slowly(postgres: PostgresServer, database: str, ids: range, stop: threading.Event) -> None:
    for i in ids:
        if stop.is_set():
            return
        postgres.execute(
            database, f"INSERT INTO customers VALUES ({i}, 'row {i}', true, {i}, DATE '2025-01-01')"
        )
        time.sleep(0.02)


def test_sigkill_of_the_worker_mid_stream_resumes_from_the_stored_lsn_with_nothing_lost(
    postgres: PostgresServer, kafka_bootstrap: str, tmp_path: Path
) -> None:
    database = _table(postgres, 10)
    run = uuid.uuid4().hex[:6]
    slot, prefix = f"slot_kill_{run}", f"kill{run}"
    topic = f"{prefix}.public.customers"
    props = {
        **group_props(kafka_bootstrap, "debezium-kill"),
        "key.converter": JSON,
        "value.converter": JSON,
        "plugin.path": str(fetch_debezium_postgres()),
        "spark.master": "local[1]",
    }
    first = WorkerProcess(tmp_path, props, mode="distributed").start(timeout=300)
    stop = threading.Event()
    writer = threading.Thread(target=_insert_slowly, args=(postgres, database, range(11, 301), stop))
    second: WorkerProcess | None = None
    try:
        response = first.request(
            "PUT", "/connectors/dbz-kill/config", _connector(postgres, database, prefix, slot)
        )
        assert response.status_code in (200, 201), response.text
        first.wait_for_state("dbz-kill", "RUNNING", tasks=1, fail_fast=True, timeout=180)
        writer.start()
        first.wait_for("changes streaming", lambda: len(_ids(kafka_bootstrap, topic)) >= 60, timeout=120)
        kill_worker_and_its_processes(first)
        before = _ids(kafka_bootstrap, topic)
        second = WorkerProcess(tmp_path, props, mode="distributed").start(timeout=300)
        writer.join(timeout=120)
        second.wait_for_state("dbz-kill", "RUNNING", tasks=1, fail_fast=True, timeout=180)
        second.wait_for(
            "every row", lambda: set(_ids(kafka_bootstrap, topic)) >= set(range(1, 301)), timeout=180
        )
        # Debezium confirms to the slot, in commit(), the LSN of the changes Kafka holds: the slot's
        # confirmed position reaches the last insert's.
        messages = asyncio.run(_read(kafka_bootstrap, topic, 1))
        last = max(_payload(m)["source"]["lsn"] for m in messages if m[1] is not None)
        confirmed = (
            f"SELECT confirmed_flush_lsn - '0/0' >= {last} "
            f"FROM pg_replication_slots WHERE slot_name = '{slot}'"
        )
        second.wait_for(
            "the slot's confirmed LSN", lambda: postgres.query(database, confirmed) == [(True,)], 60
        )
    finally:
        stop.set()
        if writer.is_alive():
            writer.join()
        if second is not None:
            second.request("DELETE", "/connectors/dbz-kill")
            second.stop()
        elif first.process is not None and first.process.poll() is None:
            first.stop()
        _drop_slot(postgres, database, slot)
    ids = _ids(kafka_bootstrap, topic)
    assert sorted(set(ids)) == list(range(1, 301))
    assert 60 <= len(before) and ids[: len(before)] == before
    # At least once, as on Java Connect: changes after the last committed offset come again.
    print(f"SIGKILL: {len(before)} messages before, {len(ids)} in all, {len(ids) - 300} duplicates")


def _task(worker: WorkerProcess, name: str) -> dict[str, Any]:
    return dict(worker.status(name)["tasks"][0])


def test_the_database_unreachable_fails_the_task_with_debeziums_trace(
    postgres: PostgresServer, kafka_bootstrap: str, tmp_path: Path
) -> None:
    database = _table(postgres, 5)
    run = uuid.uuid4().hex[:6]
    slot = f"slot_down_{run}"
    ours = _kconnect(tmp_path, kafka_bootstrap).start(timeout=300)
    try:
        config = {**_connector(postgres, database, f"down{run}", slot), "errors.max.retries": "0"}
        response = ours.request("PUT", "/connectors/dbz-down/config", config)
        assert response.status_code in (200, 201), response.text
        ours.wait_for_state("dbz-down", "RUNNING", tasks=1, fail_fast=True, timeout=180)
        asyncio.run(_read(kafka_bootstrap, f"down{run}.public.customers", 5))
        postgres.halt()
        try:
            ours.wait_for("the task FAILED", lambda: _task(ours, "dbz-down")["state"] == "FAILED", 120)
        finally:
            postgres.resume()
        trace = _task(ours, "dbz-down")["trace"]
        assert trace.startswith("org.apache.kafka.connect.errors.") and "\tat io.debezium." in trace
        assert "org.postgresql.util.PSQLException" in trace
        ours.request("DELETE", "/connectors/dbz-down")
    finally:
        ours.stop()
        _drop_slot(postgres, database, slot)
