"""Connect schema -> the JSON Schema text Confluent's JsonSchemaConverter registers for it.

The rules of Confluent's ``JsonSchemaData.fromConnectSchema``:

==========================  ===============================================================
Connect                     JSON Schema
==========================  ===============================================================
INT8/16/32/64               ``{"type":"integer","connect.type":"int8"}`` (``int16``...)
FLOAT32/64                  ``{"type":"number","connect.type":"float32"}`` (``float64``)
BOOLEAN, STRING             ``{"type":"boolean"}``, ``{"type":"string"}``
STRING with ``...json.Enum``  ``{"enum":[...]}``
BYTES                       ``{"type":"string","connect.type":"bytes"}`` (base64 values)
Decimal                     BYTES titled ``org.apache.kafka.connect.data.Decimal``, scale in
                            ``connect.parameters``; ``"type":"number"`` with decimal.format=NUMERIC
Date, Time, Timestamp       their INT32/INT64 schema titled with the logical name, version 1
ARRAY                       ``{"type":"array","items":...}``
MAP, string keys            ``{"type":"object","additionalProperties":...,"connect.type":"map"}``
MAP, other keys             an array of ``{"key":...,"value":...}`` objects, ``connect.type: map``
STRUCT                      ``{"type":"object","properties":{...}}``; each property carries its
                            position as ``connect.index``; ``"additionalProperties":false``
                            when object.additional.properties=false
optional                    ``{"oneOf":[{"type":"null"},<schema>]}``
name, doc, version          ``title``, ``description``, ``connect.version``
parameters, default         ``connect.parameters``, ``default``
==========================  ===============================================================

Keys come out in the order Confluent's text has them (see `java_json`), so both register the
same string and the registry hands out the same id and version.
"""

from __future__ import annotations

import base64
import dataclasses
from typing import Any

from kconnect.data.java_text import java_decimal_str, java_double_repr, java_float_repr
from kconnect.data.logical import Date, Decimal, Time, Timestamp
from kconnect.data.schema import Schema, Type
from kconnect.data.struct import Struct
from kconnect.errors import DataError
from kconnect_schema_registry.json_schema.encode import MISSING
from kconnect_schema_registry.json_schema.java_json import (
    RawJson,
    copy_capacity,
    default_capacity,
    hashmap_items,
    java_hashmap_order,
    java_number_text,
    sized_capacity,
    write_json,
)
from kconnect_schema_registry.json_schema.options import (
    CONNECT_INDEX_PROP,
    CONNECT_PARAMETERS_PROP,
    CONNECT_TYPE_BYTES,
    CONNECT_TYPE_MAP,
    CONNECT_TYPE_PROP,
    CONNECT_VERSION_PROP,
    GENERALIZED_TYPE_ENUM,
    JSON_ID_PROP,
    JSON_TYPE_ENUM,
    KEY_FIELD,
    NAMESPACE,
    NULL_MARKER,
    VALUE_FIELD,
    JsonSchemaDataOptions,
    is_union,
)

_NULL_SCHEMA: dict[str, Any] = {"type": "null"}
_INTEGERS = (Type.INT8, Type.INT16, Type.INT32, Type.INT64)


def schema_text(schema: Schema, options: JsonSchemaDataOptions) -> str:
    """The compact JSON Schema text Confluent registers for `schema`."""
    return write_json(_Writer(options).node(schema, None, False))


def _non_optional(schema: Schema) -> Schema:
    return schema if not schema.optional else dataclasses.replace(schema, optional=False)


def _unprocessed(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``connect.*`` keywords: put in a HashMap by Confluent, copied into another by everit."""
    values = dict(pairs)
    order = java_hashmap_order(
        java_hashmap_order(values, default_capacity(len(values))), copy_capacity(len(values))
    )
    return {key: values[key] for key in order}


def _parameters(parameters: dict[str, str]) -> dict[str, str]:
    """``connect.parameters``: collected into a HashMap, then printed through org.json's JSONObject."""
    first = java_hashmap_order(parameters, default_capacity(len(parameters)))
    order = java_hashmap_order(first, sized_capacity(len(parameters)))
    return {key: parameters[key] for key in order}


class _Writer:
    """One ``fromConnectSchema`` run: the ids of the structs already written (for ``$ref``)."""

    def __init__(self, options: JsonSchemaDataOptions) -> None:
        self.options = options
        self.ids: set[str] = set()

    def _ref_or_node(self, schema: Schema, index: int | None) -> dict[str, Any]:
        ref = (schema.parameters or {}).get(JSON_ID_PROP)
        if ref is not None and ref in self.ids:
            return {"$ref": ref}
        return self.node(schema, index, False)

    def node(self, schema: Schema, index: int | None, ignore_optional: bool) -> dict[str, Any]:
        """The JSON Schema of `schema`, as a property at `index` (None: not a struct field)."""
        parameters = dict(schema.parameters or {})
        schema_id = parameters.get(JSON_ID_PROP)
        if schema_id is not None:
            self.ids.add(schema_id)
        head: dict[str, Any] = {}
        tail: dict[str, Any] = {}
        props: list[tuple[str, Any]] = []
        combined = False
        kind = schema.type
        if kind in _INTEGERS:
            head["type"] = "integer"
            props.append((CONNECT_TYPE_PROP, kind.value))
        elif kind is Type.FLOAT32 or kind is Type.FLOAT64:
            head["type"] = "number"
            props.append((CONNECT_TYPE_PROP, kind.value))
        elif kind is Type.BOOLEAN:
            head["type"] = "boolean"
        elif kind is Type.STRING:
            if GENERALIZED_TYPE_ENUM in parameters or JSON_TYPE_ENUM in parameters:
                generalized = self.options.generalized_sum_type_support
                prefix = (GENERALIZED_TYPE_ENUM if generalized else JSON_TYPE_ENUM) + "."
                head["enum"] = [
                    None if key[len(prefix) :] == NULL_MARKER else key[len(prefix) :]
                    for key in parameters
                    if key.startswith(prefix)
                ]
            else:
                head["type"] = "string"
        elif kind is Type.BYTES:
            numeric = schema.name == Decimal.LOGICAL_NAME and self.options.decimal_numeric
            head["type"] = "number" if numeric else "string"
            props.append((CONNECT_TYPE_PROP, CONNECT_TYPE_BYTES))
        elif kind is Type.ARRAY:
            assert schema.value_schema is not None
            head["type"] = "array"
            tail["items"] = self._ref_or_node(schema.value_schema, None)
        elif kind is Type.MAP:
            assert schema.key_schema is not None and schema.value_schema is not None
            if schema.key_schema.type is Type.STRING and not schema.key_schema.optional:
                head["type"] = "object"
                tail["additionalProperties"] = self.node(schema.value_schema, None, False)
            else:
                head["type"] = "array"
                entry = {
                    "type": "object",
                    "properties": dict(
                        hashmap_items(
                            [
                                (KEY_FIELD, self.node(schema.key_schema, 0, False)),
                                (VALUE_FIELD, self.node(schema.value_schema, 1, False)),
                            ]
                        )
                    ),
                }
                tail["items"] = entry
            props.append((CONNECT_TYPE_PROP, CONNECT_TYPE_MAP))
        elif is_union(schema):
            combined = True
            branches = [_NULL_SCHEMA] if schema.optional else []
            branches += [self.node(_non_optional(f.schema), f.index, True) for f in schema.fields]
            tail["oneOf"] = branches
        elif schema.optional:
            combined = True
            tail["oneOf"] = [_NULL_SCHEMA, self.node(_non_optional(schema), None, False)]
        else:
            head["type"] = "object"
            if not self.options.allow_additional_properties:
                head["additionalProperties"] = False
            # everit keeps the properties in a HashMap: Java's order, not the fields'.
            properties = hashmap_items((f.name, self._ref_or_node(f.schema, f.index)) for f in schema.fields)
            if properties:
                tail["properties"] = dict(properties)
        common: dict[str, Any] = {}
        if not combined:
            if schema.name is not None:
                common["title"] = schema.name
            if schema.version is not None:
                props.append((CONNECT_VERSION_PROP, schema.version))
            if schema.doc is not None:
                common["description"] = schema.doc
            shown = {k: v for k, v in parameters.items() if not k.startswith(NAMESPACE)}
            if shown:
                props.append((CONNECT_PARAMETERS_PROP, _parameters(shown)))
            if schema.default_value is not None:
                default = self.default_json(schema, schema.default_value)
                if default is not None:
                    common["default"] = default
            if schema.optional and not ignore_optional:
                inner = {**head, **common, **_unprocessed(props), **tail}
                head, common, props, tail = {}, {}, [], {"oneOf": [_NULL_SCHEMA, inner]}
        if schema_id is not None:
            common["id"] = schema_id
        if index is not None:
            props.append((CONNECT_INDEX_PROP, index))
        return {**head, **common, **_unprocessed(props), **tail}

    def default_json(self, schema: Schema, value: Any) -> Any:
        """A default value as everit prints it: org.json's numbers and HashMap order, then Jackson's."""
        if value is None:
            if schema.default_value is not None and not self.options.ignore_default_for_nullables:
                return self.default_json(schema, schema.default_value)
            return None if schema.optional else MISSING
        name, kind = schema.name, schema.type
        if name == Decimal.LOGICAL_NAME and kind is Type.BYTES:
            if self.options.decimal_numeric:
                return java_number_text(java_decimal_str(value))
            return base64.b64encode(Decimal.from_logical(schema, value)).decode("ascii")
        if name == Date.LOGICAL_NAME:
            return RawJson(str(Date.from_logical(schema, value)))
        if name == Time.LOGICAL_NAME:
            return RawJson(str(Time.from_logical(schema, value)))
        if name == Timestamp.LOGICAL_NAME:
            return RawJson(str(Timestamp.from_logical(schema, value)))
        if kind in _INTEGERS:
            return RawJson(str(int(value)))
        if kind is Type.FLOAT32:
            return java_number_text(java_float_repr(value))
        if kind is Type.FLOAT64:
            return java_number_text(java_double_repr(float(value)))
        if kind is Type.BOOLEAN or kind is Type.STRING:
            return value
        if kind is Type.BYTES:
            if isinstance(value, (bytes, bytearray, memoryview)):
                return base64.b64encode(value).decode("ascii")
            return java_number_text(java_decimal_str(value))
        if kind is Type.ARRAY:
            assert schema.value_schema is not None
            return [self._nested_default(schema.value_schema, item) for item in value]
        if kind is Type.MAP:
            assert schema.key_schema is not None and schema.value_schema is not None
            key_schema, value_schema = schema.key_schema, schema.value_schema
            entries = [
                (self._nested_default(key_schema, k), self._nested_default(value_schema, v))
                for k, v in value.items()
            ]
            if key_schema.type is Type.STRING and not key_schema.optional:
                return dict(hashmap_items(entries))
            return [dict(hashmap_items([(KEY_FIELD, k), (VALUE_FIELD, v)])) for k, v in entries]
        if not isinstance(value, Struct):
            raise DataError(f"Invalid type for {kind}: {type(value)}")
        without_default = self.options.ignore_default_for_nullables
        if is_union(schema):
            for f in schema.fields:
                item = value.get_without_default(f) if without_default else value.get(f)
                if item is not None:
                    return self.default_json(f.schema, item)
            return self.default_json(schema, None)
        out = []
        for f in schema.fields:
            item = value.get_without_default(f) if without_default else value.get(f)
            node = self.default_json(f.schema, item)
            if node is not MISSING:
                out.append((f.name, node))
        return dict(hashmap_items(out))

    def _nested_default(self, schema: Schema, value: Any) -> Any:
        node = self.default_json(schema, value)
        return None if node is MISSING else node
