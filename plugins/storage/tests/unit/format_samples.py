"""Records of every Connect type for the format tests, and the plain values a reader should give.

`EVERY_TYPE` has each primitive and logical type, required and optional, a nested struct (optional,
with a required field), arrays and maps of primitives and of structs, and a field with a default.
`record(i)` is record `i` of a file; `expected(i)` its value as plain Python: structs as dicts,
maps as dicts, Date/Time/Timestamp as `datetime` values (timestamps aware, UTC), Decimal as
`decimal.Decimal`. Optional values are None on every third record, so nulls show in each column.
"""

from __future__ import annotations

import datetime
import decimal
from typing import Any

from kconnect import SinkRecord, Struct
from kconnect.data import logical
from kconnect.data.schema import Schema, SchemaBuilder

TOPIC = "orders"
UTC = datetime.timezone.utc

INNER = (
    SchemaBuilder.struct()
    .name("com.example.Inner")
    .field("id", SchemaBuilder.int32().build())
    .field("label", SchemaBuilder.string().optional().build())
    .optional()
    .build()
)

_REQUIRED_INNER = (
    SchemaBuilder.struct().name("com.example.Point").field("x", SchemaBuilder.float64().build()).build()
)

EVERY_TYPE = (
    SchemaBuilder.struct()
    .name("com.example.EveryType")
    .field("i8", SchemaBuilder.int8().build())
    .field("i16", SchemaBuilder.int16().build())
    .field("i32", SchemaBuilder.int32().build())
    .field("i64", SchemaBuilder.int64().build())
    .field("f32", SchemaBuilder.float32().build())
    .field("f64", SchemaBuilder.float64().build())
    .field("flag", SchemaBuilder.bool().build())
    .field("text", SchemaBuilder.string().build())
    .field("data", SchemaBuilder.bytes().build())
    .field("opt_i32", SchemaBuilder.int32().optional().build())
    .field("opt_text", SchemaBuilder.string().optional().build())
    .field("amount", logical.Decimal.builder(2).parameter("connect.decimal.precision", "10").build())
    .field(
        "opt_amount",
        logical.Decimal.builder(3).parameter("connect.decimal.precision", "20").optional().build(),
    )
    .field("day", logical.Date.builder().build())
    .field("opt_day", logical.Date.builder().optional().build())
    .field("at", logical.Time.builder().build())
    .field("ts", logical.Timestamp.builder().build())
    .field("opt_ts", logical.Timestamp.builder().optional().build())
    .field("inner", INNER)
    .field("point", _REQUIRED_INNER)
    .field("tags", SchemaBuilder.array(SchemaBuilder.string().build()).build())
    .field("maybe_ints", SchemaBuilder.array(SchemaBuilder.int64().optional().build()).optional().build())
    .field("inners", SchemaBuilder.array(INNER).build())
    .field("counts", SchemaBuilder.map(SchemaBuilder.string().build(), SchemaBuilder.int32().build()).build())
    .field("by_name", SchemaBuilder.map(SchemaBuilder.string().build(), INNER).optional().build())
    .field("level", SchemaBuilder.int32().default_value(7).build())
    .build()
)


def _optional(i: int, value: Any) -> Any:
    return None if i % 3 == 0 else value


def _inner(i: int) -> Struct:
    return Struct(INNER).put("id", i).put("label", _optional(i + 1, f"label {i}"))


def value(i: int, schema: Schema = EVERY_TYPE) -> Struct:
    """Record `i`'s value: a Struct of `EVERY_TYPE` (or of a schema equal to it)."""
    s = Struct(schema)
    s.put("i8", -128 + i % 256)
    s.put("i16", -32768 + i)
    s.put("i32", 2**31 - 1 - i)
    s.put("i64", -(2**63) + i)
    s.put("f32", 1.5 + i)
    s.put("f64", 0.1 * i)
    s.put("flag", i % 2 == 0)
    s.put("text", f"text {i} é ✓ \U0001f600")
    s.put("data", bytes([i % 256, 0, 255]))
    s.put("opt_i32", _optional(i, i))
    s.put("opt_text", _optional(i + 1, f"opt {i}"))
    s.put("amount", decimal.Decimal(f"{i}.{i % 100:02d}"))
    s.put("opt_amount", _optional(i, decimal.Decimal(f"-{i}.125")))
    s.put("day", datetime.date(2024, 2, 29) + datetime.timedelta(days=i))
    s.put("opt_day", _optional(i + 2, datetime.date(1969, 12, 31)))
    s.put("at", datetime.time(23, 59, 59, 999000))
    s.put("ts", datetime.datetime(2024, 5, 6, 7, 8, 9, 123000, tzinfo=UTC) + datetime.timedelta(seconds=i))
    s.put("opt_ts", _optional(i, datetime.datetime(1970, 1, 1, tzinfo=UTC)))
    s.put("inner", _optional(i + 1, _inner(i)))
    s.put("point", Struct(_REQUIRED_INNER).put("x", -0.5 * i))
    s.put("tags", [f"t{j}" for j in range(i % 3)])
    s.put("maybe_ints", _optional(i, [i, None, -i]))
    s.put("inners", [_inner(i), _inner(i + 1)])
    s.put("counts", {"a": i, "b": -i})
    s.put("by_name", _optional(i + 2, {"x": _inner(i), "none": None}))
    if i % 2 == 0:  # odd records leave it unset: readers see the default, 7
        s.put("level", 3)
    return s


def record(i: int, schema: Schema = EVERY_TYPE, topic: str = TOPIC) -> SinkRecord:
    """Record `i` of partition 0, at offset 100 + i."""
    return SinkRecord(
        topic=topic, kafka_partition=0, kafka_offset=100 + i, value_schema=schema, value=value(i, schema)
    )


def plain(v: Any) -> Any:
    """A Connect value as plain Python: Structs (with defaults applied) as dicts."""
    if isinstance(v, Struct):
        return {f.name: plain(v.get(f)) for f in v.schema.fields}
    if isinstance(v, list):
        return [plain(e) for e in v]
    if isinstance(v, dict):
        return {k: plain(e) for k, e in v.items()}
    return v


def expected(i: int) -> dict[str, Any]:
    """What a reader of the file should give for record `i`."""
    row: dict[str, Any] = plain(value(i))
    return row
