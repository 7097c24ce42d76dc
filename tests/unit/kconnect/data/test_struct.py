"""Struct validates as it is filled, falls back to defaults and compares by value, like Kafka's Struct."""

from __future__ import annotations

import pytest
from kconnect.data import (
    INT8_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    SchemaBuilder,
    Struct,
)
from kconnect.errors import DataError

SCHEMA = (
    SchemaBuilder.struct()
    .name("person")
    .field("name", STRING_SCHEMA)
    .field("nick", OPTIONAL_STRING_SCHEMA)
    .field("age", SchemaBuilder.int8().default_value(18).build())
    .build()
)


def test_put_and_get() -> None:
    person = Struct(SCHEMA).put("name", "ada").put("nick", None)
    assert person.get("name") == "ada"
    assert person.get("nick") is None
    assert person.get("age") == 18
    assert person.get_without_default("age") is None
    field = SCHEMA.field("name")
    assert field is not None and person.get(field) == "ada"


def test_put_validates_and_names_the_field() -> None:
    with pytest.raises(DataError, match='for field: "age"'):
        Struct(SCHEMA).put("age", 300)
    with pytest.raises(DataError, match="nope is not a valid field name"):
        Struct(SCHEMA).put("nope", 1)


def test_validate_requires_required_fields_without_defaults() -> None:
    with pytest.raises(
        DataError, match='Invalid value: null used for required field: "name", schema type: STRING'
    ):
        Struct(SCHEMA).validate()
    Struct(SCHEMA).put("name", "ada").validate()


def test_equality_and_repr() -> None:
    a = Struct(SCHEMA).put("name", "ada").put("age", 3)
    b = Struct(SCHEMA).put("name", "ada").put("age", 3)
    assert a == b
    assert a != Struct(SCHEMA).put("name", "bob")
    assert repr(a) == "Struct{name='ada',age=3}"


def test_only_struct_schemas() -> None:
    with pytest.raises(DataError, match="Not a struct schema"):
        Struct(INT8_SCHEMA)


def test_nested_struct_is_validated() -> None:
    outer = SchemaBuilder.struct().field("p", SCHEMA).build()
    with pytest.raises(DataError, match='field: "name"'):
        Struct(outer).put("p", Struct(SCHEMA))
