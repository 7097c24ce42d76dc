"""table.include.list / table.exclude.list (regexes on qualified names) and how the filtering keys combine."""

from __future__ import annotations

import pytest
from kconnect.config import ConfigException
from kconnect_jdbc.dialect import TableId
from kconnect_jdbc.source.config import SOURCE_CONFIG_DEF, SourceSettings
from kconnect_jdbc.source.filters import (
    EXCLUDE_WITHOUT_INCLUDE,
    LEGACY_AND_NEW_MIXED,
    QUERY_WITH_TABLE_FILTERS,
)
from kconnect_jdbc.source.tables import select_tables

BULK = {"connection.url": "jdbc:sqlite:x.db", "mode": "bulk"}
FOUND = [
    TableId(None, "public", "customer"),
    TableId(None, "public", "customer_tmp"),
    TableId(None, "public", "orders"),
    TableId(None, "sales", "customer"),
    TableId("shop", None, "Orders"),
]


def test_include_patterns_match_the_whole_qualified_name_case_sensitively() -> None:
    settings = SourceSettings.parse({**BULK, "table.include.list": r"public\.customer.*, shop\.orders"})
    assert select_tables(FOUND, settings) == [
        TableId(None, "public", "customer"),
        TableId(None, "public", "customer_tmp"),
    ]
    # "customer" alone matches no qualified name: the pattern must match all of it
    assert select_tables(FOUND, SourceSettings.parse({**BULK, "table.include.list": "customer"})) == []


def test_exclude_patterns_remove_tables_the_include_patterns_matched() -> None:
    settings = SourceSettings.parse(
        {**BULK, "table.include.list": r".*\.customer.*,shop\..*", "table.exclude.list": ".*_tmp, sales\\..*"}
    )
    assert select_tables(FOUND, settings) == [
        TableId(None, "public", "customer"),
        TableId("shop", None, "Orders"),
    ]


def test_a_bad_regex_is_an_error_of_its_key() -> None:
    values = SOURCE_CONFIG_DEF.validate({**BULK, "table.exclude.list": "ok,(unclosed"})
    message = values["table.exclude.list"].errors[0]
    assert message.startswith(
        "Invalid value [ok, (unclosed] for configuration table.exclude.list: Must be a valid "
        "comma-separated list of regular expression patterns: "
    )
    assert values["table.include.list"].errors == []


@pytest.mark.parametrize(
    ("config", "errors"),
    [
        (
            {"table.include.list": "a.*", "table.whitelist": "b"},
            {"table.include.list": LEGACY_AND_NEW_MIXED, "table.whitelist": LEGACY_AND_NEW_MIXED},
        ),
        (
            {"table.exclude.list": "a.*", "table.blacklist": "b"},
            {"table.exclude.list": LEGACY_AND_NEW_MIXED, "table.blacklist": LEGACY_AND_NEW_MIXED},
        ),
        (
            {"table.include.list": "a.*", "mode": "timestamp", "timestamp.column.name": "ts"},
            {"table.include.list": LEGACY_AND_NEW_MIXED, "timestamp.column.name": LEGACY_AND_NEW_MIXED},
        ),
        ({"table.exclude.list": "a.*"}, {"table.exclude.list": EXCLUDE_WITHOUT_INCLUDE}),
        (
            {"table.include.list": "a.*", "query": "SELECT 1"},
            {"query": QUERY_WITH_TABLE_FILTERS, "table.include.list": QUERY_WITH_TABLE_FILTERS},
        ),
        (
            {"table.include.list": "a.*", "mode": "incrementing"},
            {
                "mode": "Incrementing column configuration must be provided when using mode 'incrementing' "
                "or 'timestamp+incrementing'. Provide 'incrementing.column.mapping'."
            },
        ),
        (
            {"table.include.list": "a.*", "mode": "timestamp+incrementing"},
            {
                "mode": "Timestamp column configuration must be provided when using mode 'timestamp' or "
                "'timestamp+incrementing'. Provide 'timestamp.columns.mapping'."
            },
        ),
        ({"table.include.list": "a.*", "table.exclude.list": "b"}, {}),
        ({"table.whitelist": "a", "mode": "incrementing", "incrementing.column.name": "id"}, {}),
    ],
)
def test_confluents_rules_for_combining_the_keys(config: dict[str, str], errors: dict[str, str]) -> None:
    settings = SourceSettings.parse({**BULK, **config}, check_table_filters=False)
    assert settings.table_filter_errors() == {key: [message] for key, message in errors.items()}
    if errors:
        with pytest.raises(ConfigException) as raised:
            SourceSettings.parse({**BULK, **config})
        assert raised.value.name in errors
