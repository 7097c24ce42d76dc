"""Loading the plugin, as every worker and Spark task process does, imports no database library."""

from __future__ import annotations

import subprocess
import sys

from kconnect_jdbc.sink.connector import JdbcSinkConnector
from kconnect_jdbc.sink.task import JdbcSinkTask
from kconnect_jdbc.source.connector import JdbcSourceConnector
from kconnect_jdbc.source.task import JdbcSourceTask

DATABASE_LIBRARIES = ("sqlalchemy", "psycopg", "pymysql")


def test_the_entry_point_and_the_keys_import_no_database_library() -> None:
    probe = (
        "import sys, kconnect_jdbc.plugin, kconnect_jdbc\n"
        "kconnect_jdbc.JdbcSinkConnector.config_def, kconnect_jdbc.JdbcSourceConnector.config_def\n"
        f"print(sorted(m for m in {DATABASE_LIBRARIES!r} if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_the_connectors_still_name_their_tasks() -> None:
    import kconnect_jdbc

    assert JdbcSinkConnector().task_class() is JdbcSinkTask is kconnect_jdbc.JdbcSinkTask
    assert JdbcSourceConnector().task_class() is JdbcSourceTask is kconnect_jdbc.JdbcSourceTask
