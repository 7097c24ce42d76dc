"""Connect schemas -> Arrow types, and columns of Connect values -> Arrow arrays.

The mapping keeps each Connect type's width and meaning, so Parquet readers (Spark, pyarrow) see
the types the records had:

===========================  =============================================================
Connect                      Arrow (Parquet)
===========================  =============================================================
int8, int16, int32, int64    int8, int16, int32, int64 (INT32 with INT(8)/INT(16), INT64)
float32, float64, boolean    float32, float64, bool
string, bytes                string (UTF8), binary
Decimal (scale s)            decimal128(p, s): p from ``connect.decimal.precision``, else 38
Date, Time, Timestamp        date32, time64[us], timestamp[ms, tz=UTC]
array, map, struct           list, map, struct (nullable as the Connect schema is optional)
===========================  =============================================================

Columns are converted a chunk of records at a time: values pyarrow reads natively (every
primitive and logical value, lists and dicts of them) go to one `pyarrow.array` call per column;
structs are split into their fields' columns (`Struct.values` transposed with `zip`), and arrays
and maps of structs are flattened into offsets and child columns.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import operator
from collections.abc import Callable, Sequence
from typing import Any

import pyarrow as pa
from kconnect.data import logical
from kconnect.data.schema import Field, Schema, Type
from kconnect.data.struct import Struct
from kconnect.errors import DataError

#: The precision of a Decimal schema without ``connect.decimal.precision``: Arrow's decimal128 and
#: Spark's largest (Confluent's AvroData says 64, which neither Spark nor decimal128 can read).
DEFAULT_DECIMAL_PRECISION = 38
DECIMAL_PRECISION_PARAMETER = "connect.decimal.precision"

_PRIMITIVES: dict[Type, pa.DataType] = {
    Type.INT8: pa.int8(),
    Type.INT16: pa.int16(),
    Type.INT32: pa.int32(),
    Type.INT64: pa.int64(),
    Type.FLOAT32: pa.float32(),
    Type.FLOAT64: pa.float64(),
    Type.BOOLEAN: pa.bool_(),
    Type.STRING: pa.string(),
    Type.BYTES: pa.binary(),
}

_LOGICAL: dict[str, pa.DataType] = {
    logical.Date.LOGICAL_NAME: pa.date32(),
    # Microseconds, not Connect's milliseconds: Spark reads Parquet TIME(MICROS) (as TIME(6), with
    # spark.sql.timeType.enabled) and refuses TIME(MILLIS); every millisecond value fits exactly.
    logical.Time.LOGICAL_NAME: pa.time64("us"),
    logical.Timestamp.LOGICAL_NAME: pa.timestamp("ms", tz="UTC"),
}

Column = Callable[[Sequence[Any]], pa.Array]


def arrow_schema(schema: Schema) -> pa.Schema:
    """The Arrow schema of a file of records with this STRUCT value schema."""
    if schema.type is not Type.STRUCT:
        raise DataError(f"Parquet files need a STRUCT value schema, not {schema.type}")
    return pa.schema([arrow_field(f.name, f.schema) for f in _fields(schema)])


def arrow_field(name: str, schema: Schema) -> pa.Field:
    """An Arrow field of a Connect schema, nullable when the schema is optional."""
    return pa.field(name, arrow_type(schema), nullable=schema.optional)


def arrow_type(schema: Schema) -> pa.DataType:
    """The Arrow type of a Connect schema (see the module's table)."""
    if schema.name == logical.Decimal.LOGICAL_NAME:
        return _decimal_type(schema)
    if schema.name is not None and schema.name in _LOGICAL:
        return _LOGICAL[schema.name]
    primitive = _PRIMITIVES.get(schema.type)
    if primitive is not None:
        return primitive
    if schema.type is Type.ARRAY:
        return pa.list_(arrow_field("element", _child(schema.value_schema, schema)))
    if schema.type is Type.MAP:
        key = _child(schema.key_schema, schema)
        value = _child(schema.value_schema, schema)
        return pa.map_(arrow_type(key), arrow_field("value", value))
    return pa.struct([arrow_field(f.name, f.schema) for f in _fields(schema)])


def _fields(schema: Schema) -> tuple[Field, ...]:
    if not schema.fields:
        raise DataError(f"Parquet cannot hold a struct without fields: {schema.name or 'the value schema'}")
    return schema.fields


def _decimal_type(schema: Schema) -> pa.DataType:
    scale = logical.Decimal.scale(schema)
    text = (schema.parameters or {}).get(DECIMAL_PRECISION_PARAMETER)
    try:
        precision = DEFAULT_DECIMAL_PRECISION if text is None else int(text)
    except ValueError as e:
        raise DataError(f"Invalid {DECIMAL_PRECISION_PARAMETER} in Decimal schema: {text!r}") from e
    if precision > 38:
        return pa.decimal256(precision, scale)
    return pa.decimal128(precision, scale)


def _child(child: Schema | None, parent: Schema) -> Schema:
    if child is None:
        raise DataError(f"{parent.type} schema without its element schema")
    return child


def _native(schema: Schema) -> bool:
    """Whether `pyarrow.array` converts Python values of this schema as they are."""
    if schema.type is Type.STRUCT or schema.default_value is not None:
        return False
    if schema.type is Type.ARRAY:
        return _native(_child(schema.value_schema, schema))
    if schema.type is Type.MAP:
        return _native(_child(schema.key_schema, schema)) and _native(_child(schema.value_schema, schema))
    return True


def compile_column(schema: Schema) -> Column:
    """A function from a column of Connect values of `schema` to its Arrow array."""
    kind = arrow_type(schema)
    if _native(schema):
        return lambda values: pa.array(values, type=kind)
    if schema.default_value is not None:
        default = schema.default_value
        inner = compile_column(_without_default(schema))
        return lambda values: inner([default if v is None else v for v in values])
    if schema.type is Type.STRUCT:
        return _struct_column(schema, kind)
    if schema.type is Type.ARRAY:
        return _array_column(schema, kind)
    return _map_column(schema, kind)


def _without_default(schema: Schema) -> Schema:
    return dataclasses.replace(schema, default_value=None)


def struct_columns(schema: Schema) -> Callable[[Sequence[Struct]], list[pa.Array]]:
    """A function from Structs of `schema` (none of them None) to one Arrow array per field."""
    columns = [(compile_column(f.schema), operator.itemgetter(f.index)) for f in schema.fields]

    def convert(structs: Sequence[Struct]) -> list[pa.Array]:
        rows = [s.values() for s in structs]
        # One C-level pass per field (zip(*rows) would make a tuple per field of every row at once).
        return [column(list(map(pick, rows))) for column, pick in columns]

    return convert


def _struct_column(schema: Schema, kind: pa.DataType) -> Column:
    fields = [kind.field(i) for i in range(kind.num_fields)]
    blank = Struct.unchecked(schema, [_blank(f.schema) for f in schema.fields])
    children = struct_columns(schema)

    def convert(values: Sequence[Any]) -> pa.Array:
        mask = [v is None for v in values]
        if not any(mask):
            return pa.StructArray.from_arrays(children(values), fields=fields)
        filled = [blank if v is None else v for v in values]
        return pa.StructArray.from_arrays(children(filled), fields=fields, mask=pa.array(mask, pa.bool_()))

    return convert


_ZEROS: dict[Type, Any] = {
    Type.INT8: 0,
    Type.INT16: 0,
    Type.INT32: 0,
    Type.INT64: 0,
    Type.FLOAT32: 0.0,
    Type.FLOAT64: 0.0,
    Type.BOOLEAN: False,
    Type.STRING: "",
    Type.BYTES: b"",
}

_LOGICAL_ZEROS: dict[str, Any] = {
    logical.Date.LOGICAL_NAME: logical.EPOCH_DATE,
    logical.Time.LOGICAL_NAME: datetime.time(0),
    logical.Timestamp.LOGICAL_NAME: logical.EPOCH,
}


def _blank(schema: Schema) -> Any:
    """A stand-in value under a null parent: never read, but Parquet wants required fields set."""
    if schema.optional:
        return None
    if schema.name == logical.Decimal.LOGICAL_NAME:
        return decimal.Decimal(0).scaleb(-logical.Decimal.scale(schema))
    if schema.name in _LOGICAL_ZEROS:
        return _LOGICAL_ZEROS[schema.name]
    if schema.type is Type.ARRAY:
        return []
    if schema.type is Type.MAP:
        return {}
    if schema.type is Type.STRUCT:
        return Struct.unchecked(schema, [_blank(f.schema) for f in schema.fields])
    return _ZEROS[schema.type]


def _offsets(values: Sequence[Any]) -> tuple[pa.Array, list[bool]]:
    offsets = [0]
    mask = []
    total = 0
    for v in values:
        if v is None:
            mask.append(True)
        else:
            mask.append(False)
            total += len(v)
        offsets.append(total)
    return pa.array(offsets, pa.int32()), mask


def _array_column(schema: Schema, kind: pa.DataType) -> Column:
    elements = compile_column(_child(schema.value_schema, schema))

    def convert(values: Sequence[Any]) -> pa.Array:
        offsets, mask = _offsets(values)
        flat = [e for v in values if v is not None for e in v]
        array = pa.ListArray.from_arrays(offsets, elements(flat), type=kind, mask=_mask(mask))
        return array

    return convert


def _map_column(schema: Schema, kind: pa.DataType) -> Column:
    keys = compile_column(_child(schema.key_schema, schema))
    items = compile_column(_child(schema.value_schema, schema))

    def convert(values: Sequence[Any]) -> pa.Array:
        offsets, mask = _offsets(values)
        pairs = [kv for v in values if v is not None for kv in v.items()]
        flat_keys = [k for k, _ in pairs]
        flat_items = [i for _, i in pairs]
        return pa.MapArray.from_arrays(
            offsets, keys(flat_keys), items(flat_items), type=kind, mask=_mask(mask)
        )

    return convert


def _mask(mask: list[bool]) -> pa.Array | None:
    return pa.array(mask, pa.bool_()) if any(mask) else None
