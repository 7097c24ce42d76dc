"""Connect's schema values: `Type`, the frozen `Schema` and `Field`, `SchemaAndValue`, the constant schemas.

The Python twin of Kafka's ``ConnectSchema``. A `Schema` is immutable and hashable (its hash is
computed once), so converters can cache per-schema work keyed on it. This module is the bottom of
`kconnect.data`: `struct` (values checked against schemas), `schema` (`SchemaBuilder`, and the
public home of every name here) and `logical` build on it. Import these names from
`kconnect.data.schema` or `kconnect.data`.
"""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import Enum
from types import MappingProxyType
from typing import Any, ClassVar

from kconnect.errors import DataError
from kconnect.frozen_init import fast_init


class Type(str, Enum):
    """A schema's type, valued with Kafka's lower-case wire name (Kafka's `Schema.Type`)."""

    INT8 = "int8"
    INT16 = "int16"
    INT32 = "int32"
    INT64 = "int64"
    FLOAT32 = "float32"
    FLOAT64 = "float64"
    BOOLEAN = "boolean"
    STRING = "string"
    BYTES = "bytes"
    ARRAY = "array"
    MAP = "map"
    STRUCT = "struct"

    @property
    def is_primitive(self) -> bool:
        """Whether the type holds a single value (everything but ARRAY, MAP and STRUCT)."""
        return self not in (Type.ARRAY, Type.MAP, Type.STRUCT)

    def __str__(self) -> str:
        # Kafka's messages print the enum constant ("INT32"), so ours do too.
        return self.name


@dataclass(frozen=True, slots=True)
class Field:
    """One field of a STRUCT schema: its name, its position and its schema."""

    name: str
    index: int
    schema: Schema


@dataclass(frozen=True, eq=False)
class Schema:
    """An immutable Connect schema (Kafka's `ConnectSchema`).

    `fields` is empty unless the type is STRUCT; `key_schema` is set only for MAP and `value_schema`
    for ARRAY and MAP. `parameters` is a read-only mapping or None. Prefer `SchemaBuilder`, which
    checks its input, over calling this constructor.
    """

    type: Type
    optional: bool = False
    default_value: Any = None
    name: str | None = None
    version: int | None = None
    doc: str | None = None
    parameters: Mapping[str, str] | None = None
    fields: tuple[Field, ...] = ()
    key_schema: Schema | None = None
    value_schema: Schema | None = None
    _fields_by_name: Mapping[str, Field] = field(init=False, repr=False)
    _hash: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.parameters is not None and not isinstance(self.parameters, MappingProxyType):
            object.__setattr__(self, "parameters", MappingProxyType(dict(self.parameters)))
        object.__setattr__(self, "fields", tuple(self.fields))
        object.__setattr__(self, "_fields_by_name", {f.name: f for f in self.fields})
        key = (
            self.type,
            self.optional,
            self.name,
            self.version,
            self.fields,
            self.key_schema,
            self.value_schema,
        )
        object.__setattr__(self, "_hash", hash(key))

    def field(self, name: str) -> Field | None:
        """The field called `name`, or None; raises DataError when this is not a STRUCT schema."""
        if self.type is not Type.STRUCT:
            raise DataError("Cannot look up fields on non-struct type")
        return self._fields_by_name.get(name)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Schema) or self._hash != other._hash:
            return False
        return (
            self.type is other.type
            and self.optional == other.optional
            and self.name == other.name
            and self.version == other.version
            and self.doc == other.doc
            and self.fields == other.fields
            and self.key_schema == other.key_schema
            and self.value_schema == other.value_schema
            and same_value(self.default_value, other.default_value)
            and self.parameters == other.parameters
        )

    def __str__(self) -> str:
        return f"Schema{{{self.name}:{self.type}}}" if self.name is not None else f"Schema{{{self.type}}}"


def same_value(a: Any, b: Any) -> bool:
    """Whether two default values are the same; unlike ``==``, True is not the same as 1."""
    return type(a) is type(b) and bool(a == b)


@fast_init
@dataclass(frozen=True, slots=True)
class SchemaAndValue:
    """A schema with a value of it, as converters return (Kafka's `SchemaAndValue`).

    Unpacks as a pair: ``schema, value = converter.to_connect_data(topic, data)``.
    """

    schema: Schema | None
    value: Any

    NULL: ClassVar[SchemaAndValue]

    def __iter__(self) -> Iterator[Any]:
        yield self.schema
        yield self.value


SchemaAndValue.NULL = SchemaAndValue(None, None)

INT8_SCHEMA = Schema(Type.INT8)
INT16_SCHEMA = Schema(Type.INT16)
INT32_SCHEMA = Schema(Type.INT32)
INT64_SCHEMA = Schema(Type.INT64)
FLOAT32_SCHEMA = Schema(Type.FLOAT32)
FLOAT64_SCHEMA = Schema(Type.FLOAT64)
BOOLEAN_SCHEMA = Schema(Type.BOOLEAN)
STRING_SCHEMA = Schema(Type.STRING)
BYTES_SCHEMA = Schema(Type.BYTES)
OPTIONAL_INT8_SCHEMA = Schema(Type.INT8, optional=True)
OPTIONAL_INT16_SCHEMA = Schema(Type.INT16, optional=True)
OPTIONAL_INT32_SCHEMA = Schema(Type.INT32, optional=True)
OPTIONAL_INT64_SCHEMA = Schema(Type.INT64, optional=True)
OPTIONAL_FLOAT32_SCHEMA = Schema(Type.FLOAT32, optional=True)
OPTIONAL_FLOAT64_SCHEMA = Schema(Type.FLOAT64, optional=True)
OPTIONAL_BOOLEAN_SCHEMA = Schema(Type.BOOLEAN, optional=True)
OPTIONAL_STRING_SCHEMA = Schema(Type.STRING, optional=True)
OPTIONAL_BYTES_SCHEMA = Schema(Type.BYTES, optional=True)


# The names of Connect's logical types (`kconnect.data.logical` defines each type on them) and the
# Python class of each one's values (Kafka's `ConnectSchema.LOGICAL_TYPE_CLASSES`). They sit here,
# below `SchemaBuilder` and `validate_value`, because the builder checks a default with
# `validate_value`, which needs them, and the logical types are built with the builder.
DECIMAL_LOGICAL_NAME = "org.apache.kafka.connect.data.Decimal"
DATE_LOGICAL_NAME = "org.apache.kafka.connect.data.Date"
TIME_LOGICAL_NAME = "org.apache.kafka.connect.data.Time"
TIMESTAMP_LOGICAL_NAME = "org.apache.kafka.connect.data.Timestamp"
LOGICAL_TYPE_CLASSES: Mapping[str, tuple[type, ...]] = MappingProxyType(
    {
        DECIMAL_LOGICAL_NAME: (decimal.Decimal,),
        DATE_LOGICAL_NAME: (datetime.date,),
        TIME_LOGICAL_NAME: (datetime.time,),
        TIMESTAMP_LOGICAL_NAME: (datetime.datetime,),
    }
)
