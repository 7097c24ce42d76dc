"""What ``PUT .../JdbcSourceConnector/config/validate`` checks beyond the keys' types, against the database.

Steps: the `ConfigDef` checks and the Confluent keys kconnect does not support; the mode must be
set and fit the other keys, and the table-filtering keys combine as Confluent allows; if the
connection keys are valid, connect once within `VALIDATE_TIMEOUT_S` (failure: an error of
``connection.url``, the password never in it); then every whitelisted table must exist
(``table.whitelist``) and have the incrementing and timestamp columns
(``incrementing.column.name``, ``timestamp.column.name``).
"""

from __future__ import annotations

from collections.abc import Mapping

from kconnect.config import ConfigException, ConfigValue
from kconnect.errors import ConnectError
from sqlalchemy import Connection
from sqlalchemy.exc import SQLAlchemyError

from kconnect_jdbc.config import (
    CONNECTION_ATTEMPTS_CONFIG,
    CONNECTION_PASSWORD_CONFIG,
    CONNECTION_URL_CONFIG,
    CONNECTION_USER_CONFIG,
    DIALECT_NAME_CONFIG,
)
from kconnect_jdbc.connection import Database, error_text, probe
from kconnect_jdbc.reflection import describe_table
from kconnect_jdbc.source.config import (
    INCREMENTING_COLUMN_NAME_CONFIG,
    MODE_CONFIG,
    MODE_UNSPECIFIED,
    SOURCE_CONFIG_DEF,
    TIMESTAMP_COLUMN_NAME_CONFIG,
    SourceSettings,
)
from kconnect_jdbc.source.filters import TABLE_WHITELIST_CONFIG
from kconnect_jdbc.source.tables import all_tables, missing_whitelisted, select_tables
from kconnect_jdbc.unsupported import REFUSED

#: Longest validation waits to connect to the database.
VALIDATE_TIMEOUT_S = 5

_CONNECTION_KEYS = (
    CONNECTION_URL_CONFIG,
    CONNECTION_USER_CONFIG,
    CONNECTION_PASSWORD_CONFIG,
    CONNECTION_ATTEMPTS_CONFIG,
    DIALECT_NAME_CONFIG,
)


def validate_source(config: Mapping[str, str]) -> dict[str, ConfigValue]:
    """Every source key's value and errors, database checks included (see the module docstring)."""
    values = SOURCE_CONFIG_DEF.validate(config)
    REFUSED.add_errors(values, config)
    if any(values[k].errors for k in values):
        return values
    try:
        settings = SourceSettings.parse(config, check_table_filters=False)
    except ConfigException as e:
        values[e.name or MODE_CONFIG].add_error(str(e))
        return values
    if settings.mode == MODE_UNSPECIFIED:
        values[MODE_CONFIG].add_error("Query mode must be specified")
    for key, messages in settings.table_filter_errors().items():
        for message in messages:
            values[key].add_error(message)
    if settings.uses_timestamp and not settings.timestamp_columns:
        values[TIMESTAMP_COLUMN_NAME_CONFIG].add_error(
            f"timestamp.column.name must be set in mode '{settings.mode}'"
        )
    if settings.query and settings.uses_incrementing and not settings.incrementing_column:
        values[INCREMENTING_COLUMN_NAME_CONFIG].add_error(
            f"'{INCREMENTING_COLUMN_NAME_CONFIG}' must be provided when using mode '{settings.mode}' with a "
            "custom query: there is no table to find an auto-incrementing column in."
        )
    if any(values[k].errors for k in _CONNECTION_KEYS):
        return values
    try:
        database = probe(settings.connection, time_zone=settings.db_timezone, timeout_s=VALIDATE_TIMEOUT_S)
    except ConnectError as e:
        values[CONNECTION_URL_CONFIG].add_error(f"Could not connect to database. {e}")
        return values
    try:
        with database.engine.connect() as connection:
            if not settings.query:
                _check_tables(connection, database, settings, values)
    except SQLAlchemyError as e:
        values[CONNECTION_URL_CONFIG].add_error(
            f"Could not read the database's tables. {error_text(e, settings.connection)}"
        )
    finally:
        database.dispose()
    return values


def _check_tables(
    connection: Connection, database: Database, settings: SourceSettings, values: dict[str, ConfigValue]
) -> None:
    found = all_tables(connection, database.dialect, settings)
    for name in missing_whitelisted(found, settings):
        values[TABLE_WHITELIST_CONFIG].add_error(
            f"Table '{name}' in table.whitelist was not found in the database"
        )
    for table_id in select_tables(found, settings):
        columns = describe_table(connection, database.dialect, table_id) or []
        names = {c.name.lower() for c in columns}
        incrementing = settings.incrementing_column
        if settings.uses_incrementing and incrementing and incrementing.lower() not in names:
            values[INCREMENTING_COLUMN_NAME_CONFIG].add_error(
                f"Column '{incrementing}' was not found in table {table_id.qualified}"
            )
        if settings.uses_incrementing and not incrementing and not any(c.autoincrement for c in columns):
            values[INCREMENTING_COLUMN_NAME_CONFIG].add_error(
                f"Table {table_id.qualified} has no auto-incrementing column: "
                f"set {INCREMENTING_COLUMN_NAME_CONFIG}"
            )
        for column in settings.timestamp_columns if settings.uses_timestamp else ():
            if column.lower() not in names:
                values[TIMESTAMP_COLUMN_NAME_CONFIG].add_error(
                    f"Column '{column}' was not found in table {table_id.qualified}"
                )
