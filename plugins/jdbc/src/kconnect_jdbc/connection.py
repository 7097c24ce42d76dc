"""The database edge: open an engine (bounded connect time, ``connection.attempts``), name errors safely.

Connectors and tasks call `open_database`; validation calls `probe`. Every error text that leaves
this module went through `redact`, so the password never reaches a log, a REST answer or a trace;
`redacted_error_text` keeps even the database's message out (the sink's ``trim.sensitive.log``).
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass

from kconnect.errors import ConnectError
from sqlalchemy import Connection, Engine
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from kconnect_jdbc.config import ConnectionSettings
from kconnect_jdbc.dialect import DatabaseDialect, dialect_for
from kconnect_jdbc.urls import describe_url, to_sqlalchemy_url

log = logging.getLogger(__name__)

#: Seconds a single connect may take before it counts as a failed attempt.
CONNECT_TIMEOUT_S = 10


@dataclass(frozen=True)
class Database:
    """An open engine and the dialect that speaks to it."""

    engine: Engine
    dialect: DatabaseDialect
    description: str

    def dispose(self) -> None:
        """Close every pooled connection."""
        self.engine.dispose()


def redact(text: str, settings: ConnectionSettings) -> str:
    """`text` with the password (and any URL-embedded one) replaced by ``****``."""
    secrets = [settings.password] if settings.password else []
    try:
        url = to_sqlalchemy_url(settings.url)
        if url.password:
            secrets.append(str(url.password))
    except ValueError:
        pass
    for secret in secrets:
        text = text.replace(secret, "****")
    return text


def error_text(error: BaseException, settings: ConnectionSettings) -> str:
    """A one-line, password-free description of a database error."""
    original = getattr(error, "orig", None) or error
    message = str(original).strip().splitlines()[0] if str(original).strip() else type(original).__name__
    return redact(message, settings)


def redacted_error_text(error: BaseException) -> str:
    """A database error without its message: ``<redacted> [class=...; SQLState=...; errorCode=...]``.

    Confluent's ``LogUtil.redactSensitiveData``: a driver's message may quote row values (MySQL's
    "Duplicate entry 'alice@example.com'"), so only the driver's exception class, its SQLSTATE
    (five letters or digits, else ``<invalid>``; ``null`` when the driver has none) and its
    numeric error code (0 when it has none) are kept.
    """
    original = getattr(error, "orig", None) or error
    kind = type(original)
    sqlstate = getattr(original, "sqlstate", None)
    if sqlstate is not None:
        sqlstate = sqlstate if re.fullmatch(r"[A-Za-z0-9]{5}", str(sqlstate)) else "<invalid>"
    code = getattr(original, "sqlite_errorcode", None)
    if code is None:
        args = getattr(original, "args", ())
        code = args[0] if args and isinstance(args[0], int) else 0
    return (
        f"<redacted> [class={kind.__module__}.{kind.__qualname__}; "
        f"SQLState={'null' if sqlstate is None else sqlstate}; errorCode={code}]"
    )


def make_database(settings: ConnectionSettings, *, time_zone: str, connect_timeout_s: int) -> Database:
    """An engine for `settings` (no connection is opened yet)."""
    url = to_sqlalchemy_url(settings.url, settings.user, settings.password)
    dialect = dialect_for(url, settings.dialect_name)
    engine = dialect.create_engine(url, connect_timeout_s=connect_timeout_s, time_zone=time_zone)
    return Database(engine, dialect, describe_url(url))


def probe(settings: ConnectionSettings, *, time_zone: str = "UTC", timeout_s: int = 5) -> Database:
    """Open one connection within `timeout_s` (one attempt); raises ConnectError with a safe text."""
    try:
        database = make_database(settings, time_zone=time_zone, connect_timeout_s=timeout_s)
    except ValueError as e:
        raise ConnectError(redact(str(e), settings)) from None
    try:
        with database.engine.connect():
            pass
    except SQLAlchemyError as e:
        database.dispose()
        raise ConnectError(error_text(e, settings)) from None
    return database


def open_database(settings: ConnectionSettings, *, time_zone: str) -> Database:
    """Open the database, trying ``connection.attempts`` times ``connection.backoff.ms`` apart.

    Called by a task's start and by the source connector; raises ConnectError naming the last
    database error (never the password).
    """
    last = ""
    for attempt in range(1, settings.attempts + 1):
        try:
            return probe(settings, time_zone=time_zone, timeout_s=CONNECT_TIMEOUT_S)
        except ConnectError as e:
            last = str(e)
            log.info("Unable to connect to database on attempt %d/%d: %s", attempt, settings.attempts, last)
            if attempt < settings.attempts:
                time.sleep(settings.backoff_ms / 1000)
    raise ConnectError(f"Could not connect to database. {last}")


def connect(database: Database, isolation_mode: str = "DEFAULT") -> Connection:
    """A new connection whose transactions run at ``transaction.isolation.mode`` (Confluent's names).

    DEFAULT leaves the database's level; a level this database does not offer is logged and the
    database's own kept, as Confluent's connector does with a level the driver does not support.
    """
    connection = database.engine.connect()
    if isolation_mode.upper() == "DEFAULT":
        return connection
    level = isolation_mode.upper().replace("_", " ")
    try:
        return connection.execution_options(isolation_level=level)
    except ArgumentError:
        log.warning(
            "Transaction isolation mode %s is not supported by %s; using the database's default",
            isolation_mode,
            database.description,
        )
        return connection
