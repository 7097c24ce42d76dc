"""Avro schemas -> Connect schemas, by the rules of Confluent's ``AvroData.toConnectSchema``.

It inverts `FromConnect` and maps what only Avro has: enums to strings with
``io.confluent.connect.avro.Enum`` parameters, unions (other than with null) to
``io.confluent.connect.avro.Union`` structs, fixed to bytes with ``connect.fixed.size``, Avro field
defaults and docs to Connect defaults (flagged ``io.confluent.connect.avro.field.default``) and
``io.confluent.connect.avro.field.doc.*`` parameters. Recursive Avro schemas are refused: a Connect
schema cannot contain itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kconnect.data import logical
from kconnect.data.java_text import to_float32
from kconnect.data.schema import STRING_SCHEMA, Schema, SchemaBuilder, Type
from kconnect.data.struct import Struct
from kconnect.errors import DataError, SchemaBuilderError

from kconnect_schema_registry.avro.names import (
    AVRO_ENUM_DEFAULT_PREFIX_PROP,
    AVRO_ENUM_DOC_PREFIX_PROP,
    AVRO_FIELD_DEFAULT_FLAG_PROP,
    AVRO_FIELD_DOC_PREFIX_PROP,
    AVRO_LOGICAL_TYPE_PROP,
    AVRO_PROP,
    AVRO_RECORD_DOC_PROP,
    AVRO_TYPE_ENUM,
    AVRO_TYPE_UNION,
    CONNECT_AVRO_DECIMAL_PRECISION_DEFAULT,
    CONNECT_AVRO_DECIMAL_PRECISION_PROP,
    CONNECT_AVRO_FIXED_SIZE_PROP,
    CONNECT_DEFAULT_VALUE_PROP,
    CONNECT_DOC_PROP,
    CONNECT_ENUM_DOC_PROP,
    CONNECT_INTERNAL_TYPE_NAME,
    CONNECT_NAME_PROP,
    CONNECT_PARAMETERS_PROP,
    CONNECT_RECORD_DOC_PROP,
    CONNECT_TYPE_PROP,
    CONNECT_VERSION_PROP,
    DEFAULT_SCHEMA_FULL_NAME,
    KEY_FIELD,
    MAP_ENTRY_TYPE_NAME,
    NAMESPACE,
    VALUE_FIELD,
    AvroNames,
    is_union_schema,
    to_connect_logical,
)
from kconnect_schema_registry.avro.schema import NO_DEFAULT, AvroSchema


class _ToConnectContext:
    def __init__(self) -> None:
        self.in_progress: set[int] = set()


class ToConnect(AvroNames):
    """Avro -> Connect schemas (and JSON defaults -> Connect values) for one converter's settings."""

    # --- Avro -> Connect ------------------------------------------------------------------------

    def to_connect_schema(self, schema: AvroSchema, version: int | None = None) -> Schema:
        """The Connect schema of values written with `schema`; `version` applies to the top level
        when the schema carries no ``connect.version`` (the registry's version, as Confluent's)."""
        if schema.type == "null":
            raise DataError("Standalone null schemas are not supported by this converter")
        return self._to_connect(schema, False, NO_DEFAULT, None, version, _ToConnectContext())

    def _to_connect(
        self,
        schema: AvroSchema,
        force_optional: bool,
        field_default: Any,
        doc_default: str | None,
        version: int | None,
        ctx: _ToConnectContext,
    ) -> Schema:
        settings = self.settings
        meta = settings.connect_meta_data
        discard = settings.discard_type_doc_default
        connect_type = schema.props.get(CONNECT_TYPE_PROP)
        logical_type = schema.props.get(AVRO_LOGICAL_TYPE_PROP)
        logical_lower = logical_type.lower() if isinstance(logical_type, str) else None
        kind = schema.type
        builder: SchemaBuilder
        if kind == "boolean":
            builder = SchemaBuilder.bool()
        elif kind in ("bytes", "fixed"):
            if logical_lower == "decimal":
                scale_node = schema.props.get("scale")
                scale = int(scale_node) if isinstance(scale_node, int | float) else 0
                builder = logical.Decimal.builder(scale)
                precision_node = schema.props.get("precision")
                if precision_node is not None:
                    if not isinstance(precision_node, int | float) or isinstance(precision_node, bool):
                        raise DataError(
                            "precision property must be a JSON Integer. "
                            "https://avro.apache.org/docs/1.9.1/spec.html#Decimal"
                        )
                    if int(precision_node) != CONNECT_AVRO_DECIMAL_PRECISION_DEFAULT:
                        builder.parameter(CONNECT_AVRO_DECIMAL_PRECISION_PROP, str(int(precision_node)))
            else:
                builder = SchemaBuilder.bytes()
            if kind == "fixed":
                builder.parameter(CONNECT_AVRO_FIXED_SIZE_PROP, str(schema.size))
        elif kind == "double":
            builder = SchemaBuilder.float64()
        elif kind == "float":
            builder = SchemaBuilder.float32()
        elif kind == "int":
            if connect_type is None and logical_type is None:
                builder = SchemaBuilder.int32()
            elif logical_type is not None:
                if logical_lower == "date":
                    builder = logical.Date.builder()
                elif logical_lower == "time-millis":
                    builder = logical.Time.builder()
                else:
                    builder = SchemaBuilder.int32()
            elif connect_type in ("int8", "int16"):
                builder = SchemaBuilder.of_type(Type(connect_type))
            else:
                raise DataError("Connect type annotation for Avro int field is null")
        elif kind == "long":
            builder = (
                logical.Timestamp.builder() if logical_lower == "timestamp-millis" else SchemaBuilder.int64()
            )
        elif kind == "string":
            builder = SchemaBuilder.string()
        elif kind == "array":
            element = schema.element
            assert element is not None
            if self._is_map_entry(element):
                key, value = element.field_named(KEY_FIELD), element.field_named(VALUE_FIELD)
                if len(element.fields) != 2 or key is None or value is None:
                    raise DataError(
                        "Found map encoded as array of key-value pairs, but array elements do not match "
                        "the expected format."
                    )
                builder = SchemaBuilder.map(
                    self.to_connect_schema(key.schema), self.to_connect_schema(value.schema)
                )
            else:
                builder = SchemaBuilder.array(self._nested(element, False, None, ctx))
        elif kind == "map":
            assert schema.element is not None
            builder = SchemaBuilder.map(STRING_SCHEMA, self._nested(schema.element, False, None, ctx))
        elif kind == "record":
            builder = SchemaBuilder.struct()
            ctx.in_progress.add(id(schema))
            if not discard and meta and schema.doc is not None:
                builder.parameter(AVRO_RECORD_DOC_PROP, schema.doc)
            for f in schema.fields:
                if not discard and meta and f.doc is not None:
                    builder.parameter(AVRO_FIELD_DOC_PREFIX_PROP + f.name, f.doc)
                if id(f.schema) in ctx.in_progress:
                    raise DataError(
                        f"Recursive Avro schemas are not supported by kconnect: {f.schema.full_name}"
                    )
                field_schema = self._to_connect(f.schema, False, f.default, f.doc, None, ctx)
                if meta:
                    field_params = f.props.get(CONNECT_PARAMETERS_PROP)
                    if isinstance(field_params, dict):
                        field_schema = self._apply_field_params(field_schema, field_params)
                builder.field(f.name, field_schema)
            ctx.in_progress.discard(id(schema))
        elif kind == "enum":
            builder = SchemaBuilder.string()
            if meta:
                if schema.doc is not None:
                    builder.parameter(
                        CONNECT_ENUM_DOC_PROP if discard else AVRO_ENUM_DOC_PREFIX_PROP + schema.name,
                        schema.doc,
                    )
                if not discard and schema.enum_default is not None:
                    builder.parameter(AVRO_ENUM_DEFAULT_PREFIX_PROP + schema.name, schema.enum_default)
            builder.parameter(AVRO_TYPE_ENUM, schema.full_name or "")
            for symbol in schema.symbols:
                builder.parameter(f"{AVRO_TYPE_ENUM}.{symbol}", symbol)
        elif kind == "union":
            branches = schema.branches
            if len(branches) == 1 and settings.flatten_singleton_unions:
                return self._nested(branches[0], False, doc_default, ctx)
            if len(branches) == 2 and any(b.type == "null" and not b.props for b in branches):
                for member in branches:
                    if not (member.type == "null" and not member.props):
                        return self._nested(member, True, doc_default, ctx)
            builder = SchemaBuilder.struct().name(AVRO_TYPE_UNION)
            names: set[str] = set()
            for member in branches:
                if member.type == "null":
                    builder.optional()
                    continue
                field_name = self.avro_union_member_field_name(member)
                if field_name in names:
                    raise DataError("Multiple union schemas map to the Connect union field name")
                names.add(field_name)
                builder.field(field_name, self._nested(member, True, None, ctx))
        elif kind == "null":
            raise DataError("Standalone null schemas are not supported by this converter")
        else:
            raise DataError(f"Couldn't translate unsupported schema type {kind}.")

        if discard:
            doc_value = (
                doc_default if doc_default is not None else (schema.doc or schema.props.get(CONNECT_DOC_PROP))
            )
            if doc_value is not None:
                builder.doc(str(doc_value))
            if meta and schema.doc is not None:
                builder.parameter(CONNECT_RECORD_DOC_PROP, schema.doc)
        else:
            doc_value = schema.props.get(CONNECT_DOC_PROP)
            if meta and doc_value is not None:
                builder.doc(str(doc_value))

        version_value = -1
        version_node = schema.props.get(CONNECT_VERSION_PROP)
        if version_node is not None:
            if not isinstance(version_node, int | float) or isinstance(version_node, bool):
                raise DataError(f"Invalid Connect version found: {version_node}")
            version_value = int(version_node)
        elif version is not None:
            version_value = version
        if version_value >= 0:
            current = builder.build().version
            if current is not None:
                if current != version_value:
                    raise DataError(
                        f"Mismatched versions: version already added to SchemaBuilder ({current}) differs "
                        f"from version in source schema ({version_value})"
                    )
            else:
                builder.version(version_value)

        parameters = schema.props.get(CONNECT_PARAMETERS_PROP)
        if meta and parameters is not None:
            if not isinstance(parameters, dict):
                raise DataError(f"Expected JSON object for schema parameters but found: {parameters}")
            for param, param_value in parameters.items():
                if not isinstance(param_value, str):
                    raise DataError(
                        f"Expected schema parameter values to be strings but found: {param_value}"
                    )
                builder.parameter(param, param_value)
        for prop, prop_value in schema.props.items():
            if prop.startswith(AVRO_PROP):
                builder.parameter(prop, prop_value if isinstance(prop_value, str) else str(prop_value))

        connect_default = schema.props.get(CONNECT_DEFAULT_VALUE_PROP, NO_DEFAULT)
        if field_default is NO_DEFAULT:
            field_default = connect_default
        elif not discard and meta and connect_default is NO_DEFAULT:
            builder.parameter(AVRO_FIELD_DEFAULT_FLAG_PROP, "true")

        connect_name = schema.props.get(CONNECT_NAME_PROP)
        name: str | None = None
        current_name = builder.build().name
        if connect_name is not None:
            if not isinstance(connect_name, str):
                raise DataError(f"Invalid schema name: {connect_name}")
            name = connect_name
        elif kind in ("record", "enum") or (kind == "fixed" and current_name != logical.Decimal.LOGICAL_NAME):
            name = schema.full_name
        if name is not None and not name.startswith(DEFAULT_SCHEMA_FULL_NAME):
            if current_name is not None:
                if name != current_name:
                    raise DataError(
                        f"Mismatched names: name already added to SchemaBuilder ({current_name}) differs "
                        f"from name in source schema ({name})"
                    )
            else:
                builder.name(name)
        if force_optional:
            builder.optional()
        if field_default is not NO_DEFAULT and field_default is not None:
            try:
                builder.default_value(self.default_from_avro(builder.build(), schema, field_default))
            except (DataError, SchemaBuilderError):
                pass  # Confluent logs "Ignoring invalid default for schema" and goes on
        return builder.build()

    def _nested(
        self, schema: AvroSchema, force_optional: bool, doc_default: str | None, ctx: _ToConnectContext
    ) -> Schema:
        if id(schema) in ctx.in_progress:
            raise DataError(f"Recursive Avro schemas are not supported by kconnect: {schema.full_name}")
        return self._to_connect(schema, force_optional, NO_DEFAULT, doc_default, None, ctx)

    @staticmethod
    def _is_map_entry(schema: AvroSchema) -> bool:
        if schema.type != "record":
            return False
        if schema.full_name == f"{NAMESPACE}.{MAP_ENTRY_TYPE_NAME}":
            return True
        return schema.props.get(CONNECT_INTERNAL_TYPE_NAME) == MAP_ENTRY_TYPE_NAME

    @staticmethod
    def _apply_field_params(original: Schema, field_params: Mapping[str, Any]) -> Schema:
        current = dict(original.parameters or {})
        if all(str(v) == current.get(str(k)) for k, v in field_params.items()):
            return original
        current.update({str(k): str(v) for k, v in field_params.items()})
        return Schema(
            type=original.type,
            optional=original.optional,
            default_value=original.default_value,
            name=original.name,
            version=original.version,
            doc=original.doc,
            parameters=current,
            fields=original.fields,
            key_schema=original.key_schema,
            value_schema=original.value_schema,
        )

    def default_from_avro(self, schema: Schema, avro: AvroSchema, value: Any) -> Any:
        """A JSON default (an Avro field default or ``connect.default``) as a Connect value."""
        return to_connect_logical(schema, self._default_from_avro(schema, avro, value))

    def _default_from_avro(self, schema: Schema, avro: AvroSchema, value: Any) -> Any:
        if value is None:
            return None
        kind = avro.type
        if kind == "int":
            if schema.type in (Type.INT8, Type.INT16, Type.INT32):
                return int(value)
            return None
        if kind == "long":
            return int(value)
        if kind == "float":
            return to_float32(float(value))
        if kind == "double":
            return float(value)
        if kind == "boolean":
            return bool(value)
        if kind in ("string", "enum"):
            return value if isinstance(value, str) else str(value)
        if kind in ("bytes", "fixed"):
            if not isinstance(value, str):
                raise DataError("Invalid binary data in default value")
            return value.encode("latin-1")
        if kind == "array":
            if not isinstance(value, list):
                raise DataError("Invalid JSON for array default value")
            assert schema.value_schema is not None and avro.element is not None
            element = schema.value_schema
            if schema.type is Type.MAP:
                raise DataError("Invalid JSON for map default value")
            return [self.default_from_avro(element, avro.element, v) for v in value]
        if kind == "map":
            if not isinstance(value, dict):
                raise DataError("Invalid JSON for map default value")
            assert schema.value_schema is not None and avro.element is not None
            return {k: self.default_from_avro(schema.value_schema, avro.element, v) for k, v in value.items()}
        if kind == "record":
            if not isinstance(value, dict):
                raise DataError("Invalid JSON for record default value")
            result = Struct(schema)
            for avro_field in avro.fields:
                connect_field = schema.field(avro_field.name)
                if connect_field is None:
                    raise DataError(f"{avro_field.name} is not a valid field name")
                member = value.get(avro_field.name)
                if member is None and avro_field.name not in value:
                    member = connect_field.schema.default_value
                    result.put(connect_field, member)
                    continue
                result.put(
                    connect_field, self.default_from_avro(connect_field.schema, avro_field.schema, member)
                )
            return result
        if kind == "union":
            first = avro.branches[0]
            if first.type == "null":
                return None
            if schema.type is Type.STRUCT and is_union_schema(schema):
                member_field = schema.field(self.avro_union_member_field_name(first))
                if member_field is None:
                    return None
                return self.default_from_avro(member_field.schema, first, value)
            return self.default_from_avro(schema, first, value)
        return None
