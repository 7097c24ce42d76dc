"""JdbcSourceConnector's keys: Confluent's names, types and defaults, documented in our words.

`SOURCE_CONFIG_DEF` is the definition; `SourceSettings.parse` turns a connector or task config
into typed settings (raising `ConfigException` as `ConfigDef.parse` does).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from kconnect.config import ConfigDef, ConfigException, ConfigType, Importance, LambdaValidator, Width

from kconnect_jdbc.config import (
    DB_TIMEZONE_CONFIG,
    QUOTE_SQL_IDENTIFIERS_CONFIG,
    TABLE_TYPES_CONFIG,
    TIME_ZONE,
    ConnectionSettings,
    define_connection_keys,
    one_of_ignoring_case,
)
from kconnect_jdbc.source.filters import (
    REGEX_LIST,
    TABLE_BLACKLIST_CONFIG,
    TABLE_EXCLUDE_LIST_CONFIG,
    TABLE_INCLUDE_LIST_CONFIG,
    TABLE_WHITELIST_CONFIG,
    TableFilter,
    table_filter_errors,
)
from kconnect_jdbc.source.granularity import CONNECT_LOGICAL, GRANULARITIES
from kconnect_jdbc.unsupported import REFUSED

CATALOG_PATTERN_CONFIG = "catalog.pattern"
SCHEMA_PATTERN_CONFIG = "schema.pattern"
NUMERIC_PRECISION_MAPPING_CONFIG = "numeric.precision.mapping"
NUMERIC_MAPPING_CONFIG = "numeric.mapping"
MODE_CONFIG = "mode"
INCREMENTING_COLUMN_NAME_CONFIG = "incrementing.column.name"
TIMESTAMP_COLUMN_NAME_CONFIG = "timestamp.column.name"
TIMESTAMP_INITIAL_CONFIG = "timestamp.initial"
TIMESTAMP_GRANULARITY_CONFIG = "timestamp.granularity"
VALIDATE_NON_NULL_CONFIG = "validate.non.null"
QUERY_CONFIG = "query"
QUERY_SUFFIX_CONFIG = "query.suffix"
POLL_INTERVAL_MS_CONFIG = "poll.interval.ms"
BATCH_MAX_ROWS_CONFIG = "batch.max.rows"
TABLE_POLL_INTERVAL_MS_CONFIG = "table.poll.interval.ms"
TOPIC_PREFIX_CONFIG = "topic.prefix"
TIMESTAMP_DELAY_INTERVAL_MS_CONFIG = "timestamp.delay.interval.ms"
QUERY_RETRIES_CONFIG = "query.retry.attempts"
QUERY_MASKED_CONFIG = "query.masked"
TRANSACTION_ISOLATION_MODE_CONFIG = "transaction.isolation.mode"
#: The task's own key: the tables (fully qualified, comma-separated) this task copies.
TABLES_CONFIG = "tables"

MODE_UNSPECIFIED = ""
MODE_BULK = "bulk"
MODE_TIMESTAMP = "timestamp"
MODE_INCREMENTING = "incrementing"
MODE_TIMESTAMP_INCREMENTING = "timestamp+incrementing"
MODES = (MODE_UNSPECIFIED, MODE_BULK, MODE_TIMESTAMP, MODE_INCREMENTING, MODE_TIMESTAMP_INCREMENTING)

#: Confluent's ``transaction.isolation.mode`` values; DEFAULT keeps the database's own level.
ISOLATION_MODES = (
    "DEFAULT",
    "READ_UNCOMMITTED",
    "READ_COMMITTED",
    "REPEATABLE_READ",
    "SERIALIZABLE",
    "SQL_SERVER_SNAPSHOT",
)
NUMERIC_MAPPINGS = ("none", "precision_only", "best_fit", "best_fit_eager_double")
#: Sentinel ``timestamp.initial`` value meaning "start from the database's current time".
TIMESTAMP_INITIAL_CURRENT = -1

SQL_SERVER_SNAPSHOT_REFUSED = (
    "SQL_SERVER_SNAPSHOT is SQL Server's isolation mode and there is no SQL Server dialect"
)

MODE_GROUP = "Mode"
CONNECTOR_GROUP = "Connector"
_INVALID_TOPIC_CHARS = re.compile(r"[^a-zA-Z0-9._-]")


def _check_topic_prefix(name: str, value: object) -> None:
    if value is None:
        raise ConfigException.invalid(name, value, "Topic prefix must not be null.")
    trimmed = str(value).strip()
    if len(trimmed) > 249:
        raise ConfigException.invalid(
            name, value, "Topic prefix length must not exceed max topic name length, 249 chars"
        )
    if _INVALID_TOPIC_CHARS.search(trimmed):
        raise ConfigException.invalid(
            name,
            value,
            "Topic prefix must not contain any character other than ASCII alphanumerics, '.', '_' and '-'.",
        )


def _source_config_def() -> ConfigDef:
    config_def = define_connection_keys(ConfigDef(), url_default="")
    database = "Database"
    return (
        config_def.define(
            TABLE_WHITELIST_CONFIG,
            type=ConfigType.LIST,
            default="",
            importance=Importance.MEDIUM,
            documentation=(
                "Tables to copy, by name or qualified name (schema.table). When set, only these are "
                "copied; use it or table.blacklist, not both, and neither with table.include.list or "
                "table.exclude.list."
            ),
            group=database,
            order_in_group=7,
            width=Width.LONG,
            display_name="Table Whitelist",
        )
        .define(
            TABLE_BLACKLIST_CONFIG,
            type=ConfigType.LIST,
            default="",
            importance=Importance.MEDIUM,
            documentation="Tables never to copy; every other table found is copied.",
            group=database,
            order_in_group=8,
            width=Width.LONG,
            display_name="Table Blacklist",
        )
        .define(
            TABLE_INCLUDE_LIST_CONFIG,
            type=ConfigType.LIST,
            default="",
            validator=REGEX_LIST,
            importance=Importance.MEDIUM,
            documentation=(
                "Regular expressions matching the whole fully-qualified name of the tables to copy "
                "(schema.table on PostgreSQL, database.table on MySQL/MariaDB, table on SQLite), "
                "case-sensitive, e.g. public\\.customer.*. Not with table.whitelist, table.blacklist, "
                "timestamp.column.name or incrementing.column.name."
            ),
            group=database,
            order_in_group=9,
            width=Width.LONG,
            display_name="Tables Included (Regex)",
        )
        .define(
            TABLE_EXCLUDE_LIST_CONFIG,
            type=ConfigType.LIST,
            default="",
            validator=REGEX_LIST,
            importance=Importance.MEDIUM,
            documentation=(
                "Regular expressions matching the whole fully-qualified name of tables not to copy "
                "among those table.include.list matches (which it requires)."
            ),
            group=database,
            order_in_group=10,
            width=Width.LONG,
            display_name="Tables Excluded (Regex)",
        )
        .define(
            CATALOG_PATTERN_CONFIG,
            type=ConfigType.STRING,
            default=None,
            importance=Importance.MEDIUM,
            documentation="Only tables of catalogs (MySQL/MariaDB: databases) matching this LIKE pattern.",
            group=database,
            order_in_group=11,
            width=Width.SHORT,
            display_name="Catalog pattern to fetch table metadata from the database",
        )
        .define(
            SCHEMA_PATTERN_CONFIG,
            type=ConfigType.STRING,
            default=None,
            importance=Importance.HIGH,
            documentation=(
                "Only tables of schemas matching this LIKE pattern; unset: the connection's default "
                "schema (PostgreSQL: every schema on the search path but the system ones)."
            ),
            group=database,
            order_in_group=12,
            width=Width.SHORT,
            display_name="Schema pattern to fetch table metadata from the database",
        )
        .define(
            NUMERIC_PRECISION_MAPPING_CONFIG,
            type=ConfigType.BOOLEAN,
            default=False,
            importance=Importance.LOW,
            documentation="Deprecated: true means numeric.mapping=precision_only.",
            group=database,
            order_in_group=13,
            width=Width.SHORT,
            display_name="Map Numeric Values By Precision (deprecated)",
        )
        .define(
            NUMERIC_MAPPING_CONFIG,
            type=ConfigType.STRING,
            default=None,
            validator=one_of_ignoring_case(*NUMERIC_MAPPINGS, allow_null=True),
            importance=Importance.LOW,
            documentation=(
                "How NUMERIC/DECIMAL columns become Connect types. none (the default): always the "
                "Decimal logical type. precision_only: scale-0 columns become INT8/16/32/64 by "
                "precision. best_fit: as precision_only, and columns with a scale become FLOAT64 "
                "when precision <= 15; values that cannot fit stay Decimal. best_fit_eager_double: "
                "as best_fit, and every column with a scale becomes FLOAT64."
            ),
            group=database,
            order_in_group=14,
            width=Width.SHORT,
            display_name="Map Numeric Values, Integral or Decimal, By Precision and Scale",
        )
        .define(
            MODE_CONFIG,
            type=ConfigType.STRING,
            default=MODE_UNSPECIFIED,
            validator=_valid_string(MODES),
            importance=Importance.HIGH,
            documentation=(
                "How each poll finds rows. bulk: the whole table every time. incrementing: rows whose "
                "strictly increasing column is above the last one seen (new rows only). timestamp: "
                "rows whose timestamp column moved past the last one seen (new and updated rows). "
                "timestamp+incrementing: both columns, so rows with equal timestamps are neither "
                "lost nor repeated."
            ),
            group=MODE_GROUP,
            order_in_group=1,
            width=Width.MEDIUM,
            display_name="Table Loading Mode",
            dependents=(
                INCREMENTING_COLUMN_NAME_CONFIG,
                TIMESTAMP_COLUMN_NAME_CONFIG,
                VALIDATE_NON_NULL_CONFIG,
            ),
        )
        .define(
            INCREMENTING_COLUMN_NAME_CONFIG,
            type=ConfigType.STRING,
            default="",
            importance=Importance.MEDIUM,
            documentation=(
                "The strictly increasing, non-null column of incrementing modes; empty: the table's "
                "auto-increment column, found by reflection."
            ),
            group=MODE_GROUP,
            order_in_group=2,
            width=Width.MEDIUM,
            display_name="Incrementing Column Name",
        )
        .define(
            TIMESTAMP_COLUMN_NAME_CONFIG,
            type=ConfigType.LIST,
            default="",
            importance=Importance.MEDIUM,
            documentation=(
                "The timestamp column(s) of timestamp modes; with several, the first non-null "
                "(COALESCE) counts. Should not be nullable."
            ),
            group=MODE_GROUP,
            order_in_group=3,
            width=Width.MEDIUM,
            display_name="Timestamp Column Name",
        )
        .define(
            TIMESTAMP_INITIAL_CONFIG,
            type=ConfigType.LONG,
            default=None,
            importance=Importance.LOW,
            documentation=(
                "Where timestamp modes start when no offset was committed: epoch milliseconds, or -1 "
                "for the database's current time. Unset: from the beginning."
            ),
            group=MODE_GROUP,
            order_in_group=4,
            width=Width.MEDIUM,
            display_name="Unix time value of initial timestamp",
        )
        .define(
            TIMESTAMP_GRANULARITY_CONFIG,
            type=ConfigType.STRING,
            default=CONNECT_LOGICAL,
            validator=one_of_ignoring_case(*GRANULARITIES),
            importance=Importance.LOW,
            documentation=(
                "How timestamp columns appear in records. connect_logical: the Connect Timestamp "
                "logical type (milliseconds). micros_long / nanos_long: epoch microseconds / "
                "nanoseconds as an INT64; micros_string / nanos_string: the same as a string; "
                "micros_iso_datetime_string / nanos_iso_datetime_string: yyyy-MM-ddTHH:mm:ss.SSSSSS "
                "/ .SSSSSSSSS in db.timezone. Offsets are stored the same way whatever the choice."
            ),
            group=MODE_GROUP,
            order_in_group=12,
            width=Width.SHORT,
            display_name="Timestamp granularity for timestamp columns",
        )
        .define(
            VALIDATE_NON_NULL_CONFIG,
            type=ConfigType.BOOLEAN,
            default=True,
            importance=Importance.LOW,
            documentation="Check at start-up that the incrementing and timestamp columns are NOT NULL.",
            group=MODE_GROUP,
            order_in_group=5,
            width=Width.SHORT,
            display_name="Validate Non Null",
        )
        .define(
            QUERY_CONFIG,
            type=ConfigType.STRING,
            default="",
            importance=Importance.MEDIUM,
            documentation=(
                "Copy the result of this SELECT instead of whole tables (one task, topic = "
                "topic.prefix). Incrementing and timestamp modes append their WHERE clause, so the "
                "query must not have one at its top level (wrap it in a subquery)."
            ),
            group=MODE_GROUP,
            order_in_group=6,
            width=Width.SHORT,
            display_name="Query",
        )
        .define(
            QUOTE_SQL_IDENTIFIERS_CONFIG,
            type=ConfigType.STRING,
            default="always",
            validator=one_of_ignoring_case("always", "never"),
            importance=Importance.MEDIUM,
            documentation="Whether table and column names are quoted in the SQL the connector writes.",
            group=MODE_GROUP,
            order_in_group=7,
            width=Width.MEDIUM,
            display_name="Quote Identifiers",
        )
        .define(
            QUERY_SUFFIX_CONFIG,
            type=ConfigType.STRING,
            default="",
            importance=Importance.LOW,
            documentation="Text appended to every SELECT the connector runs (e.g. a locking hint).",
            group=MODE_GROUP,
            order_in_group=8,
            width=Width.MEDIUM,
            display_name="Suffix for Query",
        )
        .define(
            TABLE_TYPES_CONFIG,
            type=ConfigType.LIST,
            default="TABLE",
            validator=LambdaValidator(_check_table_types, "[TABLE, VIEW]"),
            importance=Importance.LOW,
            documentation="Which kinds of relation to copy: TABLE, VIEW or both.",
            group=CONNECTOR_GROUP,
            order_in_group=1,
            width=Width.MEDIUM,
            display_name="Table Types",
        )
        .define(
            POLL_INTERVAL_MS_CONFIG,
            type=ConfigType.INT,
            default=5000,
            importance=Importance.HIGH,
            documentation="Milliseconds between two queries of the same table once it was read to its end.",
            group=CONNECTOR_GROUP,
            order_in_group=2,
            width=Width.SHORT,
            display_name="Poll Interval (ms)",
        )
        .define(
            BATCH_MAX_ROWS_CONFIG,
            type=ConfigType.INT,
            default=1000,
            importance=Importance.LOW,
            documentation="Most rows one poll returns from one table; larger results take several polls.",
            group=CONNECTOR_GROUP,
            order_in_group=3,
            width=Width.SHORT,
            display_name="Max Rows Per Batch",
        )
        .define(
            TABLE_POLL_INTERVAL_MS_CONFIG,
            type=ConfigType.LONG,
            default=60000,
            importance=Importance.LOW,
            documentation=(
                "Milliseconds between two looks for new or dropped tables; a change makes the "
                "connector ask for new task configs."
            ),
            group=CONNECTOR_GROUP,
            order_in_group=4,
            width=Width.SHORT,
            display_name="Metadata Change Monitoring Interval (ms)",
        )
        .define(
            TOPIC_PREFIX_CONFIG,
            type=ConfigType.STRING,
            default="",
            validator=LambdaValidator(_check_topic_prefix, "ASCII alphanumerics, '.', '_' and '-'"),
            importance=Importance.HIGH,
            documentation=("Put before each table name to make its topic; with query, the whole topic name."),
            group=CONNECTOR_GROUP,
            order_in_group=5,
            width=Width.MEDIUM,
            display_name="Topic Prefix",
        )
        .define(
            TIMESTAMP_DELAY_INTERVAL_MS_CONFIG,
            type=ConfigType.LONG,
            default=0,
            importance=Importance.HIGH,
            documentation=(
                "Timestamp modes only read rows at least this many milliseconds old, so that "
                "transactions still open with earlier timestamps are not skipped."
            ),
            group=CONNECTOR_GROUP,
            order_in_group=6,
            width=Width.MEDIUM,
            display_name="Delay Interval (ms)",
        )
        .define(
            QUERY_RETRIES_CONFIG,
            type=ConfigType.INT,
            default=-1,
            importance=Importance.LOW,
            documentation=(
                "How many times a query that failed for a reason other than the statement itself (the "
                "connection lost, the server restarting) is tried again, poll.interval.ms apart, before "
                "the task fails; -1: without limit. Errors of the statement (syntax, missing column) "
                "fail the task at once."
            ),
            group=MODE_GROUP,
            order_in_group=9,
            width=Width.MEDIUM,
            display_name="Query Retry Attempts",
        )
        .define(
            QUERY_MASKED_CONFIG,
            type=ConfigType.BOOLEAN,
            default=False,
            importance=Importance.LOW,
            documentation="Keep the text of query out of the logs (it is logged as <masked>).",
            group=MODE_GROUP,
            order_in_group=10,
            width=Width.SHORT,
            display_name="Mask Query",
        )
        .define(
            TRANSACTION_ISOLATION_MODE_CONFIG,
            type=ConfigType.STRING,
            default="DEFAULT",
            validator=one_of_ignoring_case(*ISOLATION_MODES),
            importance=Importance.LOW,
            documentation=(
                "The isolation level of the transactions the task's queries run in. DEFAULT: the "
                "database's own. A level the database does not offer (SQLite has only READ_UNCOMMITTED "
                "and SERIALIZABLE) is logged and the default kept; SQL_SERVER_SNAPSHOT is SQL Server's "
                "and is refused."
            ),
            group=MODE_GROUP,
            order_in_group=11,
            width=Width.MEDIUM,
            display_name="Transaction Isolation Mode",
        )
        .define(
            DB_TIMEZONE_CONFIG,
            type=ConfigType.STRING,
            default="UTC",
            validator=TIME_ZONE,
            importance=Importance.MEDIUM,
            documentation=(
                "The time zone of timestamp columns without one (PostgreSQL timestamp, MySQL "
                "DATETIME, SQLite text): their values are read, and compared, as times of this zone."
            ),
            group=CONNECTOR_GROUP,
            order_in_group=7,
            width=Width.MEDIUM,
            display_name="DB time zone",
        )
    )


def _valid_string(choices: tuple[str, ...]) -> LambdaValidator:
    def check(name: str, value: object) -> None:
        if value not in choices:
            raise ConfigException.invalid(name, value, "String must be one of: " + ", ".join(choices))

    return LambdaValidator(check, "[" + ", ".join(choices) + "]")


def _check_table_types(name: str, value: object) -> None:
    for item in value if isinstance(value, list) else []:
        if str(item).strip().upper() not in ("TABLE", "VIEW"):
            raise ConfigException.invalid(name, value, "Table types must be TABLE or VIEW")


SOURCE_CONFIG_DEF = _source_config_def()


@dataclass(frozen=True)
class SourceSettings:
    """A JdbcSourceConnector config, parsed and typed."""

    connection: ConnectionSettings
    mode: str
    incrementing_column: str
    timestamp_columns: tuple[str, ...]
    timestamp_initial: int | None
    timestamp_granularity: str
    validate_non_null: bool
    query: str
    query_suffix: str
    quote_identifiers: bool
    table_filter: TableFilter
    catalog_pattern: str | None
    schema_pattern: str | None
    table_types: tuple[str, ...]
    numeric_mapping: str
    topic_prefix: str
    poll_interval_ms: int
    batch_max_rows: int
    table_poll_interval_ms: int
    timestamp_delay_ms: int
    db_timezone: str
    query_retry_attempts: int
    query_masked: bool
    isolation_mode: str
    tables: tuple[str, ...]

    @classmethod
    def parse(cls, config: Mapping[str, str], *, check_table_filters: bool = True) -> SourceSettings:
        """Parse a connector or task config; raises ConfigException on a bad or unsupported value.

        With `check_table_filters`, the first of `table_filter_errors` is raised too (validate
        passes False and reports them all, each on its key).
        """
        p = SOURCE_CONFIG_DEF.parse(config)
        REFUSED.check(config)
        isolation_mode = str(p[TRANSACTION_ISOLATION_MODE_CONFIG]).upper()
        if isolation_mode == "SQL_SERVER_SNAPSHOT":
            raise ConfigException.invalid(
                TRANSACTION_ISOLATION_MODE_CONFIG, isolation_mode, SQL_SERVER_SNAPSHOT_REFUSED
            )
        numeric = p[NUMERIC_MAPPING_CONFIG]
        if numeric is None:
            numeric = "precision_only" if p[NUMERIC_PRECISION_MAPPING_CONFIG] else "none"
        tables = config.get(TABLES_CONFIG, "")
        settings = cls(
            connection=ConnectionSettings.from_parsed(p),
            mode=str(p[MODE_CONFIG]),
            incrementing_column=str(p[INCREMENTING_COLUMN_NAME_CONFIG] or ""),
            timestamp_columns=_strings(p[TIMESTAMP_COLUMN_NAME_CONFIG]),
            timestamp_initial=p[TIMESTAMP_INITIAL_CONFIG],  # type: ignore[arg-type]
            timestamp_granularity=str(p[TIMESTAMP_GRANULARITY_CONFIG]).lower(),
            validate_non_null=bool(p[VALIDATE_NON_NULL_CONFIG]),
            query=str(p[QUERY_CONFIG] or ""),
            query_suffix=str(p[QUERY_SUFFIX_CONFIG] or ""),
            quote_identifiers=str(p[QUOTE_SQL_IDENTIFIERS_CONFIG]).lower() == "always",
            table_filter=TableFilter(
                whitelist=_strings(p[TABLE_WHITELIST_CONFIG]),
                blacklist=_strings(p[TABLE_BLACKLIST_CONFIG]),
                include=_strings(p[TABLE_INCLUDE_LIST_CONFIG]),
                exclude=_strings(p[TABLE_EXCLUDE_LIST_CONFIG]),
            ),
            catalog_pattern=_optional(p[CATALOG_PATTERN_CONFIG]),
            schema_pattern=_optional(p[SCHEMA_PATTERN_CONFIG]),
            table_types=tuple(t.upper() for t in _strings(p[TABLE_TYPES_CONFIG])),
            numeric_mapping=str(numeric).lower(),
            topic_prefix=str(p[TOPIC_PREFIX_CONFIG]).strip(),
            poll_interval_ms=int(p[POLL_INTERVAL_MS_CONFIG]),  # type: ignore[call-overload]
            batch_max_rows=max(1, int(p[BATCH_MAX_ROWS_CONFIG])),  # type: ignore[call-overload]
            table_poll_interval_ms=int(p[TABLE_POLL_INTERVAL_MS_CONFIG]),  # type: ignore[call-overload]
            timestamp_delay_ms=int(p[TIMESTAMP_DELAY_INTERVAL_MS_CONFIG]),  # type: ignore[call-overload]
            db_timezone=str(p[DB_TIMEZONE_CONFIG]),
            query_retry_attempts=int(p[QUERY_RETRIES_CONFIG]),  # type: ignore[call-overload]
            query_masked=bool(p[QUERY_MASKED_CONFIG]),
            isolation_mode=isolation_mode,
            tables=tuple(t for t in tables.split(",") if t) if tables else (),
        )
        if check_table_filters:
            for key, messages in settings.table_filter_errors().items():
                raise ConfigException(messages[0], name=key, value=config.get(key))
        return settings

    def table_filter_errors(self) -> dict[str, list[str]]:
        """What Confluent's validation refuses in how the table-filtering keys are combined, per key."""
        return table_filter_errors(
            self.table_filter,
            mode=self.mode,
            query=self.query,
            incrementing_column=self.incrementing_column,
            timestamp_columns=self.timestamp_columns,
        )

    @property
    def uses_incrementing(self) -> bool:
        """Whether the mode reads an incrementing column."""
        return self.mode in (MODE_INCREMENTING, MODE_TIMESTAMP_INCREMENTING)

    @property
    def uses_timestamp(self) -> bool:
        """Whether the mode reads timestamp columns."""
        return self.mode in (MODE_TIMESTAMP, MODE_TIMESTAMP_INCREMENTING)


def _strings(value: object) -> tuple[str, ...]:
    return tuple(str(v).strip() for v in value if str(v).strip()) if isinstance(value, list) else ()


def _optional(value: object) -> str | None:
    return None if value is None or value == "" else str(value)
