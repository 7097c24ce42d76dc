"""The example property files of Confluent's JDBC connector documentation run as written.

Confluent's source quickstart (``source-quickstart-sqlite.properties``: the ``accounts`` table of
a SQLite file, incrementing on ``id``) and sink quickstart (``sink-quickstart-sqlite.properties``:
``test-sink`` with ``auto.create=true``) are kept as text; only ``connection.url`` and the topics
change (a file under the test's directory, a PostgreSQL database, a topic of this test). They
run in one standalone worker with Kafka's sample converters (JsonConverter with schemas), as
property files: the source's rows reach a SQLite and a PostgreSQL copy made by the sink.
"""

from __future__ import annotations

import sqlite3
import uuid
from pathlib import Path
from typing import Any

import pytest

from plugins.jdbc.tests.integration.conftest import Db
from tests.databases import PASSWORD, USER

pytestmark = pytest.mark.integration

#: Confluent's ``etc/kafka-connect-jdbc/source-quickstart-sqlite.properties`` (its settings as documented).
SOURCE_QUICKSTART = """\
name=test-sqlite-jdbc-autoincrement
connector.class=io.confluent.connect.jdbc.JdbcSourceConnector
tasks.max=1
connection.url=jdbc:sqlite:test.db
mode=incrementing
incrementing.column.name=id
topic.prefix=test-sqlite-jdbc-
"""

#: Confluent's ``etc/kafka-connect-jdbc/sink-quickstart-sqlite.properties``.
SINK_QUICKSTART = """\
name=test-sink
connector.class=io.confluent.connect.jdbc.JdbcSinkConnector
tasks.max=1
topics=orders
connection.url=jdbc:sqlite:test.db
auto.create=true
"""

JSON = "org.apache.kafka.connect.json.JsonConverter"


def with_changes(text: str, **changes: str) -> str:
    """`text` with the values of the keys in `changes` replaced (``_`` in a name stands for ``.``)."""
    lines = []
    for line in text.splitlines():
        key = line.split("=", 1)[0]
        new = changes.get(key.replace(".", "_"))
        lines.append(f"{key}={new}" if new is not None else line)
    return "\n".join(lines) + "\n"


def sqlite_rows(path: Path, table: str) -> list[tuple[Any, ...]]:
    if not path.exists():
        return []
    with sqlite3.connect(path) as db:
        try:
            return db.execute(f'SELECT id, name FROM "{table}" ORDER BY id').fetchall()
        except sqlite3.OperationalError:
            return []


def test_confluents_quickstart_source_and_sink_files_run_as_written(
    start_worker: Any, pg: Db, tmp_path: Path
) -> None:
    source_db, copy_db = tmp_path / "test.db", tmp_path / "copy.db"
    with sqlite3.connect(source_db) as db:  # the quickstart's table and rows
        db.execute("CREATE TABLE accounts(id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, name VARCHAR(255))")
        db.execute("INSERT INTO accounts(name) VALUES('alice')")
        db.execute("INSERT INTO accounts(name) VALUES('bob')")
    # The table the sink creates is named after the topic: short enough for PostgreSQL (63 bytes).
    prefix = f"t{uuid.uuid4().hex[:8]}-test-sqlite-jdbc-"
    topic = prefix + "accounts"
    files = {
        "source.properties": with_changes(
            SOURCE_QUICKSTART, connection_url=f"jdbc:sqlite:{source_db}", topic_prefix=prefix
        ),
        "sink.properties": with_changes(
            SINK_QUICKSTART, topics=topic, connection_url=f"jdbc:sqlite:{copy_db}"
        ),
        "sink-postgres.properties": with_changes(
            SINK_QUICKSTART,
            name="test-sink-postgres",
            topics=topic,
            connection_url=f"{pg.url}?user={USER}&password={PASSWORD}",
        ),
    }
    paths = []
    for file_name, text in files.items():
        (tmp_path / file_name).write_text(text, encoding="utf-8")
        paths.append(tmp_path / file_name)
    worker = start_worker({"key.converter": JSON, "value.converter": JSON}, connector_files=paths)

    def pg_rows() -> list[tuple[Any, ...]]:
        try:
            return pg.query(f'SELECT id, name FROM "{topic}" ORDER BY id')
        except Exception:  # not created yet
            return []

    expected = [(1, "alice"), (2, "bob")]
    worker.wait_for(
        "the quickstart's rows in both copies",
        lambda: sqlite_rows(copy_db, topic) == expected and pg_rows() == expected,
        timeout=120,
    )
    with sqlite3.connect(source_db) as db:  # the quickstart's next step: a new row is copied too
        db.execute("INSERT INTO accounts(name) VALUES('cathy')")
    expected.append((3, "cathy"))
    worker.wait_for(
        "the new row in both copies",
        lambda: sqlite_rows(copy_db, topic) == expected and pg_rows() == expected,
        timeout=60,
    )
    for name in ("test-sqlite-jdbc-autoincrement", "test-sink", "test-sink-postgres"):
        assert worker.status(name)["tasks"][0]["state"] == "RUNNING"
