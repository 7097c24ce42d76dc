"""Schemas, SchemaBuilder and validate_value behave as Kafka's ConnectSchema and SchemaBuilder."""

from __future__ import annotations

import datetime as dt
import decimal
import re
from typing import Any

import pytest
from kconnect.data import (
    BOOLEAN_SCHEMA,
    FLOAT64_SCHEMA,
    INT8_SCHEMA,
    INT32_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    Date,
    Decimal,
    Schema,
    SchemaAndValue,
    SchemaBuilder,
    Struct,
    Type,
    validate_value,
)
from kconnect.errors import DataError, SchemaBuilderError


def test_type_wire_names_and_messages() -> None:
    names = "int8 int16 int32 int64 float32 float64 boolean string bytes array map struct"
    assert [t.value for t in Type] == names.split()
    assert str(Type.INT32) == "INT32"
    assert Type.STRUCT.is_primitive is False and Type.BYTES.is_primitive is True


def test_builder_sets_every_property() -> None:
    schema = (
        SchemaBuilder.int32()
        .name("n")
        .version(2)
        .doc("d")
        .parameter("p", "v")
        .default_value(5)
        .optional()
        .build()
    )
    assert schema == Schema(
        Type.INT32, optional=True, default_value=5, name="n", version=2, doc="d", parameters={"p": "v"}
    )
    assert hash(schema) == hash(SchemaBuilder.int32().name("n").version(2).optional().build())


def test_struct_fields_keep_order_and_index() -> None:
    schema = SchemaBuilder.struct().field("b", INT8_SCHEMA).field("a", STRING_SCHEMA).build()
    assert [(f.name, f.index) for f in schema.fields] == [("b", 0), ("a", 1)]
    field = schema.field("a")
    assert field is not None and field.schema == STRING_SCHEMA
    assert schema.field("missing") is None
    with pytest.raises(DataError, match="Cannot look up fields on non-struct type"):
        INT8_SCHEMA.field("a")


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (
            lambda: SchemaBuilder.int8().name("a").name("b"),
            "Invalid SchemaBuilder call: name has already been set.",
        ),
        (lambda: SchemaBuilder.int8().optional().required(), "optional has already been set"),
        (lambda: SchemaBuilder.int8().version(1).version(2), "version has already been set"),
        (lambda: SchemaBuilder.int8().field("a", INT8_SCHEMA), "Cannot create fields on type INT8"),
        (lambda: SchemaBuilder.struct().field("", INT8_SCHEMA), "fieldName cannot be null."),
        (
            lambda: SchemaBuilder.struct().field("a", INT8_SCHEMA).field("a", INT8_SCHEMA),
            "Cannot create field because of field name duplication a",
        ),
        (lambda: SchemaBuilder.array(None), "valueSchema cannot be null."),  # type: ignore[arg-type]
        (lambda: SchemaBuilder.map(None, INT8_SCHEMA), "keySchema cannot be null."),  # type: ignore[arg-type]
        (lambda: SchemaBuilder.int8().default_value(300), "Invalid default value"),
        (lambda: SchemaBuilder.string().default_value(5), "Invalid default value"),
    ],
)
def test_builder_errors(build: Any, message: str) -> None:
    with pytest.raises(SchemaBuilderError, match=re.escape(message)):
        build()


def test_setting_the_same_value_twice_is_allowed() -> None:
    assert SchemaBuilder.int8().name("a").name("a").build().name == "a"


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        (INT8_SCHEMA, 127),
        (INT8_SCHEMA, -128),
        (FLOAT64_SCHEMA, 1.5),
        (FLOAT64_SCHEMA, 2),
        (BOOLEAN_SCHEMA, False),
        (OPTIONAL_STRING_SCHEMA, None),
        (SchemaBuilder.bytes().build(), bytearray(b"x")),
        (SchemaBuilder.array(INT32_SCHEMA).build(), (1, 2)),
        (SchemaBuilder.map(STRING_SCHEMA, INT32_SCHEMA).build(), {"a": 1}),
        (Decimal.schema(2), decimal.Decimal("1.00")),
        (Date.SCHEMA, dt.date(2024, 1, 1)),
    ],
)
def test_valid_values(schema: Schema, value: Any) -> None:
    validate_value(schema, value)


@pytest.mark.parametrize(
    ("schema", "value", "message"),
    [
        (INT8_SCHEMA, 128, "Invalid value 128 for schema type INT8: out of range [-128, 127] for value"),
        (INT32_SCHEMA, True, "Invalid Python object for schema with type INT32: bool for value"),
        (FLOAT64_SCHEMA, False, "with type FLOAT64: bool"),
        (STRING_SCHEMA, None, "Invalid value: null used for required value, schema type: STRING"),
        (
            Date.SCHEMA,
            5,
            'Invalid Python object for schema "org.apache.kafka.connect.data.Date" with type INT32: int',
        ),
        (SchemaBuilder.array(INT8_SCHEMA).build(), [1, "x"], "for element of array value"),
        (SchemaBuilder.map(STRING_SCHEMA, INT8_SCHEMA).build(), {1: 1}, "for key of map value"),
        (Schema(Type.ARRAY), [1], "No schema defined for element of array value"),
    ],
)
def test_invalid_values(schema: Schema, value: Any, message: str) -> None:
    with pytest.raises(DataError, match=re.escape(message)):
        validate_value(schema, value)


def test_field_name_in_message() -> None:
    with pytest.raises(DataError, match='for field: "age"'):
        validate_value(INT8_SCHEMA, "x", "age")


def test_struct_schemas_must_match() -> None:
    one = SchemaBuilder.struct().field("a", INT8_SCHEMA).build()
    other = SchemaBuilder.struct().field("b", INT8_SCHEMA).build()
    with pytest.raises(DataError, match=r"Struct schemas do not match\."):
        validate_value(one, Struct(other).put("b", 1))


def test_default_equality_tells_bool_from_int() -> None:
    assert SchemaBuilder.int8().build() == INT8_SCHEMA
    assert Schema(Type.INT8, default_value=1) != Schema(Type.BOOLEAN, default_value=True)
    assert Schema(Type.INT64, default_value=1) != Schema(Type.INT64, default_value=True)


def test_schema_and_value_unpacks() -> None:
    schema, value = SchemaAndValue(INT8_SCHEMA, 1)
    assert (schema, value) == (INT8_SCHEMA, 1)
    assert SchemaAndValue.NULL == SchemaAndValue(None, None)
