"""Fixtures of the JDBC tests: one PostgreSQL and one MariaDB server per session, a database per test."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from tests.databases import MariaDbServer, PostgresServer


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A throwaway PostgreSQL server for the session."""
    server = PostgresServer().start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def mariadb_server() -> Iterator[MariaDbServer]:
    """A throwaway MariaDB server for the session."""
    server = MariaDbServer().start()
    yield server
    server.stop()


@dataclass(frozen=True)
class Db:
    """One fresh database of a session server."""

    server: PostgresServer | MariaDbServer
    name: str

    @property
    def url(self) -> str:
        """Its JDBC URL."""
        return self.server.jdbc_url(self.name)

    def execute(self, *statements: str) -> None:
        """Run statements in it."""
        self.server.execute(self.name, *statements)

    def query(self, sql: str) -> list[tuple[object, ...]]:
        """The rows of a query."""
        return self.server.query(self.name, sql)


@pytest.fixture
def pg(postgres_server: PostgresServer) -> Db:
    """A fresh PostgreSQL database."""
    return Db(postgres_server, postgres_server.new_database())


@pytest.fixture
def maria(mariadb_server: MariaDbServer) -> Db:
    """A fresh MariaDB database."""
    return Db(mariadb_server, mariadb_server.new_database())
