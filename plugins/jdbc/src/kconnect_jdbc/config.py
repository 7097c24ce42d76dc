"""The keys both JDBC connectors share (Confluent's names and defaults) and their small validators.

`define_connection_keys` adds ``connection.*`` and ``dialect.name`` to a `ConfigDef`;
`ConnectionSettings` is their parsed form, which `kconnect_jdbc.connection` opens.
"""

from __future__ import annotations

import zoneinfo
from collections.abc import Mapping
from dataclasses import dataclass

from kconnect.config import (
    ConfigDef,
    ConfigException,
    ConfigType,
    Importance,
    LambdaValidator,
    Password,
    Range,
    Width,
)

CONNECTION_URL_CONFIG = "connection.url"
CONNECTION_USER_CONFIG = "connection.user"
CONNECTION_PASSWORD_CONFIG = "connection.password"
CONNECTION_ATTEMPTS_CONFIG = "connection.attempts"
CONNECTION_BACKOFF_CONFIG = "connection.backoff.ms"
DIALECT_NAME_CONFIG = "dialect.name"
DB_TIMEZONE_CONFIG = "db.timezone"
QUOTE_SQL_IDENTIFIERS_CONFIG = "quote.sql.identifiers"
TABLE_TYPES_CONFIG = "table.types"

DATABASE_GROUP = "Database"

#: Dialect names as Confluent spells them (``dialect.name``), each with the backend it serves.
DIALECT_NAMES = {
    "PostgreSqlDatabaseDialect": "postgresql",
    "MySqlDatabaseDialect": "mysql",
    "SqliteDatabaseDialect": "sqlite",
}

CONNECTION_URL_DOC = (
    "Where the database is: a JDBC URL as Confluent's connector takes it "
    "(``jdbc:postgresql://host:5432/db``, ``jdbc:mysql://host:3306/db``, ``jdbc:mariadb://...``, "
    "``jdbc:sqlite:/path/file.db``) or a SQLAlchemy URL (``postgresql://...``, ``sqlite:///...``)."
)


def one_of_ignoring_case(*choices: str, allow_null: bool = False) -> LambdaValidator:
    """A validator accepting `choices` in any case (and null when `allow_null`)."""

    def check(name: str, value: object) -> None:
        if value is None and allow_null:
            return
        if not isinstance(value, str) or value.lower() not in {c.lower() for c in choices}:
            raise ConfigException.invalid(name, value, "String must be one of: " + ", ".join(choices))

    return LambdaValidator(check, "[" + ", ".join(choices) + "]")


def _check_time_zone(name: str, value: object) -> None:
    if value is None:
        return
    try:
        zoneinfo.ZoneInfo(str(value))
    except (zoneinfo.ZoneInfoNotFoundError, ValueError) as e:
        raise ConfigException.invalid(
            name, value, "Invalid time zone. Use an IANA time zone name such as UTC or Europe/Paris"
        ) from e


TIME_ZONE = LambdaValidator(_check_time_zone, "an IANA time zone name")


def define_connection_keys(config_def: ConfigDef, *, url_default: object) -> ConfigDef:
    """Add the connection keys both connectors take (Confluent: the source's url defaults to "")."""
    return (
        config_def.define(
            CONNECTION_URL_CONFIG,
            type=ConfigType.STRING,
            default=url_default,
            importance=Importance.HIGH,
            documentation=CONNECTION_URL_DOC,
            group=DATABASE_GROUP,
            order_in_group=1,
            width=Width.LONG,
            display_name="JDBC URL",
        )
        .define(
            CONNECTION_USER_CONFIG,
            type=ConfigType.STRING,
            default=None,
            importance=Importance.HIGH,
            documentation="The database user (overrides a user in the URL).",
            group=DATABASE_GROUP,
            order_in_group=2,
            width=Width.LONG,
            display_name="JDBC User",
        )
        .define(
            CONNECTION_PASSWORD_CONFIG,
            type=ConfigType.PASSWORD,
            default=None,
            importance=Importance.HIGH,
            documentation="The database user's password; hidden in REST answers and logs.",
            group=DATABASE_GROUP,
            order_in_group=3,
            width=Width.SHORT,
            display_name="JDBC Password",
        )
        .define(
            CONNECTION_ATTEMPTS_CONFIG,
            type=ConfigType.INT,
            default=3,
            validator=Range.at_least(1),
            importance=Importance.LOW,
            documentation="How many times to try to open a connection before giving up.",
            group=DATABASE_GROUP,
            order_in_group=4,
            width=Width.SHORT,
            display_name="JDBC connection attempts",
        )
        .define(
            CONNECTION_BACKOFF_CONFIG,
            type=ConfigType.LONG,
            default=10000,
            importance=Importance.LOW,
            documentation="Milliseconds to wait between two attempts to open a connection.",
            group=DATABASE_GROUP,
            order_in_group=5,
            width=Width.SHORT,
            display_name="JDBC connection backoff in milliseconds",
        )
        .define(
            DIALECT_NAME_CONFIG,
            type=ConfigType.STRING,
            default="",
            validator=one_of_ignoring_case("", *DIALECT_NAMES),
            importance=Importance.LOW,
            documentation=(
                "The dialect to speak; empty (the default) picks it from connection.url. One of "
                + ", ".join(DIALECT_NAMES)
                + "."
            ),
            group=DATABASE_GROUP,
            order_in_group=6,
            width=Width.LONG,
            display_name="Database Dialect",
        )
    )


@dataclass(frozen=True)
class ConnectionSettings:
    """The parsed connection keys: what `kconnect_jdbc.connection.open_engine` needs."""

    url: str
    user: str | None
    password: str | None
    attempts: int
    backoff_ms: int
    dialect_name: str

    @classmethod
    def from_parsed(cls, parsed: Mapping[str, object]) -> ConnectionSettings:
        """Read the connection keys out of a `ConfigDef.parse` result."""
        password = parsed.get(CONNECTION_PASSWORD_CONFIG)
        return cls(
            url=str(parsed.get(CONNECTION_URL_CONFIG) or ""),
            user=_optional_str(parsed.get(CONNECTION_USER_CONFIG)),
            password=password.value if isinstance(password, Password) else _optional_str(password),
            attempts=int(parsed.get(CONNECTION_ATTEMPTS_CONFIG) or 1),  # type: ignore[call-overload]
            backoff_ms=int(parsed.get(CONNECTION_BACKOFF_CONFIG) or 0),  # type: ignore[call-overload]
            dialect_name=str(parsed.get(DIALECT_NAME_CONFIG) or ""),
        )


def _optional_str(value: object) -> str | None:
    return None if value is None else str(value)
