"""JdbcSourceConnector and JdbcSinkConnector: Confluent's JDBC connector, for kconnect.

Same class names (``io.confluent.connect.jdbc.JdbcSourceConnector`` / ``JdbcSinkConnector``), config
keys, defaults and source offsets as Confluent's ``kafka-connect-jdbc``, so its configs move over
unchanged. Databases: PostgreSQL (psycopg 3), MySQL/MariaDB (PyMySQL) and SQLite (sqlite3), each
behind one dialect (`kconnect_jdbc.dialect`); SQLAlchemy Core does reflection and DDL.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kconnect_jdbc.sink.connector import JdbcSinkConnector
from kconnect_jdbc.source.connector import JdbcSourceConnector

if TYPE_CHECKING:
    from kconnect_jdbc.sink.task import JdbcSinkTask
    from kconnect_jdbc.source.task import JdbcSourceTask

__all__ = ["JdbcSinkConnector", "JdbcSinkTask", "JdbcSourceConnector", "JdbcSourceTask"]


def __getattr__(name: str) -> Any:
    # The tasks are imported on first use: they import SQLAlchemy, which every worker process
    # (importing this package for the plugin's connectors) would pay for otherwise.
    if name == "JdbcSinkTask":
        from kconnect_jdbc.sink.task import JdbcSinkTask

        return JdbcSinkTask
    if name == "JdbcSourceTask":
        from kconnect_jdbc.source.task import JdbcSourceTask

        return JdbcSourceTask
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
