"""JdbcSourceConnector's keys: Confluent's names and defaults, our validators, table filters."""

from __future__ import annotations

from kconnect_jdbc.dialect import TableId
from kconnect_jdbc.dialect.generic import matches_like
from kconnect_jdbc.source.config import SOURCE_CONFIG_DEF, SourceSettings
from kconnect_jdbc.source.tables import missing_whitelisted, select_tables


def test_defaults_are_confluents() -> None:
    keys = SOURCE_CONFIG_DEF.config_keys
    assert keys["connection.password"].type.value == "PASSWORD"
    defaults = {name: keys[name].default for name in keys}
    assert defaults["mode"] == ""
    assert defaults["poll.interval.ms"] == 5000
    assert defaults["batch.max.rows"] == 1000
    assert defaults["table.poll.interval.ms"] == 60000
    assert defaults["timestamp.delay.interval.ms"] == 0
    assert defaults["db.timezone"] == "UTC"
    assert defaults["validate.non.null"] is True
    assert defaults["table.types"] == ["TABLE"]
    assert defaults["numeric.mapping"] is None
    assert defaults["topic.prefix"] == ""
    assert defaults["query.retry.attempts"] == -1
    assert defaults["quote.sql.identifiers"] == "always"


def test_bad_values_get_errors_of_their_keys() -> None:
    values = SOURCE_CONFIG_DEF.validate(
        {
            "mode": "sometimes",
            "topic.prefix": "bad prefix!",
            "db.timezone": "Mars/Olympus",
            "numeric.mapping": "x",
        }
    )
    assert values["mode"].errors == [
        "Invalid value sometimes for configuration mode: String must be one of: , bulk, timestamp, "
        "incrementing, timestamp+incrementing"
    ]
    assert "must not contain any character other than ASCII alphanumerics" in values["topic.prefix"].errors[0]
    assert values["db.timezone"].errors and values["numeric.mapping"].errors


def test_numeric_precision_mapping_means_precision_only() -> None:
    settings = SourceSettings.parse(
        {"connection.url": "jdbc:sqlite:x.db", "numeric.precision.mapping": "true"}
    )
    assert settings.numeric_mapping == "precision_only"


def test_whitelist_matches_plain_and_qualified_names() -> None:
    found = [TableId(None, "public", "a"), TableId(None, "public", "b"), TableId(None, "sales", "a")]
    settings = SourceSettings.parse({"table.whitelist": "sales.a,b,missing"})
    assert select_tables(found, settings) == [TableId(None, "public", "b"), TableId(None, "sales", "a")]
    assert missing_whitelisted(found, settings) == ["missing"]
    blacklisted = SourceSettings.parse({"table.blacklist": "a"})
    assert select_tables(found, blacklisted) == [TableId(None, "public", "b")]


def test_like_patterns() -> None:
    assert matches_like("pub%", "public")
    assert matches_like("p_blic", "public")
    assert not matches_like("pub", "public")
    assert matches_like(None, "anything")
    assert matches_like("a\\_b", "a_b") and not matches_like("a\\_b", "axb")
