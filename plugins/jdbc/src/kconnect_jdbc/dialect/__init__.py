"""One dialect per database behind `DatabaseDialect`; `dialect_for` picks one by URL or ``dialect.name``."""

from __future__ import annotations

from sqlalchemy.engine import URL

from kconnect_jdbc.config import DIALECT_NAMES
from kconnect_jdbc.dialect.base import DatabaseDialect, QueryColumn, TableId
from kconnect_jdbc.dialect.mysql import MySqlDialect
from kconnect_jdbc.dialect.postgres import PostgreSqlDialect
from kconnect_jdbc.dialect.sqlite import SqliteDialect
from kconnect_jdbc.urls import UrlError, backend_name

_BY_BACKEND: dict[str, type[PostgreSqlDialect | MySqlDialect | SqliteDialect]] = {
    "postgresql": PostgreSqlDialect,
    "mysql": MySqlDialect,
    "sqlite": SqliteDialect,
}


def dialect_for(url: URL, dialect_name: str = "") -> DatabaseDialect:
    """The dialect named by ``dialect.name`` (case-insensitive), else the one of the URL's database."""
    if dialect_name:
        wanted = {name.lower(): backend for name, backend in DIALECT_NAMES.items()}[dialect_name.lower()]
        return _BY_BACKEND[wanted]()
    backend = backend_name(url)
    if backend not in _BY_BACKEND:
        raise UrlError(
            f"No dialect for database '{backend}': supported are PostgreSQL, MySQL/MariaDB and SQLite"
        )
    return _BY_BACKEND[backend]()


__all__ = ["DatabaseDialect", "QueryColumn", "TableId", "dialect_for"]
