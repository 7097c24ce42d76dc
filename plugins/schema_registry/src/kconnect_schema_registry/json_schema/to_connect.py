"""A registered JSON Schema -> the Connect schema Confluent's ``JsonSchemaData.toConnectSchema`` gives.

Read from the parsed schema the way everit's loader classifies it, then mapped with Confluent's
rules: ``connect.type`` picks the Connect type of integers, numbers, byte strings and maps;
``title`` is the name, ``description`` the doc, ``connect.version`` the version (else the
subject version the registry gives the top schema), ``connect.parameters`` the parameters,
``default`` the default; properties are ordered by ``connect.index``; a ``oneOf``/``anyOf`` of
``null`` and one schema is that schema made optional, other ``oneOf``/``anyOf`` become Confluent's
``io.confluent.connect.json.OneOf`` struct; ``enum`` and ``const`` are strings with
``io.confluent.connect.json.Enum`` parameters. What Confluent maps to its Variant or reads through
``allOf`` is refused with a DataError naming the construct.
"""

from __future__ import annotations

from typing import Any

from kconnect.data.schema import Schema, SchemaBuilder
from kconnect.errors import DataError, SchemaBuilderError
from kconnect_schema_registry.json_schema.options import (
    CONNECT_INDEX_PROP,
    CONNECT_PARAMETERS_PROP,
    CONNECT_TYPE_BYTES,
    CONNECT_TYPE_MAP,
    CONNECT_TYPE_PROP,
    CONNECT_VERSION_PROP,
    JSON_TYPE_ENUM,
    JSON_TYPE_ONE_OF,
    KEY_FIELD,
    NULL_MARKER,
    VALUE_FIELD,
    JsonSchemaDataOptions,
)
from kconnect_schema_registry.json_schema.values import compile_decoder

_OBJECT_KEYWORDS = (
    "properties",
    "additionalProperties",
    "required",
    "minProperties",
    "maxProperties",
    "patternProperties",
    "dependencies",
    "propertyNames",
)
_ARRAY_KEYWORDS = ("items", "additionalItems", "minItems", "maxItems", "uniqueItems", "contains")
_STRING_KEYWORDS = ("minLength", "maxLength", "pattern", "format")
_NUMBER_KEYWORDS = ("minimum", "maximum", "multipleOf", "exclusiveMinimum", "exclusiveMaximum")
_INTEGER_TYPES = {
    "int8": SchemaBuilder.int8,
    "int16": SchemaBuilder.int16,
    "int32": SchemaBuilder.int32,
    "int64": SchemaBuilder.int64,
    "float32": SchemaBuilder.float32,
    "float64": SchemaBuilder.float64,
    CONNECT_TYPE_BYTES: SchemaBuilder.bytes,
}


def to_connect_schema(root: Any, version: int | None, options: JsonSchemaDataOptions) -> Schema:
    """The Connect schema of the JSON Schema `root` (parsed), registered as `version` of its subject."""
    return _Reader(root, options).schema(root, version, False)


class _Reader:
    def __init__(self, root: Any, options: JsonSchemaDataOptions) -> None:
        self.root = root
        self.options = options
        self.resolving: list[str] = []

    def _resolve(self, ref: str) -> Any:
        if not ref.startswith("#"):
            raise DataError(
                f"JSON Schema reference {ref!r} is not supported (only references within the schema)"
            )
        if ref in self.resolving:
            raise DataError(f"Recursive JSON Schema reference {ref!r} is not supported")
        node = self.root
        for part in (p for p in ref[1:].split("/") if p):
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, dict) or part not in node:
                raise DataError(f"JSON Schema reference {ref!r} does not resolve")
            node = node[part]
        return node

    def schema(self, node: Any, version: int | None, force_optional: bool) -> Schema:
        """`toConnectSchema(jsonSchema, version, forceOptional)`."""
        if isinstance(node, bool) or not isinstance(node, dict):
            raise DataError(f"Unsupported JSON Schema {node!r}: Confluent reads it as a Variant")
        if "$ref" in node:
            ref = str(node["$ref"])
            target = self._resolve(ref)
            self.resolving.append(ref)
            try:
                return self.schema(target, version, force_optional)
            finally:
                self.resolving.pop()
        combinators = [k for k in ("allOf", "anyOf", "oneOf") if k in node]
        types = node.get("type")
        if (
            len(combinators) > 1
            or "allOf" in combinators
            or (combinators and (types is not None or "enum" in node))
        ):
            raise DataError(
                "JSON Schema 'allOf' (or a combinator beside other keywords) is not supported by "
                "kconnect's JsonSchemaConverter"
            )
        if combinators:
            return self._combined(node, node[combinators[0]], version, force_optional)
        if isinstance(types, list):
            if len(types) == 1:
                return self.schema({**node, "type": types[0]}, version, force_optional)
            return self._combined(node, [{**node, "type": t} for t in types], version, force_optional)
        if "enum" in node or "const" in node:
            if types in ("integer", "number"):
                builder = self._number(node, types)
            else:
                values = node["enum"] if "enum" in node else [node["const"]]
                builder = _enum(values)
        elif types is None:
            types = _implied_type(node)
            if types is None:
                raise DataError(f"Unsupported JSON Schema {node!r}: Confluent reads it as a Variant")
            builder = self._typed(node, types)
        else:
            builder = self._typed(node, types)
        return self._finish(node, builder, version, force_optional)

    def _typed(self, node: dict[str, Any], kind: str) -> SchemaBuilder:
        if kind == "boolean":
            return SchemaBuilder.bool()
        if kind in ("integer", "number"):
            return self._number(node, kind)
        if kind == "string":
            is_bytes = node.get(CONNECT_TYPE_PROP) == CONNECT_TYPE_BYTES
            return SchemaBuilder.bytes() if is_bytes else SchemaBuilder.string()
        if kind == "array":
            return self._array(node)
        if kind == "object":
            return self._object(node)
        raise DataError(f"Unsupported schema type {kind!r} in JSON Schema {node!r}")

    def _number(self, node: dict[str, Any], kind: str) -> SchemaBuilder:
        connect_type = node.get(CONNECT_TYPE_PROP)
        if connect_type is None:
            return SchemaBuilder.int64() if kind == "integer" else SchemaBuilder.float64()
        make = _INTEGER_TYPES.get(str(connect_type))
        if make is None:
            raise DataError(f"Unsupported type {connect_type}")
        return make()

    def _array(self, node: dict[str, Any]) -> SchemaBuilder:
        items = node.get("items")
        if items is None or isinstance(items, list):
            raise DataError("Array schema did not specify the items type")
        if node.get(CONNECT_TYPE_PROP) == CONNECT_TYPE_MAP and _kind(items) == "object":
            entry = self._deref(items)
            properties = entry.get("properties", {})
            if KEY_FIELD not in properties or VALUE_FIELD not in properties:
                raise DataError("A map's entry schema needs 'key' and 'value' properties")
            return SchemaBuilder.map(
                self.schema(properties[KEY_FIELD], None, False),
                self.schema(properties[VALUE_FIELD], None, False),
            )
        return SchemaBuilder.array(self.schema(items, None, False))

    def _deref(self, node: Any) -> Any:
        while isinstance(node, dict) and "$ref" in node:
            node = self._resolve(str(node["$ref"]))
        return node

    def _object(self, node: dict[str, Any]) -> SchemaBuilder:
        if node.get(CONNECT_TYPE_PROP) == CONNECT_TYPE_MAP:
            extra = node.get("additionalProperties")
            if not isinstance(extra, dict):
                raise DataError("A map's JSON Schema needs an additionalProperties schema for its values")
            return SchemaBuilder.map(
                Schema(type=SchemaBuilder.string().type), self.schema(extra, None, False)
            )
        builder = SchemaBuilder.struct()
        properties: dict[str, Any] = node.get("properties") or {}
        required = set(node.get("required") or ())
        ordered: dict[int, tuple[str, Any]] = {}
        for name, sub in properties.items():
            index = sub.get(CONNECT_INDEX_PROP) if isinstance(sub, dict) else None
            if not isinstance(index, int) or isinstance(index, bool):
                index = len(ordered)
            ordered[index] = (name, sub)
        for index in sorted(ordered):
            name, sub = ordered[index]
            optional = self.options.use_optional_for_nonrequired and name not in required
            builder.field(name, self.schema(sub, None, optional))
        return builder

    def _combined(self, node: dict[str, Any], subs: Any, version: int | None, force_optional: bool) -> Schema:
        if not isinstance(subs, list) or not subs:
            raise DataError(f"Invalid combinator in JSON Schema {node!r}")
        if len(subs) == 1 and self.options.flatten_singleton_unions:
            return self.schema(subs[0], None, False)
        if len(subs) == 2:
            nulls = [s for s in subs if _kind(self._deref(s)) == "null"]
            if nulls:
                non_null = next((s for s in subs if s is not nulls[0]), nulls[0])
                return self.schema(non_null, version, True)
        builder = SchemaBuilder.struct().name(JSON_TYPE_ONE_OF)
        index = 0
        for sub in subs:
            if _kind(self._deref(sub)) == "null":
                builder.optional()
            else:
                builder.field(f"{JSON_TYPE_ONE_OF}.field.{index}", self.schema(sub, None, True))
                index += 1
        return self._finish(node, builder, version, force_optional, combined=True)

    def _finish(
        self,
        node: dict[str, Any],
        builder: SchemaBuilder,
        version: int | None,
        force_optional: bool,
        combined: bool = False,
    ) -> Schema:
        """Title, version, description, parameters, default and optionality, as Confluent applies them."""
        try:
            title = node.get("title")
            if title is not None and not combined and builder.build().name is None:
                builder.name(str(title))
            connect_version = node.get(CONNECT_VERSION_PROP)
            if isinstance(connect_version, int) and not isinstance(connect_version, bool):
                builder.version(connect_version)
            elif version is not None:
                builder.version(version)
            if node.get("description") is not None:
                builder.doc(str(node["description"]))
            parameters = node.get(CONNECT_PARAMETERS_PROP)
            if isinstance(parameters, dict):
                builder.parameters({str(k): str(v) for k, v in parameters.items()})
            if node.get("default") is not None:  # "default": null is no default in Connect
                default = compile_decoder(builder.build(), self.options)(node["default"])
                if default is not None:
                    builder.default_value(default)
            if force_optional:
                builder.optional()
            return builder.build()
        except SchemaBuilderError as e:
            raise DataError(f"Invalid JSON Schema {node!r}: {e}") from e


def _enum(values: Any) -> SchemaBuilder:
    builder = SchemaBuilder.string().parameter(JSON_TYPE_ENUM, "")
    for value in values if isinstance(values, list) else []:
        symbol = NULL_MARKER if value is None else _java_text(value)
        builder.parameter(f"{JSON_TYPE_ENUM}.{symbol}", symbol)
    return builder


def _java_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _implied_type(node: dict[str, Any]) -> str | None:
    for kind, keywords in (
        ("object", _OBJECT_KEYWORDS),
        ("array", _ARRAY_KEYWORDS),
        ("string", _STRING_KEYWORDS),
        ("number", _NUMBER_KEYWORDS),
    ):
        if any(k in node for k in keywords):
            return kind
    return None


def _kind(node: Any) -> str | None:
    if not isinstance(node, dict):
        return None
    kind = node.get("type")
    return kind if isinstance(kind, str) else _implied_type(node)
