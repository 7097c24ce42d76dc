"""Project a value of one schema onto a compatible schema (Kafka's ``SchemaProjector``).

Sinks that write one schema while records arrive in older or newer versions of it (the storage
sink's ``schema.compatibility`` BACKWARD, FORWARD and FULL) call `project` with the record's schema,
its value and the schema they write::

    value = project(record.value_schema, record.value, current_schema)

The rules are Kafka's, checked at every level of nesting:

- The types must be equal, or the source a numeric type the target can hold without loss of
  range: INT8 → INT16 → INT32 → INT64 → FLOAT32 → FLOAT64 (any step forward, never back).
- Names and parameters must be equal (so logical types project only onto themselves); versions
  and docs are not compared.
- An optional source projects onto a required target only if the target has a default value,
  which replaces a null. Otherwise a null stays null.
- A struct is rebuilt field by field, by name, in the target's order: source fields the target
  lacks are dropped; a target field the source lacks is left null when optional, else takes its
  schema's default, else the projection fails.
- Arrays and maps are projected element by element (keys too).

Every failure is a `SchemaProjectorError` (a `DataError`) with Kafka's message; a struct field's
failure is wrapped in ``Error projecting <field>``, the field's own error as its cause.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from kconnect.data.java_text import to_float32
from kconnect.data.schema import Schema, Type
from kconnect.data.struct import Struct
from kconnect.errors import SchemaProjectorError

_PROMOTION_ORDER = (Type.INT8, Type.INT16, Type.INT32, Type.INT64, Type.FLOAT32, Type.FLOAT64)
_PROMOTION_RANK = {kind: rank for rank, kind in enumerate(_PROMOTION_ORDER)}
_FLOAT32_SIGNIFICAND_BITS = 24


def project(source_schema: Schema, record: Any, target_schema: Schema) -> Any:
    """`record`, a value of `source_schema`, as a value of `target_schema`.

    Returns a new `Struct`, list or dict for containers and the (possibly promoted) value for
    primitives. Raises SchemaProjectorError when the schemas are not compatible, and DataError
    when a projected value does not fit its target field (a null for a required field).
    """
    _check_maybe_compatible(source_schema, target_schema)
    if source_schema.optional and not target_schema.optional:
        if target_schema.default_value is None:
            raise SchemaProjectorError(
                "Writer schema is optional, however, target schema does not provide a default value."
            )
        if record is None:
            return target_schema.default_value
    elif record is None:
        return None
    return _project_required(source_schema, record, target_schema)


def _check_maybe_compatible(source: Schema, target: Schema) -> None:
    if source.type is not target.type and not _is_promotable(source.type, target.type):
        raise SchemaProjectorError(
            f"Schema type mismatch. source type: {source.type} and target type: {target.type}"
        )
    if source.name != target.name:
        raise SchemaProjectorError(
            f"Schema name mismatch. source name: {_java_text(source.name)} "
            f"and target name: {_java_text(target.name)}"
        )
    if source.parameters != target.parameters:
        raise SchemaProjectorError(
            f"Schema parameters not equal. source parameters: {_java_text(source.parameters)} "
            f"and target parameters: {_java_text(target.parameters)}"
        )


def _is_promotable(source: Type, target: Type) -> bool:
    source_rank = _PROMOTION_RANK.get(source)
    target_rank = _PROMOTION_RANK.get(target)
    return source_rank is not None and target_rank is not None and source_rank <= target_rank


def _project_required(source: Schema, record: Any, target: Schema) -> Any:
    if target.type is Type.STRUCT:
        return _project_struct(source, record, target)
    if target.type is Type.ARRAY:
        return _project_array(source, record, target)
    if target.type is Type.MAP:
        return _project_map(source, record, target)
    return _project_primitive(source, record, target)


def _project_struct(source: Schema, record: Any, target: Schema) -> Struct:
    if not isinstance(record, Struct):
        raise _not_a_value_of(source, record)
    projected = Struct(target)
    for target_field in target.fields:
        name = target_field.name
        source_field = source.field(name)
        if source_field is not None:
            try:
                value = project(source_field.schema, record.get(name), target_field.schema)
            except SchemaProjectorError as e:
                raise SchemaProjectorError(f"Error projecting {name}") from e
            projected.put(target_field, value)
        elif target_field.schema.optional:
            continue  # left null, even when the field has a default (Kafka 4.x does the same)
        elif target_field.schema.default_value is not None:
            projected.put(target_field, target_field.schema.default_value)
        else:
            raise SchemaProjectorError(f"Required field `{name}` is missing from source schema: {source}")
    return projected


def _project_array(source: Schema, record: Any, target: Schema) -> list[Any]:
    if not isinstance(record, (list, tuple)):
        raise _not_a_value_of(source, record)
    source_elements = _part(source.value_schema, source)
    target_elements = _part(target.value_schema, target)
    return [project(source_elements, element, target_elements) for element in record]


def _project_map(source: Schema, record: Any, target: Schema) -> dict[Any, Any]:
    if not isinstance(record, Mapping):
        raise _not_a_value_of(source, record)
    source_keys, target_keys = _part(source.key_schema, source), _part(target.key_schema, target)
    source_values, target_values = _part(source.value_schema, source), _part(target.value_schema, target)
    return {
        project(source_keys, key, target_keys): project(source_values, value, target_values)
        for key, value in record.items()
    }


def _project_primitive(source: Schema, record: Any, target: Schema) -> Any:
    if not _is_promotable(source.type, target.type) or not _is_number(record):
        # Kafka keeps anything but a number of a numeric type as it is: logical types' values too.
        return record
    if target.type is Type.FLOAT64:
        return float(record)
    if target.type is Type.FLOAT32:
        if source.type is Type.FLOAT32:
            return float(record)
        # Java's floatValue() rounds a long once; float() first would round twice past 2**53.
        return _int_to_float32(record) if isinstance(record, int) else to_float32(record)
    return int(record)


def _is_number(record: Any) -> bool:
    return isinstance(record, (int, float)) and not isinstance(record, bool)


def _int_to_float32(number: int) -> float:
    """`number` rounded to the nearest 32-bit float, ties to even (Java's ``(float) long``)."""
    magnitude = abs(number)
    excess = magnitude.bit_length() - _FLOAT32_SIGNIFICAND_BITS
    if excess <= 0:
        return float(number)
    significand, rest = divmod(magnitude, 1 << excess)
    half = 1 << (excess - 1)
    if rest > half or (rest == half and significand & 1):
        significand += 1
    return math.copysign(float(significand << excess), number)


def _part(schema: Schema | None, container: Schema) -> Schema:
    if schema is None:
        raise SchemaProjectorError(f"{container} has no element schema")
    return schema


def _not_a_value_of(schema: Schema, record: Any) -> SchemaProjectorError:
    # Kafka fails here with a ClassCastException; a DataError lets sinks report the record.
    return SchemaProjectorError(
        f"Invalid Python object for schema type {schema.type}: {type(record).__name__}"
    )


def _java_text(value: str | Mapping[str, str] | None) -> str:
    """A name or parameters as Java's string concatenation prints them: ``null``, ``{k=v, k2=v2}``."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return value
    return "{" + ", ".join(f"{key}={item}" for key, item in value.items()) + "}"
