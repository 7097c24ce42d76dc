"""JdbcSourceConnector and JdbcSinkConnector: Confluent's JDBC connector, for kconnect.

Same class names (``io.confluent.connect.jdbc.JdbcSourceConnector`` / ``JdbcSinkConnector``), config
keys, defaults and source offsets as Confluent's ``kafka-connect-jdbc``, so its configs move over
unchanged. Databases: PostgreSQL (psycopg 3), MySQL/MariaDB (PyMySQL) and SQLite (sqlite3), each
behind one dialect (`kconnect_jdbc.dialect`); SQLAlchemy Core does reflection and DDL.
"""

from kconnect_jdbc.sink.connector import JdbcSinkConnector
from kconnect_jdbc.sink.task import JdbcSinkTask
from kconnect_jdbc.source.connector import JdbcSourceConnector
from kconnect_jdbc.source.task import JdbcSourceTask

__all__ = ["JdbcSinkConnector", "JdbcSinkTask", "JdbcSourceConnector", "JdbcSourceTask"]
