"""Confluent keys kconnect does not implement are errors of their key unless given their default."""

from __future__ import annotations

import pytest
from kconnect.config import ConfigException
from kconnect_jdbc.sink.config import SinkSettings
from kconnect_jdbc.source.config import SOURCE_CONFIG_DEF, SourceSettings
from kconnect_jdbc.unsupported import REFUSED, UNSUPPORTED_KEYS

SOURCE = {"connection.url": "jdbc:sqlite:/tmp/x.db", "mode": "bulk"}
SINK = {"connection.url": "jdbc:sqlite:/tmp/x.db"}


def test_a_non_default_value_is_an_error_naming_the_key() -> None:
    found = REFUSED.errors({"timestamp.columns.mapping": "orders:[ts]", "poll.linger.ms": "100"})
    assert set(found) == {"timestamp.columns.mapping", "poll.linger.ms"}
    assert found["timestamp.columns.mapping"].startswith(
        "timestamp.columns.mapping is not supported by kconnect's JDBC connector: "
    )


@pytest.mark.parametrize(
    ("key", "default"),
    [
        ("replace.null.with.default", "true"),
        ("mssql.use.merge.holdlock", "true"),
        ("date.timezone", "DB_TIMEZONE"),
        ("jdbc.credentials.provider.class", "io.confluent.connect.jdbc.util.DefaultJdbcCredentialsProvider"),
        ("incrementing.column.mapping", ""),
    ],
)
def test_the_default_value_is_accepted(key: str, default: str) -> None:
    assert REFUSED.errors({key: default}) == {}


def test_every_key_listed_has_a_reason() -> None:
    assert len(UNSUPPORTED_KEYS) == 12
    implemented = {"table.include.list", "table.exclude.list", "timestamp.granularity", "trim.sensitive.log"}
    assert not implemented & set(UNSUPPORTED_KEYS)
    assert all(spec.reason for spec in UNSUPPORTED_KEYS.values())


def test_both_connectors_refuse_them_at_parse() -> None:
    with pytest.raises(ConfigException, match=r"poll\.linger\.ms is not supported") as raised:
        SourceSettings.parse({**SOURCE, "poll.linger.ms": "100"})
    assert raised.value.name == "poll.linger.ms"
    with pytest.raises(ConfigException, match=r"replace\.null\.with\.default is not supported"):
        SinkSettings.parse({**SINK, "replace.null.with.default": "false"})


def test_query_masked_and_transaction_isolation_mode_are_confluents_keys() -> None:
    keys = SOURCE_CONFIG_DEF.config_keys
    assert keys["query.masked"].default is False
    assert keys["transaction.isolation.mode"].default == "DEFAULT"
    settings = SourceSettings.parse(
        {**SOURCE, "query.masked": "true", "transaction.isolation.mode": "repeatable_read"}
    )
    assert settings.query_masked
    assert settings.isolation_mode == "REPEATABLE_READ"
    with pytest.raises(ConfigException, match="SQL Server"):
        SourceSettings.parse({**SOURCE, "transaction.isolation.mode": "SQL_SERVER_SNAPSHOT"})
