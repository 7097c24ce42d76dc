"""The ``DEFAULT`` clause ``auto.create``/``auto.evolve`` give a column whose field has a default value.

Confluent's ``GenericDatabaseDialect.writeColumnSpec``/``formatColumnValue``: the schema's default
value written as a SQL literal of the column's type; Decimals as numbers, Dates, Times and
Timestamps as quoted text (Timestamps as times of ``db.timezone``, as the sink writes them),
booleans as the database spells them. The literal is rendered by the database's SQLAlchemy dialect
(so quotes and, on MySQL, backslashes are escaped), BYTES by `DatabaseDialect.binary_literal`.
`TableStructure` calls `default_clause` for each column it creates or adds.
"""

from __future__ import annotations

import datetime
import zoneinfo

from kconnect.data.logical import Decimal, Timestamp
from kconnect.data.schema import Schema, Type
from sqlalchemy import literal
from sqlalchemy.engine import Dialect

from kconnect_jdbc.dialect import DatabaseDialect


def default_clause(
    schema: Schema, dialect: DatabaseDialect, sql_dialect: Dialect, zone: zoneinfo.ZoneInfo
) -> str | None:
    """The SQL literal of `schema`'s default value for a column of `dialect`; None without a default."""
    value = schema.default_value
    if value is None:
        return None
    if schema.type is Type.BYTES and schema.name != Decimal.LOGICAL_NAME:
        return dialect.binary_literal(bytes(value))
    if schema.name == Timestamp.LOGICAL_NAME and isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=datetime.timezone.utc)
        value = value.astimezone(zone).replace(tzinfo=None)
    column_type = dialect.column_type(schema, is_key=False)
    rendered = literal(value, column_type).compile(
        dialect=sql_dialect, compile_kwargs={"literal_binds": True}
    )
    return str(rendered)
