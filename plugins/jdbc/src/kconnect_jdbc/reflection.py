"""What a table looks like: its columns reflected through SQLAlchemy, with their Connect schemas."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kconnect.data.schema import Schema
from sqlalchemy import Connection, inspect
from sqlalchemy import types as sqltypes
from sqlalchemy.exc import NoSuchTableError

from kconnect_jdbc.dialect import DatabaseDialect, TableId
from kconnect_jdbc.schemas import column_schema


@dataclass(frozen=True)
class ColumnDefinition:
    """One reflected column: name, database type, nullability, whether it auto-increments, Connect schema."""

    name: str
    type: sqltypes.TypeEngine[Any]
    nullable: bool
    autoincrement: bool
    schema: Schema | None


def describe_table(
    connection: Connection,
    dialect: DatabaseDialect,
    table_id: TableId,
    *,
    numeric_mapping: str = "none",
) -> list[ColumnDefinition] | None:
    """The table's columns in order, or None when it does not exist."""
    inspector = inspect(connection)
    try:
        columns = inspector.get_columns(table_id.table, schema=dialect.sqlalchemy_schema(table_id))
        primary_key = inspector.get_pk_constraint(table_id.table, schema=dialect.sqlalchemy_schema(table_id))
    except NoSuchTableError:
        return None
    if not columns:
        return None
    key_columns = primary_key.get("constrained_columns") or []
    out = []
    for column in columns:
        # SQLite reports its INTEGER PRIMARY KEY as nullable, though it never holds NULL.
        nullable = bool(column.get("nullable", True)) and column["name"] not in key_columns
        flag: object = column.get("autoincrement")
        autoincrement = flag is True or (
            flag == "auto"
            and key_columns == [column["name"]]
            and isinstance(column["type"], sqltypes.Integer)
        )
        if column.get("identity") or _serial_default(column.get("default")):
            autoincrement = True
        out.append(
            ColumnDefinition(
                name=column["name"],
                type=column["type"],
                nullable=nullable,
                autoincrement=autoincrement,
                schema=column_schema(
                    column["type"],
                    optional=nullable,
                    numeric_mapping=numeric_mapping,
                    int_override=dialect.int_schema,
                ),
            )
        )
    return out


def primary_key_columns(connection: Connection, dialect: DatabaseDialect, table_id: TableId) -> list[str]:
    """The table's primary key column names, in key order."""
    constraint = inspect(connection).get_pk_constraint(
        table_id.table, schema=dialect.sqlalchemy_schema(table_id)
    )
    return list(constraint.get("constrained_columns") or [])


def _serial_default(default: object) -> bool:
    return isinstance(default, str) and default.startswith("nextval(")
