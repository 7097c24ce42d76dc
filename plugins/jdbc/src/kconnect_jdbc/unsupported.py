"""Confluent JDBC connector keys kconnect does not implement: given with another value than their default,
they are an error of their key (validate, create, start), never silently ignored.

`unsupported_errors` is pure: both connectors' validate add its errors to the key's entry, and
`check_supported` (called by the settings' parse) raises the first one as a `ConfigException`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kconnect.config import ConfigException, ConfigValue


@dataclass(frozen=True)
class UnsupportedKey:
    """A Confluent key kconnect refuses: the values that mean "the default" (empty always does), and why."""

    defaults: frozenset[str]
    reason: str


def _key(reason: str, *defaults: str) -> UnsupportedKey:
    return UnsupportedKey(frozenset(d.lower() for d in ("", *defaults)), reason)


#: Confluent's keys with no kconnect implementation, each with its default value(s) and the reason.
UNSUPPORTED_KEYS: Mapping[str, UnsupportedKey] = {
    "timestamp.columns.mapping": _key(
        "per-table timestamp columns are not implemented; use one connector per set of tables "
        "with timestamp.column.name"
    ),
    "incrementing.column.mapping": _key(
        "per-table incrementing columns are not implemented; use one connector per set of tables "
        "with incrementing.column.name"
    ),
    "max.buffer.size": _key("the source reads batch.max.rows rows per poll and buffers nothing more"),
    "poll.linger.ms": _key("a poll returns as soon as one table has rows; there is no lingering"),
    "date.calendar.system": _key(
        "dates are converted with Python's proleptic Gregorian calendar only", "legacy"
    ),
    "jdbc.credentials.provider.class": _key(
        "credentials come from connection.user and connection.password (config providers such as "
        "${file:...} work there)",
        "io.confluent.connect.jdbc.util.DefaultJdbcCredentialsProvider",
    ),
    "replace.null.with.default": _key("null values are always written as null", "true"),
    "date.timezone": _key("only its default, DB_TIMEZONE, is implemented", "db_timezone"),
    "timestamp.fields.list": _key("only Timestamp logical fields are written as timestamps"),
    "timestamp.precision.mode": _key(
        "timestamps are written at the Connect Timestamp type's millisecond precision", "microseconds"
    ),
    "string.output.value.column.name": _key("record values must be Structs with a schema"),
    "mssql.use.merge.holdlock": _key("there is no SQL Server dialect", "true"),
}


def unsupported_message(key: str) -> str:
    """``<key> is not supported by kconnect's JDBC connector: <why>``."""
    return f"{key} is not supported by kconnect's JDBC connector: {UNSUPPORTED_KEYS[key].reason}"


def unsupported_errors(config: Mapping[str, str | None]) -> dict[str, str]:
    """The keys `config` sets to a value kconnect cannot honour (not their default), with their error."""
    errors = {}
    for key, spec in UNSUPPORTED_KEYS.items():
        value = config.get(key)
        if value is not None and str(value).strip().lower() not in spec.defaults:
            errors[key] = unsupported_message(key)
    return errors


def check_supported(config: Mapping[str, str | None]) -> None:
    """Raise ConfigException for the first unsupported key `config` sets to a non-default value."""
    for key, message in unsupported_errors(config).items():
        raise ConfigException(message, name=key, value=config.get(key))


def add_unsupported_errors(values: dict[str, ConfigValue], config: Mapping[str, str | None]) -> None:
    """Give each unsupported key `config` sets an entry in a validate result, with its error."""
    for key, message in unsupported_errors(config).items():
        values.setdefault(key, ConfigValue(key, config.get(key))).add_error(message)
