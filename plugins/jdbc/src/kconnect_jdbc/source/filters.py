"""Which of the database's tables the source copies: Confluent's two ways of saying it (pure).

Legacy: ``table.whitelist`` / ``table.blacklist``, exact names (``orders``, ``public.orders``).
New (Confluent 10.9): ``table.include.list`` / ``table.exclude.list``, regular expressions that must
match a table's whole fully-qualified, unquoted name (``public.orders``, ``shop.orders``,
``orders``: the name its source partition carries); a table is copied when it matches an include
pattern and no exclude pattern. `TableFilter.select` applies whichever is set;
`table_filter_errors` says, per key, what Confluent's validation refuses about the combination
(legacy and new keys mixed, an exclude list alone, new keys in a mode that needs the column
mappings kconnect does not implement). The source's validate reports every error on its key; the
settings' parse raises the first.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from kconnect.config import ConfigException, LambdaValidator

from kconnect_jdbc.dialect import TableId

TABLE_WHITELIST_CONFIG = "table.whitelist"
TABLE_BLACKLIST_CONFIG = "table.blacklist"
TABLE_INCLUDE_LIST_CONFIG = "table.include.list"
TABLE_EXCLUDE_LIST_CONFIG = "table.exclude.list"
INCREMENTING_COLUMN_NAME_CONFIG = "incrementing.column.name"
TIMESTAMP_COLUMN_NAME_CONFIG = "timestamp.column.name"
MODE_CONFIG = "mode"
QUERY_CONFIG = "query"

LEGACY_AND_NEW_MIXED = (
    "Cannot mix legacy and new configuration approaches. Legacy configurations (table.whitelist, "
    "table.blacklist, timestamp.column.name, incrementing.column.name) cannot be used together with "
    "new configurations (table.include.list, table.exclude.list, timestamp.columns.mapping, "
    "incrementing.column.mapping). Please choose one approach: either use all legacy configurations "
    "or all new configurations."
)
EXCLUDE_WITHOUT_INCLUDE = (
    "table.exclude.list cannot be used without table.include.list. Exclude list only applies to "
    "tables that match the include list."
)
QUERY_WITH_TABLE_FILTERS = (
    "Do not specify table filtering configs with 'query'. Remove table.whitelist / table.blacklist / "
    "table.include.list / table.exclude.list when using query mode or 'query' when using table "
    "filtering mode."
)
WHITELIST_AND_BLACKLIST = "table.whitelist and table.blacklist are exclusive: set one of them, not both"


def _check_regex_list(name: str, value: object) -> None:
    for pattern in value if isinstance(value, list) else []:
        try:
            re.compile(str(pattern).strip())
        except re.error as e:
            raise ConfigException.invalid(
                name, value, f"Must be a valid comma-separated list of regular expression patterns: {e}"
            ) from e


#: ``table.include.list`` / ``table.exclude.list`` validator: every entry compiles.
REGEX_LIST = LambdaValidator(_check_regex_list, "a valid comma-separated list of regular expressions")


@dataclass(frozen=True)
class TableFilter:
    """The four table-filtering keys, parsed (empty tuples when unset)."""

    whitelist: tuple[str, ...] = ()
    blacklist: tuple[str, ...] = ()
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()

    @property
    def uses_regexes(self) -> bool:
        """Whether the new keys are set (then they alone decide, as in Confluent's table monitor)."""
        return bool(self.include or self.exclude)

    @property
    def is_set(self) -> bool:
        """Whether any of the four keys is set."""
        return bool(self.whitelist or self.blacklist or self.include or self.exclude)

    def select(self, found: Sequence[TableId]) -> list[TableId]:
        """The tables of `found` to copy, in order."""
        if self.uses_regexes:
            include = [re.compile(p) for p in self.include]
            exclude = [re.compile(p) for p in self.exclude]
            return [
                t
                for t in found
                if any(p.fullmatch(t.qualified) for p in include)
                and not any(p.fullmatch(t.qualified) for p in exclude)
            ]
        if self.whitelist:
            return [t for t in found if any(t.matches(name) for name in self.whitelist)]
        return [t for t in found if not any(t.matches(name) for name in self.blacklist)]

    def missing_whitelisted(self, found: Sequence[TableId]) -> list[str]:
        """Whitelist entries that name no table of `found`."""
        return [name for name in self.whitelist if not any(t.matches(name) for t in found)]


def table_filter_errors(
    table_filter: TableFilter,
    *,
    mode: str,
    query: str,
    incrementing_column: str,
    timestamp_columns: Sequence[str],
) -> dict[str, list[str]]:
    """Confluent's checks of how the filtering keys combine with each other, the mode and query."""
    errors: dict[str, list[str]] = {}

    def add(key: str, message: str) -> None:
        errors.setdefault(key, []).append(message)

    if query:
        if table_filter.is_set:
            add(QUERY_CONFIG, QUERY_WITH_TABLE_FILTERS)
            for key, value in _filter_keys(table_filter):
                if value:
                    add(key, QUERY_WITH_TABLE_FILTERS)
        return errors
    if table_filter.uses_regexes:
        set_keys = [key for key, value in _filter_keys(table_filter) if value]
        set_keys += [TIMESTAMP_COLUMN_NAME_CONFIG] if timestamp_columns else []
        set_keys += [INCREMENTING_COLUMN_NAME_CONFIG] if incrementing_column else []
        legacy = {TABLE_WHITELIST_CONFIG, TABLE_BLACKLIST_CONFIG, TIMESTAMP_COLUMN_NAME_CONFIG}
        legacy.add(INCREMENTING_COLUMN_NAME_CONFIG)
        if legacy & set(set_keys):
            for key in set_keys:
                add(key, LEGACY_AND_NEW_MIXED)
            return errors
        if not table_filter.include:
            add(TABLE_EXCLUDE_LIST_CONFIG, EXCLUDE_WITHOUT_INCLUDE)
            return errors
        if mode in ("timestamp", "timestamp+incrementing"):
            add(
                MODE_CONFIG,
                "Timestamp column configuration must be provided when using mode 'timestamp' or "
                "'timestamp+incrementing'. Provide 'timestamp.columns.mapping'.",
            )
        elif mode == "incrementing":
            add(
                MODE_CONFIG,
                "Incrementing column configuration must be provided when using mode 'incrementing' or "
                "'timestamp+incrementing'. Provide 'incrementing.column.mapping'.",
            )
        return errors
    if table_filter.whitelist and table_filter.blacklist:
        add(TABLE_WHITELIST_CONFIG, WHITELIST_AND_BLACKLIST)
        add(TABLE_BLACKLIST_CONFIG, WHITELIST_AND_BLACKLIST)
    return errors


def _filter_keys(table_filter: TableFilter) -> tuple[tuple[str, tuple[str, ...]], ...]:
    return (
        (TABLE_WHITELIST_CONFIG, table_filter.whitelist),
        (TABLE_BLACKLIST_CONFIG, table_filter.blacklist),
        (TABLE_INCLUDE_LIST_CONFIG, table_filter.include),
        (TABLE_EXCLUDE_LIST_CONFIG, table_filter.exclude),
    )
