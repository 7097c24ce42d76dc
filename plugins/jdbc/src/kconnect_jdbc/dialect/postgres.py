"""PostgreSQL through psycopg 3 (Confluent's ``PostgreSqlDatabaseDialect``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kconnect.data import schema as s
from kconnect.data.logical import Date, Decimal, Time, Timestamp
from sqlalchemy import Connection, Table, text
from sqlalchemy.dialects import postgresql
from sqlalchemy.sql.dml import Insert

from kconnect_jdbc.dialect.base import QueryColumn
from kconnect_jdbc.dialect.generic import GenericDialect

#: Schemas that hold the system catalogs, never copied.
SYSTEM_SCHEMAS = ("pg_catalog", "information_schema", "pg_toast")

#: Connect schemas of the type OIDs a custom query's result columns commonly have.
_OID_SCHEMAS: dict[int, s.Schema] = {
    16: s.OPTIONAL_BOOLEAN_SCHEMA,
    17: s.OPTIONAL_BYTES_SCHEMA,
    20: s.OPTIONAL_INT64_SCHEMA,
    21: s.OPTIONAL_INT16_SCHEMA,
    23: s.OPTIONAL_INT32_SCHEMA,
    25: s.OPTIONAL_STRING_SCHEMA,
    700: s.OPTIONAL_FLOAT32_SCHEMA,
    701: s.OPTIONAL_FLOAT64_SCHEMA,
    1042: s.OPTIONAL_STRING_SCHEMA,
    1043: s.OPTIONAL_STRING_SCHEMA,
    1082: Date.builder().optional().build(),
    1083: Time.builder().optional().build(),
    1114: Timestamp.builder().optional().build(),
    1184: Timestamp.builder().optional().build(),
    2950: s.OPTIONAL_STRING_SCHEMA,
    114: s.OPTIONAL_STRING_SCHEMA,
    3802: s.OPTIONAL_STRING_SCHEMA,
}
_NUMERIC_OID = 1700


class PostgreSqlDialect(GenericDialect):
    """PostgreSQL: schemas matter, sessions run in ``db.timezone``, upsert is ``ON CONFLICT``."""

    name = "PostgreSqlDatabaseDialect"

    def on_connect(self, dbapi_connection: Any, time_zone: str) -> None:
        """Run the session in `time_zone`, so naive timestamps compare as the connector reads them."""
        with dbapi_connection.cursor() as cursor:
            cursor.execute("SELECT set_config('TimeZone', %s, false)", (time_zone,))
        dbapi_connection.commit()

    def candidate_schemas(self, connection: Connection, pattern: str | None) -> list[str | None]:
        """Every non-system schema matching `pattern` (unset: all of them, as Confluent lists them)."""
        names = connection.execute(
            text("SELECT nspname FROM pg_namespace WHERE nspname !~ '^pg_(temp|toast)'")
        ).scalars()
        return sorted(n for n in names if n not in SYSTEM_SCHEMAS and self.schema_matches(pattern, n))

    def table_id(self, connection: Connection, name: str) -> Any:
        """``schema.table``, or ``table`` in the first schema of the search path."""
        schema, _, table = name.rpartition(".")
        if not schema:
            schema = connection.exec_driver_sql("SELECT current_schema()").scalar_one()
        return self.make_table_id(schema, table)

    def query_columns(
        self, description: Sequence[Sequence[Any]], rows: Sequence[Sequence[Any]]
    ) -> list[QueryColumn]:
        """Schemas from each column's type OID (numeric: Decimal at the column's scale)."""
        columns = []
        for column in description:
            oid = getattr(column, "type_code", None)
            schema = _OID_SCHEMAS.get(oid) if isinstance(oid, int) else None
            scale = getattr(column, "scale", None)
            if oid == _NUMERIC_OID:
                schema = (
                    Decimal.builder(scale).optional().build()
                    if scale is not None
                    else s.OPTIONAL_FLOAT64_SCHEMA
                )
            columns.append(QueryColumn(str(column[0]), schema))
        return columns

    def upsert(self, table: Table, key_columns: Sequence[str], value_columns: Sequence[str]) -> Insert:
        """``INSERT ... ON CONFLICT (keys) DO UPDATE SET col = EXCLUDED.col``."""
        statement = postgresql.insert(table)
        if not value_columns:
            return statement.on_conflict_do_nothing(index_elements=list(key_columns))
        return statement.on_conflict_do_update(
            index_elements=list(key_columns),
            set_={name: statement.excluded[name] for name in value_columns},
        )

    def fold_identifier(self, name: str) -> str:
        """PostgreSQL folds unquoted identifiers to lower case."""
        return name.lower()
