"""A registered JSON Schema -> the Connect schema Confluent's ``JsonSchemaData.toConnectSchema`` gives.

Read from the parsed schema the way everit's loader classifies it, then mapped with Confluent's
rules: ``connect.type`` picks the Connect type of integers, numbers, byte strings and maps;
``title`` is the name, ``description`` the doc, ``connect.version`` the version (else the
subject version the registry gives the top schema), ``connect.parameters`` the parameters,
``default`` the default; properties are ordered by ``connect.index``; a ``oneOf``/``anyOf`` of
``null`` and one schema is that schema made optional, other ``oneOf``/``anyOf`` become Confluent's
``io.confluent.connect.json.OneOf`` struct; ``enum`` and ``const`` are strings with
``io.confluent.connect.json.Enum`` parameters. ``allOf`` merges the properties of its
object parts into one struct. What Confluent maps to its Variant (``{}``, ``true``) and references
to other subjects are refused with a DataError naming the construct.
"""

from __future__ import annotations

from typing import Any

from kconnect.data.schema import Schema, SchemaBuilder
from kconnect.errors import DataError, SchemaBuilderError
from kconnect_schema_registry.json_schema.decode import compile_decoder
from kconnect_schema_registry.json_schema.java_json import default_capacity, java_hashmap_order
from kconnect_schema_registry.json_schema.options import (
    CONNECT_INDEX_PROP,
    CONNECT_PARAMETERS_PROP,
    CONNECT_TYPE_BYTES,
    CONNECT_TYPE_MAP,
    CONNECT_TYPE_PROP,
    CONNECT_VERSION_PROP,
    GENERALIZED_TYPE_ENUM,
    GENERALIZED_TYPE_UNION,
    GENERALIZED_UNION_PREFIX,
    JSON_TYPE_ENUM,
    JSON_TYPE_ONE_OF,
    KEY_FIELD,
    NULL_MARKER,
    VALUE_FIELD,
    JsonSchemaDataOptions,
)

_COMBINATORS = ("allOf", "anyOf", "oneOf")
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
        #: Generalized unions are numbered in the order they are met (``connect_union_0``...).
        self.union_index = 0

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
        combinators = [k for k in _COMBINATORS if k in node]
        types = node.get("type")
        if combinators:
            parts = _synthetic_all_of(node)
            if parts is not None:
                return self._all_of(parts, version, force_optional)
            subs = node[combinators[0]]
            if isinstance(subs, list) and len(subs) == 1 and self.options.flatten_singleton_unions:
                return self.schema(subs[0], None, False)  # before the criterion, as Confluent does
            if combinators[0] == "allOf":
                return self._all_of(subs, version, force_optional)
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
                builder = _enum(values, self.options.generalized_sum_type_support)
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
        # everit keeps properties in a HashMap: unindexed ones are numbered in Java's order.
        for name in java_hashmap_order(properties, default_capacity(len(properties))):
            sub = properties[name]
            index = sub.get(CONNECT_INDEX_PROP) if isinstance(sub, dict) else None
            if not isinstance(index, int) or isinstance(index, bool):
                index = len(ordered)
            ordered[index] = (name, sub)
        for index in sorted(ordered):
            name, sub = ordered[index]
            optional = self.options.use_optional_for_nonrequired and name not in required
            builder.field(name, self.schema(sub, None, optional))
        return builder

    def _all_of(self, subs: Any, version: int | None, force_optional: bool) -> Schema:
        """Confluent's ``allOfToConnectSchema``: the properties of every object part as one struct, else
        the part that decides (a combinator, a string enum or const, a number, a string, a reference)."""
        if not isinstance(subs, list) or not subs:
            raise DataError(f"Invalid allOf in JSON Schema: {subs!r}")
        found: dict[str, Any] = {}
        properties: dict[str, Any] = {}
        required: dict[str, bool] = {}
        for sub in subs:
            found.setdefault(_everit_kind(sub), sub)
            self._collect(sub, properties, required, set())
        if properties:
            builder = SchemaBuilder.struct()
            for name, sub in properties.items():
                optional = self.options.use_optional_for_nonrequired and not required[name]
                builder.field(name, self.schema(sub, None, optional))
            if force_optional:
                builder.optional()
            return builder.build()
        string, number = found.get("string"), found.get("number")
        if "combined" in found:
            return self.schema(found["combined"], version, force_optional)
        if "const" in found or "enum" in found:
            if string is not None and "enum" in found and "const" not in found:
                return self.schema(found["enum"], version, force_optional)
            if string is not None or number is not None:
                return self.schema(string if string is not None else number, version, force_optional)
        elif string is not None:
            return self.schema(number if number is not None else string, version, force_optional)
        elif "ref" in found:
            return self.schema(found["ref"], version, force_optional)
        raise DataError(f"Unsupported criterion allOf for JSON Schema {subs!r}")

    def _collect(
        self, node: Any, properties: dict[str, Any], required: dict[str, bool], seen: set[int]
    ) -> None:
        """Confluent's ``collectPropertySchemas``: properties of objects, all-of parts and references."""
        if not isinstance(node, dict) or id(node) in seen:
            return
        seen.add(id(node))
        if "$ref" in node:
            self._collect(self._resolve(str(node["$ref"])), properties, required, seen)
            return
        parts = _synthetic_all_of(node)
        if parts is None and "allOf" in node:
            parts = node["allOf"] if isinstance(node["allOf"], list) else []
        if parts is not None:
            for part in parts:
                self._collect(part, properties, required, seen)
            return
        if any(k in node for k in _COMBINATORS) or _kind(node) != "object":
            return
        own: dict[str, Any] = node.get("properties") or {}
        names = set(node.get("required") or ())
        for name in java_hashmap_order(own, default_capacity(len(own))):
            properties[name] = own[name]
            required[name] = name in names

    def _combined(self, node: dict[str, Any], subs: Any, version: int | None, force_optional: bool) -> Schema:
        if not isinstance(subs, list) or not subs:
            raise DataError(f"Invalid combinator in JSON Schema {node!r}")
        if len(subs) == 1 and self.options.flatten_singleton_unions:
            return self.schema(subs[0], None, False)
        generalized = self.options.generalized_sum_type_support
        name = JSON_TYPE_ONE_OF
        if generalized:  # numbered before the optional case returns, as Confluent numbers them
            name = f"{GENERALIZED_UNION_PREFIX}{self.union_index}"
            self.union_index += 1
        if len(subs) == 2:
            nulls = [s for s in subs if _kind(self._deref(s)) == "null"]
            if nulls:
                non_null = next((s for s in subs if s is not nulls[0]), nulls[0])
                return self.schema(non_null, version, True)
        builder = SchemaBuilder.struct().name(name)
        if generalized:
            builder.parameter(GENERALIZED_TYPE_UNION, name)
        index = 0
        for sub in subs:
            if _kind(self._deref(sub)) == "null":
                builder.optional()
            else:
                field = f"{GENERALIZED_UNION_PREFIX}field_{index}" if generalized else f"{name}.field.{index}"
                builder.field(field, self.schema(sub, None, True))
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


def _has_own_type(node: dict[str, Any]) -> bool:
    """Whether `node` says what it is besides its combinators (everit then builds a synthetic allOf)."""
    rest = {k: v for k, v in node.items() if k not in _COMBINATORS}
    return any(k in rest for k in ("type", "enum", "const")) or _implied_type(rest) is not None


def _synthetic_all_of(node: dict[str, Any]) -> list[Any] | None:
    """The parts of the allOf everit builds for a schema with several kinds of keywords, or None."""
    combinators = [k for k in _COMBINATORS if k in node]
    if not combinators or (len(combinators) == 1 and not _has_own_type(node)):
        return None
    rest = {k: v for k, v in node.items() if k not in _COMBINATORS}
    own = [rest] if _has_own_type(node) else []
    return own + [{k: node[k]} for k in combinators]


def _everit_kind(node: Any) -> str:
    """The everit schema class a part of an allOf loads as (what ``allOfToConnectSchema`` looks for)."""
    if not isinstance(node, dict):
        return "other"
    if "$ref" in node:
        return "ref"
    types = node.get("type")
    multiple = isinstance(types, list) and len(types) > 1
    if any(k in node for k in _COMBINATORS) or multiple or (("enum" in node or "const" in node) and types):
        return "combined"
    if "const" in node:
        return "const"
    if "enum" in node:
        return "enum"
    kind = _kind(node)
    if kind in ("integer", "number"):
        return "number"
    return kind or "other"


def _enum(values: Any, generalized: bool) -> SchemaBuilder:
    """Confluent's ``toConnectEnums``: symbols as parameters (their position with generalized types)."""
    name = GENERALIZED_TYPE_ENUM if generalized else JSON_TYPE_ENUM
    builder = SchemaBuilder.string().parameter(name, "")  # JSON enums have no name
    for index, value in enumerate(values if isinstance(values, list) else []):
        symbol = NULL_MARKER if value is None else _java_text(value)
        builder.parameter(f"{name}.{symbol}", str(index) if generalized else symbol)
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
