"""One dialect per database behind `DatabaseDialect`; `dialect_for` picks one by URL or ``dialect.name``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kconnect_jdbc.config import DIALECT_NAMES
from kconnect_jdbc.dialect.base import DatabaseDialect, QueryColumn, TableId

if TYPE_CHECKING:
    from sqlalchemy.engine import URL


def dialect_for(url: URL, dialect_name: str = "") -> DatabaseDialect:
    """The dialect named by ``dialect.name`` (case-insensitive), else the one of the URL's database."""
    # Imported here: the keys' definitions import `TableId` from this package, and SQLAlchemy and the
    # drivers would cost every worker process (which imports every plugin's keys) 0.6 s and 37 MB.
    from kconnect_jdbc.dialect.mysql import MySqlDialect
    from kconnect_jdbc.dialect.postgres import PostgreSqlDialect
    from kconnect_jdbc.dialect.sqlite import SqliteDialect
    from kconnect_jdbc.urls import UrlError, backend_name

    by_backend: dict[str, type[PostgreSqlDialect | MySqlDialect | SqliteDialect]] = {
        "postgresql": PostgreSqlDialect,
        "mysql": MySqlDialect,
        "sqlite": SqliteDialect,
    }
    if dialect_name:
        wanted = {name.lower(): backend for name, backend in DIALECT_NAMES.items()}[dialect_name.lower()]
        return by_backend[wanted]()
    backend = backend_name(url)
    if backend not in by_backend:
        raise UrlError(
            f"No dialect for database '{backend}': supported are PostgreSQL, MySQL/MariaDB and SQLite"
        )
    return by_backend[backend]()


__all__ = ["DatabaseDialect", "QueryColumn", "TableId", "dialect_for"]
