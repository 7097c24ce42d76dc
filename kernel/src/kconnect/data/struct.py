"""`Struct`, a record value of a STRUCT schema, and `validate_value`, which checks values against schemas.

Python types per schema type: INT8..INT64 `int` within the type's range (never `bool`), FLOAT32 and
FLOAT64 `float` (an `int` is accepted too), BOOLEAN `bool`, STRING `str`, BYTES `bytes` or
`bytearray`, ARRAY `list` or `tuple`, MAP a `Mapping`, STRUCT a `Struct` of an equal schema.
Logical types take their Python values: Decimal `decimal.Decimal`, Date `datetime.date`,
Time `datetime.time`, Timestamp `datetime.datetime`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kconnect.data.connect_schema import LOGICAL_TYPE_CLASSES, Field, Schema, Type
from kconnect.errors import DataError

_INT_RANGES: dict[Type, tuple[int, int]] = {
    Type.INT8: (-(2**7), 2**7 - 1),
    Type.INT16: (-(2**15), 2**15 - 1),
    Type.INT32: (-(2**31), 2**31 - 1),
    Type.INT64: (-(2**63), 2**63 - 1),
}

_TYPE_CLASSES: dict[Type, tuple[type, ...]] = {
    Type.INT8: (int,),
    Type.INT16: (int,),
    Type.INT32: (int,),
    Type.INT64: (int,),
    Type.FLOAT32: (float, int),
    Type.FLOAT64: (float, int),
    Type.BOOLEAN: (bool,),
    Type.STRING: (str,),
    Type.BYTES: (bytes, bytearray),
    Type.ARRAY: (list, tuple),
    Type.MAP: (Mapping,),
}


def validate_value(schema: Schema, value: Any, field_name: str | None = None) -> None:
    """Raise DataError unless `value` is a valid Python value of `schema`.

    `field_name` names the struct field being checked, for the message (Kafka's
    ``ConnectSchema.validateValue``); nested arrays and maps extend the location.
    """
    _validate(schema, value, "value" if field_name is None else f'field: "{field_name}"')


def _validate(schema: Schema, value: Any, location: str) -> None:
    if value is None:
        if not schema.optional:
            raise DataError(f"Invalid value: null used for required {location}, schema type: {schema.type}")
        return
    kind = schema.type
    expected = LOGICAL_TYPE_CLASSES.get(schema.name) if schema.name is not None else None
    if expected is None:
        expected = _TYPE_CLASSES.get(kind, (Struct,))
    if not isinstance(value, expected) or (isinstance(value, bool) and bool not in expected):
        named = f' "{schema.name}"' if schema.name is not None else ""
        raise DataError(
            f"Invalid Python object for schema{named} with type {kind}: {type(value).__name__} for {location}"
        )
    int_range = _INT_RANGES.get(kind)
    if int_range is not None and isinstance(value, int) and not int_range[0] <= value <= int_range[1]:
        raise DataError(
            f"Invalid value {value} for schema type {kind}: out of range "
            f"[{int_range[0]}, {int_range[1]}] for {location}"
        )
    checked: Any = value  # the isinstance check above narrowed `value` to object
    if kind is Type.STRUCT:
        if checked.schema is not schema and checked.schema != schema:
            raise DataError("Struct schemas do not match.")
        checked.validate()
    elif kind is Type.ARRAY:
        element_location = f"element of array {location}"
        element_schema = _require(schema.value_schema, element_location)
        for element in checked:
            _validate(element_schema, element, element_location)
    elif kind is Type.MAP:
        key_location = f"key of map {location}"
        value_location = f"value of map {location}"
        key_schema = _require(schema.key_schema, key_location)
        value_schema = _require(schema.value_schema, value_location)
        for key, item in checked.items():
            _validate(key_schema, key, key_location)
            _validate(value_schema, item, value_location)


def _require(schema: Schema | None, location: str) -> Schema:
    if schema is None:
        raise DataError(f"No schema defined for {location}")
    return schema


class Struct:
    """The value of a STRUCT schema: one slot per field, checked as it is set (Kafka's `Struct`).

    `put` validates the value against the field's schema; `validate` checks that every required
    field is set. `get` falls back to the field's default; `get_without_default` does not.
    """

    __slots__ = ("_values", "schema")

    def __init__(self, schema: Schema) -> None:
        if schema.type is not Type.STRUCT:
            raise DataError(f"Not a struct schema: {schema}")
        self.schema = schema
        self._values: list[Any] = [None] * len(schema.fields)

    @classmethod
    def unchecked(cls, schema: Schema, values: list[Any]) -> Struct:
        """A struct holding `values`, one per field of `schema` in field order, validating nothing.

        The fast constructor of converters and source queriers that build many structs of one
        schema. The caller guarantees the contract `put` and `validate` would check: `schema` is
        a STRUCT schema, `values` has one entry per field, and each value is valid for its field
        (None only where the field is optional or has a default). Nothing is checked and the list
        is kept, not copied, so the caller must not change it afterwards. A wrong value is caught
        later, if at all, by whoever reads the struct. Where values come from users, use
        ``Struct(schema).put(...)``.
        """
        struct = cls.__new__(cls)
        struct.schema = schema
        struct._values = values
        return struct

    def _lookup(self, name: str) -> Field:
        found = self.schema.field(name)
        if found is None:
            raise DataError(f"{name} is not a valid field name")
        return found

    def put(self, field: str | Field, value: Any) -> Struct:
        """Set a field (by name or `Field`) after validating `value`; returns self so calls chain."""
        if field is None:
            raise DataError("field cannot be null.")
        target = self._lookup(field) if isinstance(field, str) else field
        validate_value(target.schema, value, target.name)
        self._values[target.index] = value
        return self

    def get(self, field: str | Field) -> Any:
        """The field's value, or its schema's default when the value is None."""
        target = self._lookup(field) if isinstance(field, str) else field
        value = self._values[target.index]
        return target.schema.default_value if value is None else value

    def get_without_default(self, field: str | Field) -> Any:
        """The field's value as set, None when unset."""
        target = self._lookup(field) if isinstance(field, str) else field
        return self._values[target.index]

    def values(self) -> list[Any]:
        """The values as set (no defaults), in field order; converters read these and must not change them."""
        return self._values

    def validate(self) -> None:
        """Raise DataError unless every field holds a valid value (required fields set or defaulted)."""
        for f, value in zip(self.schema.fields, self._values, strict=True):
            if value is None and (f.schema.optional or f.schema.default_value is not None):
                continue
            validate_value(f.schema, value, f.name)

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        return isinstance(other, Struct) and self.schema == other.schema and self._values == other._values

    __hash__ = None  # type: ignore[assignment]  # mutable, like a list

    def __repr__(self) -> str:
        shown = ",".join(
            f"{f.name}={value!r}"
            for f, value in zip(self.schema.fields, self._values, strict=True)
            if value is not None
        )
        return f"Struct{{{shown}}}"
