"""`project` follows Kafka's SchemaProjector: promotions, optional and default rules, structs by name,
containers element by element, and Kafka's messages when schemas do not fit (the cases of Kafka's
SchemaProjectorTest, plus the messages and the Python-specific edges)."""

from __future__ import annotations

import datetime
import decimal
import re
from typing import Any

import pytest
from kconnect.data import (
    BOOLEAN_SCHEMA,
    BYTES_SCHEMA,
    FLOAT32_SCHEMA,
    FLOAT64_SCHEMA,
    INT8_SCHEMA,
    INT16_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_BOOLEAN_SCHEMA,
    OPTIONAL_BYTES_SCHEMA,
    OPTIONAL_FLOAT32_SCHEMA,
    OPTIONAL_FLOAT64_SCHEMA,
    OPTIONAL_INT8_SCHEMA,
    OPTIONAL_INT16_SCHEMA,
    OPTIONAL_INT32_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    Date,
    Decimal,
    Schema,
    SchemaBuilder,
    Struct,
    Time,
    Timestamp,
    Type,
    project,
)
from kconnect.errors import DataError, SchemaProjectorError

NUMERIC = [INT8_SCHEMA, INT16_SCHEMA, INT32_SCHEMA, INT64_SCHEMA, FLOAT32_SCHEMA, FLOAT64_SCHEMA]
OPTIONAL_NUMERIC = [
    OPTIONAL_INT8_SCHEMA,
    OPTIONAL_INT16_SCHEMA,
    OPTIONAL_INT32_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    OPTIONAL_FLOAT32_SCHEMA,
    OPTIONAL_FLOAT64_SCHEMA,
]
# One value per numeric type, each at or near the top of the type below it.
NUMERIC_VALUES = [127, 255, 32767, 327890, 1.2, 1.2345]
OPTIONAL_WITHOUT_DEFAULT = (
    "Writer schema is optional, however, target schema does not provide a default value."
)


# --- primitives -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "value", "target"),
    [
        (BOOLEAN_SCHEMA, False, BOOLEAN_SCHEMA),
        (BYTES_SCHEMA, b"\x01\x02", BYTES_SCHEMA),
        (STRING_SCHEMA, "abc", STRING_SCHEMA),
        (BOOLEAN_SCHEMA, False, OPTIONAL_BOOLEAN_SCHEMA),
        (BYTES_SCHEMA, b"\x01\x02", OPTIONAL_BYTES_SCHEMA),
        (STRING_SCHEMA, "abc", OPTIONAL_STRING_SCHEMA),
    ],
)
def test_a_primitive_projects_onto_its_own_type_unchanged(source: Schema, value: Any, target: Schema) -> None:
    projected = project(source, value, target)
    assert projected == value
    assert type(projected) is type(value)


@pytest.mark.parametrize(
    ("source", "value", "target"),
    [
        (OPTIONAL_BOOLEAN_SCHEMA, False, BOOLEAN_SCHEMA),
        (OPTIONAL_BYTES_SCHEMA, b"\x01\x02", BYTES_SCHEMA),
        (OPTIONAL_STRING_SCHEMA, "abc", STRING_SCHEMA),
        (OPTIONAL_STRING_SCHEMA, None, STRING_SCHEMA),
    ],
)
def test_an_optional_source_needs_a_default_on_a_required_target(
    source: Schema, value: Any, target: Schema
) -> None:
    with pytest.raises(SchemaProjectorError) as raised:
        project(source, value, target)
    assert str(raised.value) == OPTIONAL_WITHOUT_DEFAULT
    assert isinstance(raised.value, DataError)


def test_a_null_of_a_required_source_stays_null() -> None:
    assert project(INT32_SCHEMA, None, INT32_SCHEMA) is None
    assert project(INT32_SCHEMA, None, OPTIONAL_INT64_SCHEMA) is None


@pytest.mark.parametrize("targets", [NUMERIC, OPTIONAL_NUMERIC], ids=["required", "optional"])
@pytest.mark.parametrize("source_rank", range(len(NUMERIC)))
def test_numbers_promote_to_every_wider_numeric_type(source_rank: int, targets: list[Schema]) -> None:
    value = NUMERIC_VALUES[source_rank]
    for target in targets[source_rank:]:
        promoted = project(NUMERIC[source_rank], value, target)
        if target.type in (Type.FLOAT32, Type.FLOAT64):
            assert type(promoted) is float
            assert promoted == pytest.approx(value, abs=1e-6)
        else:
            assert type(promoted) is int
            assert promoted == value


@pytest.mark.parametrize("source", NUMERIC)
@pytest.mark.parametrize("target", [BOOLEAN_SCHEMA, BYTES_SCHEMA, STRING_SCHEMA])
def test_numbers_do_not_project_onto_other_types(source: Schema, target: Schema) -> None:
    with pytest.raises(SchemaProjectorError) as raised:
        project(source, object(), target)
    assert (
        str(raised.value)
        == f"Schema type mismatch. source type: {source.type} and target type: {target.type}"
    )


@pytest.mark.parametrize(
    ("source", "target"),
    [
        (INT16_SCHEMA, INT8_SCHEMA),
        (INT64_SCHEMA, INT32_SCHEMA),
        (FLOAT32_SCHEMA, INT64_SCHEMA),
        (FLOAT64_SCHEMA, FLOAT32_SCHEMA),
    ],
)
def test_numbers_never_narrow(source: Schema, target: Schema) -> None:
    with pytest.raises(SchemaProjectorError, match=r"^Schema type mismatch. source type: "):
        project(source, 1, target)


def test_integers_promoted_to_float32_round_as_java_casts_them() -> None:
    assert project(INT32_SCHEMA, 16777217, FLOAT32_SCHEMA) == 16777216.0
    # Java's (float) of this long is 1.8014400656965632E16; rounding to a double first gives 2**54.
    assert project(INT64_SCHEMA, 2**54 + 2**30 + 1, FLOAT32_SCHEMA) == float(2**54 + 2**31)
    assert project(INT64_SCHEMA, -(2**54 + 2**30 + 1), FLOAT32_SCHEMA) == -float(2**54 + 2**31)
    assert project(INT64_SCHEMA, 2**63 - 1, FLOAT64_SCHEMA) == float(2**63)


def test_float32_values_keep_their_python_value() -> None:
    assert project(FLOAT32_SCHEMA, 1.2, FLOAT32_SCHEMA) == 1.2
    assert project(FLOAT32_SCHEMA, 1.2, FLOAT64_SCHEMA) == 1.2


@pytest.mark.parametrize("value", ["12", True, b"\x0c"])
def test_a_value_of_a_numeric_type_that_is_not_a_number_passes_unchanged(value: Any) -> None:
    # As in Kafka 4.x only numbers are converted; a struct the value is put into then rejects it.
    assert project(INT32_SCHEMA, value, INT64_SCHEMA) is value


# The optional source's value, the target type and default, and the value expected: each row runs
# against an optional target (null stays null) and a required one (null becomes the default).
OPTIONAL_CASES: list[tuple[Schema, Type, Any, Any, Any]] = [
    (OPTIONAL_BOOLEAN_SCHEMA, Type.BOOLEAN, False, True, False),
    (OPTIONAL_BYTES_SCHEMA, Type.BYTES, b"\x01\x02", b"\x03\x04", b"\x01\x02"),
    (OPTIONAL_STRING_SCHEMA, Type.STRING, "abc", "def", "abc"),
    (OPTIONAL_INT8_SCHEMA, Type.INT8, 12, 127, 12),
    (OPTIONAL_INT8_SCHEMA, Type.INT16, 12, 127, 12),
    (OPTIONAL_INT8_SCHEMA, Type.INT32, 12, 12789, 12),
    (OPTIONAL_INT8_SCHEMA, Type.INT64, 12, 127890, 12),
    (OPTIONAL_INT8_SCHEMA, Type.FLOAT32, 12, 3.45, 12.0),
    (OPTIONAL_INT8_SCHEMA, Type.FLOAT64, 12, 3.4567, 12.0),
    (OPTIONAL_INT16_SCHEMA, Type.INT16, 12, 127, 12),
    (OPTIONAL_INT16_SCHEMA, Type.INT32, 12, 12789, 12),
    (OPTIONAL_INT16_SCHEMA, Type.INT64, 12, 127890, 12),
    (OPTIONAL_INT16_SCHEMA, Type.FLOAT32, 12, 3.45, 12.0),
    (OPTIONAL_INT16_SCHEMA, Type.FLOAT64, 12, 3.4567, 12.0),
    (OPTIONAL_INT32_SCHEMA, Type.INT32, 12, 12789, 12),
    (OPTIONAL_INT32_SCHEMA, Type.INT64, 12, 127890, 12),
    (OPTIONAL_INT32_SCHEMA, Type.FLOAT32, 12, 3.45, 12.0),
    (OPTIONAL_INT32_SCHEMA, Type.FLOAT64, 12, 3.4567, 12.0),
    (OPTIONAL_INT64_SCHEMA, Type.INT64, 12, 127890, 12),
    (OPTIONAL_INT64_SCHEMA, Type.FLOAT32, 12, 3.45, 12.0),
    (OPTIONAL_INT64_SCHEMA, Type.FLOAT64, 12, 3.4567, 12.0),
    (OPTIONAL_FLOAT32_SCHEMA, Type.FLOAT32, 12.345, 3.45, 12.345),
    (OPTIONAL_FLOAT32_SCHEMA, Type.FLOAT64, 12.345, 3.4567, 12.345),
]


@pytest.mark.parametrize(("source", "target_type", "value", "default", "expected"), OPTIONAL_CASES)
@pytest.mark.parametrize("optional_target", [True, False], ids=["optional-target", "required-target"])
def test_an_optional_source_onto_a_target_with_a_default(
    source: Schema, target_type: Type, value: Any, default: Any, expected: Any, optional_target: bool
) -> None:
    builder = SchemaBuilder.of_type(target_type)
    if optional_target:
        builder.optional()
    target = builder.default_value(default).build()

    projected = project(source, value, target)
    assert type(projected) is type(expected)
    assert projected == (pytest.approx(expected, abs=1e-6) if isinstance(expected, float) else expected)

    assert project(source, None, target) == (None if optional_target else default)


# --- structs ----------------------------------------------------------------------------------------


def test_a_field_added_with_a_default_takes_the_default() -> None:
    source = SchemaBuilder.struct().field("field", INT32_SCHEMA).build()
    target = (
        SchemaBuilder.struct()
        .field("field", INT32_SCHEMA)
        .field("field2", SchemaBuilder.int32().default_value(123).build())
        .build()
    )
    projected = project(source, Struct(source).put("field", 1), target)
    assert isinstance(projected, Struct)
    assert projected.schema is target
    assert projected.get_without_default("field") == 1
    assert projected.get_without_default("field2") == 123


def test_a_required_field_added_without_a_default_is_refused() -> None:
    source = SchemaBuilder.struct().name("v1").field("field", INT32_SCHEMA).build()
    target = (
        SchemaBuilder.struct().name("v1").field("field", INT32_SCHEMA).field("field2", INT32_SCHEMA).build()
    )
    with pytest.raises(SchemaProjectorError) as raised:
        project(source, Struct(source).put("field", 1), target)
    assert str(raised.value) == "Required field `field2` is missing from source schema: Schema{v1:STRUCT}"


def test_a_field_removed_from_the_target_is_dropped() -> None:
    source = SchemaBuilder.struct().field("field", INT32_SCHEMA).field("field2", INT32_SCHEMA).build()
    target = SchemaBuilder.struct().field("field", INT32_SCHEMA).build()
    projected = project(source, Struct(source).put("field", 1).put("field2", 234), target)
    assert projected.get("field") == 1
    with pytest.raises(DataError, match="field2 is not a valid field name"):
        projected.get("field2")


def test_a_null_struct_becomes_the_targets_default() -> None:
    source = (
        SchemaBuilder.struct().optional().field("field", INT32_SCHEMA).field("field2", INT32_SCHEMA).build()
    )
    fields = SchemaBuilder.struct().field("field", INT32_SCHEMA).field("field2", INT32_SCHEMA).build()
    default = Struct(fields).put("field", 12).put("field2", 345)
    target = (
        SchemaBuilder.struct()
        .field("field", INT32_SCHEMA)
        .field("field2", INT32_SCHEMA)
        .default_value(default)
        .build()
    )

    assert project(source, None, target) is default

    projected = project(source, Struct(source).put("field", 45).put("field2", 678), target)
    assert (projected.get("field"), projected.get("field2")) == (45, 678)


def test_nested_structs_arrays_and_maps_are_projected() -> None:
    source_flat = SchemaBuilder.struct().field("field", INT32_SCHEMA).build()
    target_flat = (
        SchemaBuilder.struct()
        .field("field", INT32_SCHEMA)
        .field("field2", SchemaBuilder.int32().default_value(123).build())
        .build()
    )

    def nested(flat: Schema) -> Schema:
        return (
            SchemaBuilder.struct()
            .field("first", INT32_SCHEMA)
            .field("second", STRING_SCHEMA)
            .field("array", SchemaBuilder.array(INT32_SCHEMA).build())
            .field("map", SchemaBuilder.map(INT32_SCHEMA, STRING_SCHEMA).build())
            .field("nested", flat)
            .build()
        )

    source, target = nested(source_flat), nested(target_flat)
    record = (
        Struct(source)
        .put("first", 1)
        .put("second", "abc")
        .put("array", [1, 2])
        .put("map", {5: "def"})
        .put("nested", Struct(source_flat).put("field", 113))
    )

    projected = project(source, record, target)
    assert projected.get("first") == 1
    assert projected.get("second") == "abc"
    assert projected.get("array") == [1, 2]
    assert projected.get("map") == {5: "def"}
    inner = projected.get("nested")
    assert inner.schema is target_flat
    assert (inner.get("field"), inner.get("field2")) == (113, 123)


def test_a_missing_field_with_a_default_gets_it() -> None:
    source = SchemaBuilder.struct().build()
    target = SchemaBuilder.struct().field("id", SchemaBuilder.int64().default_value(42).build()).build()
    assert project(source, Struct(source), target).get_without_default("id") == 42


def test_a_missing_optional_field_is_left_null() -> None:
    source = SchemaBuilder.struct().build()
    target = SchemaBuilder.struct().field("id", OPTIONAL_INT64_SCHEMA).build()
    assert project(source, Struct(source), target).get("id") is None


def test_a_missing_optional_field_with_a_default_is_left_unset() -> None:
    # Kafka 4.x checks optional before the default; Struct.get still answers the default.
    source = SchemaBuilder.struct().build()
    target = (
        SchemaBuilder.struct().field("id", SchemaBuilder.int64().optional().default_value(7).build()).build()
    )
    projected = project(source, Struct(source), target)
    assert projected.get_without_default("id") is None
    assert projected.get("id") == 7


def test_a_missing_required_field_is_refused() -> None:
    source = SchemaBuilder.struct().build()
    target = SchemaBuilder.struct().field("id", INT64_SCHEMA).build()
    with pytest.raises(
        SchemaProjectorError, match=r"^Required field `id` is missing from source schema: Schema"
    ):
        project(source, Struct(source), target)


def test_a_fields_failure_names_the_field_and_keeps_the_cause() -> None:
    source = SchemaBuilder.struct().field("n", STRING_SCHEMA).build()
    target = SchemaBuilder.struct().field("n", INT32_SCHEMA).build()
    with pytest.raises(SchemaProjectorError) as raised:
        project(source, Struct(source).put("n", "x"), target)
    assert str(raised.value) == "Error projecting n"
    assert str(raised.value.__cause__) == "Schema type mismatch. source type: STRING and target type: INT32"


def test_a_null_for_a_required_target_field_fails_as_the_struct_is_filled() -> None:
    source = SchemaBuilder.struct().field("n", OPTIONAL_INT32_SCHEMA).build()
    target = SchemaBuilder.struct().field("n", OPTIONAL_INT32_SCHEMA).build()
    assert project(source, Struct(source), target).get("n") is None

    required_source = SchemaBuilder.struct().field("n", INT32_SCHEMA).build()
    with pytest.raises(DataError, match="null used for required field"):
        project(
            required_source, Struct(required_source), SchemaBuilder.struct().field("n", INT32_SCHEMA).build()
        )


def test_a_struct_schema_needs_a_struct_value() -> None:
    schema = SchemaBuilder.struct().field("n", INT32_SCHEMA).build()
    with pytest.raises(SchemaProjectorError, match=r"^Invalid Python object for schema type STRUCT: dict$"):
        project(schema, {"n": 1}, schema)


# --- logical types, names and parameters ------------------------------------------------------------


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        (Decimal.schema(2), decimal.Decimal("1.56")),
        (Date.SCHEMA, datetime.date(1972, 9, 27)),
        (Time.SCHEMA, datetime.time(0, 0, 0, 231000)),
        (Timestamp.SCHEMA, datetime.datetime(1970, 1, 1, 0, 0, 34, 567000, tzinfo=datetime.timezone.utc)),
        (Date.SCHEMA, 1000),  # Kafka passes the value through unchecked, whatever it is
        (Time.SCHEMA, 231),
        (Timestamp.SCHEMA, 34567),
    ],
)
def test_a_logical_value_projects_onto_its_own_type_unchanged(schema: Schema, value: Any) -> None:
    assert project(schema, value, schema) is value


@pytest.mark.parametrize("logical", [Decimal.schema(2), Date.SCHEMA, Time.SCHEMA, Timestamp.SCHEMA])
def test_logical_types_project_only_onto_themselves(logical: Schema) -> None:
    with pytest.raises(SchemaProjectorError, match=r"^Schema type mismatch"):
        project(logical, None, BOOLEAN_SCHEMA)
    with pytest.raises(SchemaProjectorError, match=r"^Schema type mismatch"):
        project(BOOLEAN_SCHEMA, None, logical)
    if logical.type is Type.INT32:
        named = SchemaBuilder.int32().name("invalidLogicalTypeName").build()
        with pytest.raises(SchemaProjectorError) as raised:
            project(logical, None, named)
        assert str(raised.value) == (
            f"Schema name mismatch. source name: {logical.name} and target name: invalidLogicalTypeName"
        )


def test_names_must_match() -> None:
    with pytest.raises(SchemaProjectorError) as raised:
        project(
            SchemaBuilder.int32().name("source").build(), 12, SchemaBuilder.int32().name("target").build()
        )
    assert str(raised.value) == "Schema name mismatch. source name: source and target name: target"

    with pytest.raises(SchemaProjectorError) as raised:
        project(SchemaBuilder.int32().name("source").build(), 12, INT32_SCHEMA)
    assert str(raised.value) == "Schema name mismatch. source name: source and target name: null"


def test_parameters_must_match() -> None:
    with pytest.raises(SchemaProjectorError) as raised:
        project(
            INT32_SCHEMA, 34, SchemaBuilder.int32().parameter("key", "value").parameter("k2", "v2").build()
        )
    assert str(raised.value) == (
        "Schema parameters not equal. source parameters: null and target parameters: {key=value, k2=v2}"
    )
    with pytest.raises(
        SchemaProjectorError, match=re.escape("source parameters: {scale=2} and target parameters: {scale=3}")
    ):
        project(Decimal.schema(2), decimal.Decimal("1.00"), Decimal.schema(3))


def test_versions_and_docs_are_not_compared() -> None:
    source = SchemaBuilder.int32().name("n").version(1).doc("old").build()
    target = SchemaBuilder.int64().name("n").version(2).doc("new").build()
    assert project(source, 5, target) == 5


# --- arrays and maps --------------------------------------------------------------------------------


def test_arrays_project_element_by_element() -> None:
    source = SchemaBuilder.array(INT32_SCHEMA).build()
    assert project(source, [1, 2, 3], source) == [1, 2, 3]

    optional_source = SchemaBuilder.array(INT32_SCHEMA).optional().build()
    target = SchemaBuilder.array(INT32_SCHEMA).default_value([1, 2, 3]).build()
    assert project(optional_source, [4, 5], target) == [4, 5]
    assert project(optional_source, None, target) == [1, 2, 3]

    promoted_target = SchemaBuilder.array(INT64_SCHEMA).default_value([1, 2, 3]).build()
    assert project(optional_source, (4, 5), promoted_target) == [4, 5]
    assert project(optional_source, None, promoted_target) == [1, 2, 3]

    with pytest.raises(SchemaProjectorError, match=re.escape(OPTIONAL_WITHOUT_DEFAULT)):
        project(optional_source, None, SchemaBuilder.array(INT32_SCHEMA).build())


def test_arrays_of_elements_that_do_not_fit_are_refused() -> None:
    source = SchemaBuilder.array(INT32_SCHEMA).build()
    with pytest.raises(SchemaProjectorError, match="source type: INT32 and target type: BOOLEAN"):
        project(source, [1], SchemaBuilder.array(BOOLEAN_SCHEMA).build())
    with pytest.raises(SchemaProjectorError, match=r"^Invalid Python object for schema type ARRAY: int$"):
        project(source, 1, source)


def test_maps_project_keys_and_values() -> None:
    source = SchemaBuilder.map(INT32_SCHEMA, INT32_SCHEMA).optional().build()
    target = SchemaBuilder.map(INT32_SCHEMA, INT32_SCHEMA).default_value({1: 2}).build()
    assert project(source, {3: 4}, target) == {3: 4}
    assert project(source, None, target) == {1: 2}

    promoted_target = SchemaBuilder.map(INT64_SCHEMA, FLOAT32_SCHEMA).default_value({3: 4.5}).build()
    promoted = project(source, {3: 4}, promoted_target)
    assert promoted == {3: 4.0}
    assert [type(value) for value in promoted.values()] == [float]
    assert project(source, None, promoted_target) == {3: 4.5}

    with pytest.raises(SchemaProjectorError, match=re.escape(OPTIONAL_WITHOUT_DEFAULT)):
        project(source, None, SchemaBuilder.map(INT32_SCHEMA, INT32_SCHEMA).build())


def test_maps_whose_keys_do_not_fit_are_refused() -> None:
    source = SchemaBuilder.map(INT32_SCHEMA, INT32_SCHEMA).build()
    with pytest.raises(SchemaProjectorError, match="source type: INT32 and target type: BOOLEAN"):
        project(source, {1: 1}, SchemaBuilder.map(BOOLEAN_SCHEMA, STRING_SCHEMA).build())
