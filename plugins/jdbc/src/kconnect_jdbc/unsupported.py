"""Confluent JDBC connector keys kconnect does not implement: given with another value than their default,
they are an error of their key (validate, create, start), never silently ignored.

Both connectors' validate add `REFUSED`'s errors to the keys' entries (`RefusedKeys.add_errors`), and
the settings' parse raises the first one as a `ConfigException` (`RefusedKeys.check`).
"""

from __future__ import annotations

from collections.abc import Mapping

from kconnect.config.refused_keys import RefusedKey, RefusedKeys, refused

#: Confluent's keys with no kconnect implementation, each with its default value(s) and the reason.
UNSUPPORTED_KEYS: Mapping[str, RefusedKey] = {
    "timestamp.columns.mapping": refused(
        "per-table timestamp columns are not implemented; use one connector per set of tables "
        "with timestamp.column.name"
    ),
    "incrementing.column.mapping": refused(
        "per-table incrementing columns are not implemented; use one connector per set of tables "
        "with incrementing.column.name"
    ),
    "max.buffer.size": refused("the source reads batch.max.rows rows per poll and buffers nothing more"),
    "poll.linger.ms": refused("a poll returns as soon as one table has rows; there is no lingering"),
    "date.calendar.system": refused(
        "dates are converted with Python's proleptic Gregorian calendar only", "legacy"
    ),
    "jdbc.credentials.provider.class": refused(
        "credentials come from connection.user and connection.password (config providers such as "
        "${file:...} work there)",
        "io.confluent.connect.jdbc.util.DefaultJdbcCredentialsProvider",
    ),
    "replace.null.with.default": refused("null values are always written as null", "true"),
    "date.timezone": refused("only its default, DB_TIMEZONE, is implemented", "db_timezone"),
    "timestamp.fields.list": refused("only Timestamp logical fields are written as timestamps"),
    "timestamp.precision.mode": refused(
        "timestamps are written at the Connect Timestamp type's millisecond precision", "microseconds"
    ),
    "string.output.value.column.name": refused("record values must be Structs with a schema"),
    "mssql.use.merge.holdlock": refused("there is no SQL Server dialect", "true"),
}


REFUSED = RefusedKeys("JDBC connector", UNSUPPORTED_KEYS)
