"""The compiled Avro codec (binary_writer, binary_reader) against the reference path (values + fastavro).

For every Connect schema of the Avro unit and integration test tables, under the settings those
tables use and with ``ignore.default.for.nullables`` and ``scrub.invalid.names``, the table's value
and seeded random values (every type and logical type, nulls, defaults, unions, nested structs,
arrays, maps) are written both ways: the bytes must be equal; each payload is read back both ways:
the values must be equal (and print the same, so a Decimal's scale counts). The reference is
`AvroFormat.encode_with_fastavro` / `decode_with_fastavro`, the path the format falls back to.
"""

from __future__ import annotations

import datetime
import decimal
import importlib.util
import random
import string
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from kconnect.data import logical
from kconnect.data.schema import Schema, SchemaBuilder, Type
from kconnect.data.struct import Struct
from kconnect.errors import DataError
from kconnect_schema_registry.avro.binary_reader import Tuples, payload_reader
from kconnect_schema_registry.avro.binary_writer import payload_writer
from kconnect_schema_registry.avro.config import AvroDataSettings
from kconnect_schema_registry.avro.format import AvroFormat, ParsedAvro
from kconnect_schema_registry.avro.names import AVRO_TYPE_ENUM, is_union_schema

from plugins.schema_registry.tests.unit import test_avro_mapping as unit_table

ROUNDS = 40
HEADER = b"\x00\x00\x00\x00\x07"


def _integration_table() -> ModuleType:
    path = Path(__file__).parents[1] / "integration" / "test_avro_converter.py"
    spec = importlib.util.spec_from_file_location("avro_converter_table", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


INTEGRATION = _integration_table()
OPT_I32 = SchemaBuilder.int32().optional().build()
EXTRA: list[tuple[str, Schema]] = [
    (
        "bench row",
        SchemaBuilder.struct()
        .name("bench.Row")
        .field("id", SchemaBuilder.int64().build())
        .field("name", SchemaBuilder.string().build())
        .field("qty", SchemaBuilder.int32().build())
        .field("price", SchemaBuilder.float64().build())
        .field("flag", SchemaBuilder.bool().build())
        .field("note", SchemaBuilder.string().build())
        .build(),
    ),
    (
        "optional array of optional maps",
        SchemaBuilder.array(SchemaBuilder.map(SchemaBuilder.string().build(), OPT_I32).optional().build())
        .optional()
        .build(),
    ),
    (
        "map of int8 keys to timestamps",
        SchemaBuilder.map(
            SchemaBuilder.int8().build(), logical.Timestamp.builder().optional().build()
        ).build(),
    ),
    (
        "optional struct with defaults",
        SchemaBuilder.struct()
        .name("x.D")
        .optional()
        .field("a", SchemaBuilder.int16().default_value(7).build())
        .field("b", SchemaBuilder.string().optional().default_value("z").build())
        .field("c", SchemaBuilder.float32().optional().build())
        .build(),
    ),
]

# (id, settings, schema): each table schema under its own settings and two more.
SETTINGS = [
    AvroDataSettings(),
    AvroDataSettings(enhanced_schema_support=True),
    AvroDataSettings(ignore_default_for_nullables=True, scrub_invalid_names=True),
]
SCHEMAS: list[tuple[str, Schema, Any]] = (
    [(f"unit {name}", schema, None) for name, schema, _ in unit_table.CASES]
    + [("unit everything", unit_table.EVERYTHING, unit_table.everything())]
    + [(f"integration {c[0]}", c[1], c[2]) for c in INTEGRATION.CASES]
    + [(f"extra {name}", schema, None) for name, schema in EXTRA]
)


# --- seeded random Connect values -----------------------------------------------------------------


def random_value(schema: Schema, rng: random.Random, depth: int = 0) -> Any:
    if schema.optional and rng.random() < 0.25:
        return None
    name = schema.name
    if name == logical.Decimal.LOGICAL_NAME:
        scale = logical.Decimal.scale(schema)
        params = schema.parameters or {}
        precision = int(params.get("connect.decimal.precision", "18"))
        if "connect.fixed.size" in params:
            precision = min(precision, 2 * int(params["connect.fixed.size"]))
        digits = rng.randint(1, max(1, min(precision, 30)))
        unscaled = rng.randint(-(10**digits) + 1, 10**digits - 1)
        return decimal.Decimal(unscaled).scaleb(-scale)
    if name == logical.Date.LOGICAL_NAME:
        return datetime.date(1970, 1, 1) + datetime.timedelta(days=rng.randint(-200_000, 200_000))
    if name == logical.Time.LOGICAL_NAME:
        millis = rng.randint(0, logical.MILLIS_PER_DAY - 1)
        return (datetime.datetime(2000, 1, 1) + datetime.timedelta(milliseconds=millis)).time()
    if name == logical.Timestamp.LOGICAL_NAME:
        return logical.EPOCH + datetime.timedelta(milliseconds=rng.randint(-(2**45), 2**45))
    kind = schema.type
    params = schema.parameters or {}
    if kind is Type.STRING and AVRO_TYPE_ENUM in params:
        return rng.choice([v for k, v in params.items() if k.startswith(AVRO_TYPE_ENUM + ".")])
    if kind is Type.BYTES and "connect.fixed.size" in params:
        return rng.randbytes(int(params["connect.fixed.size"]))
    bits = {Type.INT8: 8, Type.INT16: 16, Type.INT32: 32, Type.INT64: 64}.get(kind)
    if bits is not None:
        return rng.choice(
            [
                0,
                -1,
                1,
                63,
                -64,
                64,
                rng.randint(-(2 ** (bits - 1)), 2 ** (bits - 1) - 1),
                -(2 ** (bits - 1)),
                2 ** (bits - 1) - 1,
            ]
        )
    if kind is Type.FLOAT32:
        return rng.choice([0.0, -0.0, 1.5, rng.uniform(-1e6, 1e6), 3.4e38, -1e39, float("inf")])
    if kind is Type.FLOAT64:
        return rng.choice([0.0, -2.5, rng.uniform(-1e300, 1e300), float("-inf"), 5e-324])
    if kind is Type.BOOLEAN:
        return rng.random() < 0.5
    if kind is Type.STRING:
        size = rng.choice([0, 1, 5, 63, 64, 200])
        return "".join(rng.choice(string.ascii_letters + "éü✓\U0001f600") for _ in range(size))
    if kind is Type.BYTES:
        return rng.randbytes(rng.choice([0, 3, 64, 130]))
    if kind is Type.ARRAY:
        assert schema.value_schema is not None
        return [
            random_value(schema.value_schema, rng, depth + 1)
            for _ in range(rng.randint(0, 3 if depth else 6))
        ]
    if kind is Type.MAP:
        assert schema.key_schema is not None and schema.value_schema is not None
        if schema.key_schema.type in (Type.STRUCT, Type.ARRAY, Type.MAP):
            return {}
        out = {}
        for _ in range(rng.randint(0, 4)):
            key = random_value(schema.key_schema, rng, depth + 1)
            out[key] = random_value(schema.value_schema, rng, depth + 1)
        return out
    struct = Struct(schema)
    fields = schema.fields
    if is_union_schema(schema):
        fields = [rng.choice(fields)] if fields and rng.random() < 0.9 else []
    for f in fields:
        struct.values()[f.index] = random_value(f.schema, rng, depth + 1)
    return struct


def encodable(fmt: AvroFormat, writer: ParsedAvro, schema: Schema, value: Any) -> bytes | None:
    try:
        return fmt.encode_with_fastavro(writer, schema, value)
    except (DataError, ValueError, TypeError, OverflowError):
        return None


@pytest.mark.parametrize("settings", SETTINGS, ids=["default", "enhanced", "ignore-defaults+scrub"])
@pytest.mark.parametrize(("schema", "table_value"), [c[1:] for c in SCHEMAS], ids=[c[0] for c in SCHEMAS])
def test_compiled_codec_writes_and_reads_as_fastavro(
    settings: AvroDataSettings, schema: Schema, table_value: Any
) -> None:
    fmt = AvroFormat(settings)
    writer = fmt.from_connect_schema(schema)
    reader = fmt.parse(fmt.schema_text(writer), None)  # type: ignore[arg-type]  # no references
    connect = fmt.to_connect_schema(reader)
    assert connect is not None
    if writer.avro.type == "bytes":
        return  # a top-level bytes payload is the value itself, outside either codec
    write = payload_writer(fmt.mapping, schema, writer.avro)
    decode = payload_reader(
        fmt.mapping, connect, reader.avro, Tuples(reader.named_reads, reader.branch_reads)
    )
    assert write is not None, "every schema Confluent's mapping makes is compiled"
    assert decode is not None, "every schema Confluent's mapping reads is compiled"
    framed = fmt.framed_encoder(writer, schema, HEADER)
    rng = random.Random(f"{schema}{settings}")
    values = [random_value(schema, rng) for _ in range(ROUNDS)]
    if table_value is not None:
        values.append(table_value)
    checked = 0
    for value in values:
        expected = encodable(fmt, writer, schema, value)
        if expected is None:
            with pytest.raises((DataError, ValueError, TypeError, OverflowError)):
                write(value)
            continue
        payload = write(value)
        assert payload == expected, value
        assert fmt.encode(writer, schema, value) == expected
        assert framed is not None and framed(value) == HEADER + expected
        want = fmt.decode_with_fastavro(reader, connect, memoryview(payload))
        got = decode(memoryview(payload))
        assert got == want
        assert repr(got) == repr(want)
        assert fmt.decode(reader, connect, memoryview(payload)) == want
        checked += 1
    assert checked >= len(values) // 2


LOOSE = (
    SchemaBuilder.struct()
    .name("x.Loose")
    .field("i32", SchemaBuilder.int32().build())
    .field("opt_i32", OPT_I32)
    .field("f32", SchemaBuilder.float32().build())
    .field("opt_f64", SchemaBuilder.float64().optional().build())
    .field("s", SchemaBuilder.string().build())
    .field("opt_s", SchemaBuilder.string().optional().build())
    .field("flag", SchemaBuilder.bool().build())
    .field("b", SchemaBuilder.bytes().build())
    .build()
)
GOOD = {
    "i32": 1,
    "opt_i32": None,
    "f32": 1.0,
    "opt_f64": None,
    "s": "",
    "opt_s": None,
    "flag": False,
    "b": b"",
}


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("i32", 2**40),  # beyond INT32, written as a long by fastavro
        ("i32", 2**63),
        ("i32", 1.9),  # fastavro truncates a float written as an int
        ("i32", True),
        ("i32", "1"),
        ("opt_i32", 2**40),  # a union branch is checked: refused
        ("opt_i32", True),
        ("f32", 1e39),
        ("f32", 7),
        ("f32", "x"),
        ("opt_f64", 3),
        ("opt_f64", True),
        ("s", b"x"),
        ("s", 5),
        ("opt_s", 5),
        ("flag", 2),
        ("b", bytearray(b"ab")),
        ("b", 3),  # bytes(3): three zero bytes, as the old encoder made them
        ("b", "x"),
    ],
)
def test_values_outside_connect_types_write_as_fastavro_or_fail_as_it(field: str, value: Any) -> None:
    """Structs built without `put`'s checks: the same bytes as fastavro, or an error where it fails."""
    fmt = AvroFormat(AvroDataSettings())
    writer = fmt.from_connect_schema(LOOSE)
    slots = {f.name: f.index for f in LOOSE.fields}
    struct = Struct(LOOSE)
    for name, good in {**GOOD, field: value}.items():
        struct.values()[slots[name]] = good
    expected = encodable(fmt, writer, LOOSE, struct)
    if expected is None:
        with pytest.raises((DataError, ValueError, TypeError, OverflowError)):
            fmt.encode(writer, LOOSE, struct)
    else:
        assert fmt.encode(writer, LOOSE, struct) == expected
