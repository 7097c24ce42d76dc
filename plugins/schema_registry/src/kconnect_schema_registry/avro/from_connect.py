"""Connect schemas -> Avro schemas, by the rules of Confluent's ``AvroData.fromConnectSchema``.

* int8/int16 are ``int`` with ``connect.type``; int32, int64, float32, float64, boolean, string,
  bytes are Avro's primitives; arrays are arrays; maps with (required) string keys are maps, other
  maps arrays of ``io.confluent.connect.avro.MapEntry`` records (``key``, ``value``);
* structs are records named after the Connect name (``io.confluent.connect.avro.ConnectDefault``,
  ``ConnectDefault2``... when unnamed); an optional schema is a union with ``null``, null first, or
  last when it has a default; a field's default is the Connect default (null for optional fields);
* Decimal is ``bytes`` with ``logicalType: decimal``, ``precision`` (``connect.decimal.precision``,
  default 64) and ``scale``; Date, Time and Timestamp are ``int``/``int``/``long`` with ``date``,
  ``time-millis``, ``timestamp-millis``;
* the Connect metadata goes into properties (``connect.doc``, ``connect.version``,
  ``connect.parameters``, ``connect.default``, ``connect.name``) unless ``connect.meta.data=false``;
* a string with ``io.confluent.connect.avro.Enum`` parameters is an Avro enum
  (``enhanced.avro.schema.support``), a struct named ``io.confluent.connect.avro.Union`` an Avro
  union, bytes with ``connect.fixed.size`` a fixed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from kconnect.data import logical
from kconnect.data.java_text import to_float32
from kconnect.data.schema import Schema, Type
from kconnect.data.struct import Struct
from kconnect.errors import DataError

from kconnect_schema_registry.avro.names import (
    AVRO_ENUM_DEFAULT_PREFIX_PROP,
    AVRO_ENUM_DOC_PREFIX_PROP,
    AVRO_FIELD_DEFAULT_FLAG_PROP,
    AVRO_FIELD_DOC_PREFIX_PROP,
    AVRO_LOGICAL_TYPE_PROP,
    AVRO_PRIMITIVE,
    AVRO_PROP,
    AVRO_RECORD_DOC_PROP,
    AVRO_TYPE_ENUM,
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
    KEY_FIELD,
    LOGICAL_AVRO,
    MAP_ENTRY_TYPE_NAME,
    NAMESPACE,
    NULL_SCHEMA,
    VALUE_FIELD,
    AvroNames,
    is_fixed_schema,
    is_union_schema,
    is_valid_default,
    lower_name,
    string_keyed,
    to_avro_logical,
)
from kconnect_schema_registry.avro.schema import NO_DEFAULT, AvroField, AvroSchema, JavaFloat


class _FromConnectContext:
    def __init__(self) -> None:
        self.schema_map: dict[Schema, AvroSchema] = {}
        self.cycle_references: dict[str, AvroSchema] = {}
        self.seen_named_types: set[str] = set()
        self.name_index = 0


class FromConnect(AvroNames):
    """Connect -> Avro schemas (and Connect defaults -> JSON) for one converter's settings."""

    # --- Connect -> Avro ------------------------------------------------------------------------

    def from_connect_schema(self, schema: Schema) -> AvroSchema:
        """The Avro schema Confluent's converter registers for `schema`."""
        return self._from_connect(schema, _FromConnectContext(), ignore_optional=False)

    def _with_cycle(self, schema: Schema, ctx: _FromConnectContext, ignore_optional: bool) -> AvroSchema:
        if schema.name is not None and schema.name in ctx.cycle_references:
            resolved = ctx.cycle_references[schema.name]
            return resolved if ignore_optional else self._maybe_optional(schema, resolved)
        return self._from_connect(schema, ctx, ignore_optional)

    @staticmethod
    def _maybe_optional(schema: Schema, base: AvroSchema) -> AvroSchema:
        if not schema.optional:
            return base
        if schema.default_value is not None:
            return AvroSchema("union", branches=[base, NULL_SCHEMA])
        return AvroSchema("union", branches=[NULL_SCHEMA, base])

    @staticmethod
    def _non_optional(schema: Schema) -> Schema:
        return schema if not schema.optional else dataclasses.replace(schema, optional=False)

    def _from_connect(self, schema: Schema, ctx: _FromConnectContext, ignore_optional: bool) -> AvroSchema:
        settings = self.settings
        if not is_union_schema(schema) and not schema.optional:
            cached = ctx.schema_map.get(schema)
            if cached is not None:
                return cached
        params = schema.parameters
        connect_type: str | None = None
        kind = schema.type
        base: AvroSchema
        if kind in (Type.INT8, Type.INT16):
            connect_type = kind.value
            base = AvroSchema("int")
        elif kind is Type.STRING and settings.enhanced_schema_support and params and AVRO_TYPE_ENUM in params:
            prefix = AVRO_TYPE_ENUM + "."
            symbols = [key[len(prefix) :] for key in params if key.startswith(prefix)]
            _, simple = self._name_or_default(ctx, schema.name)
            if settings.discard_type_doc_default:
                doc, default = params.get(CONNECT_ENUM_DOC_PROP), None
            else:
                doc = params.get(AVRO_ENUM_DOC_PREFIX_PROP + simple)
                default = params.get(AVRO_ENUM_DEFAULT_PREFIX_PROP + simple)
            base = AvroSchema(
                "enum", full_name=params[AVRO_TYPE_ENUM], doc=doc, symbols=symbols, enum_default=default
            )
        elif kind is Type.BYTES:
            if is_fixed_schema(schema):
                space, simple = self._name_or_default(ctx, schema.name)
                assert params is not None
                base = AvroSchema(
                    "fixed",
                    full_name=self._full(space, simple),
                    size=int(params[CONNECT_AVRO_FIXED_SIZE_PROP]),
                )
            else:
                base = AvroSchema("bytes")
            if lower_name(schema.name) == logical.Decimal.LOGICAL_NAME.lower():
                assert params is not None
                base.add_prop("scale", int(params[logical.Decimal.SCALE_FIELD]))
                base.add_prop(
                    "precision",
                    int(
                        params.get(
                            CONNECT_AVRO_DECIMAL_PRECISION_PROP, CONNECT_AVRO_DECIMAL_PRECISION_DEFAULT
                        )
                    ),
                )
        elif kind in AVRO_PRIMITIVE:
            base = AvroSchema(AVRO_PRIMITIVE[kind])
        elif kind is Type.ARRAY:
            assert schema.value_schema is not None
            base = AvroSchema("array", element=self._with_cycle(schema.value_schema, ctx, False))
        elif kind is Type.MAP:
            assert schema.key_schema is not None and schema.value_schema is not None
            if string_keyed(schema, settings.allow_optional_map_keys):
                base = AvroSchema("map", element=self._with_cycle(schema.value_schema, ctx, False))
            else:
                if schema.name is None:
                    entry = AvroSchema("record", full_name=f"{NAMESPACE}.{MAP_ENTRY_TYPE_NAME}")
                else:
                    space, simple = self._name_or_default(ctx, schema.name)
                    entry = AvroSchema("record", full_name=self._full(space, simple))
                    entry.add_prop(CONNECT_INTERNAL_TYPE_NAME, MAP_ENTRY_TYPE_NAME)
                fields: list[AvroField] = []
                self._add_field(fields, KEY_FIELD, schema.key_schema, None, ctx)
                self._add_field(fields, VALUE_FIELD, schema.value_schema, None, ctx)
                entry.fields = fields
                base = AvroSchema("array", element=entry)
        elif is_union_schema(schema):
            branches = [NULL_SCHEMA] if schema.optional else []
            branches += [self._with_cycle(self._non_optional(f.schema), ctx, True) for f in schema.fields]
            base = AvroSchema("union", branches=branches)
        elif schema.optional:
            base = AvroSchema(
                "union", branches=[NULL_SCHEMA, self._with_cycle(self._non_optional(schema), ctx, False)]
            )
        else:
            space, simple = self._name_or_default(ctx, schema.name)
            doc_key = CONNECT_RECORD_DOC_PROP if settings.discard_type_doc_default else AVRO_RECORD_DOC_PROP
            base = AvroSchema(
                "record", full_name=self._full(space, simple), doc=params.get(doc_key) if params else None
            )
            if schema.name is not None:
                ctx.cycle_references[schema.name] = base
            fields = []
            for f in schema.fields:
                field_doc = None
                if not settings.discard_type_doc_default and params is not None:
                    field_doc = params.get(AVRO_FIELD_DOC_PREFIX_PROP + f.name)
                self._add_field(fields, self.scrub(f.name), f.schema, field_doc, ctx)
            base.fields = fields

        final = base
        if base.type != "union":
            self._add_metadata(schema, base, connect_type)
            if not ignore_optional:
                final = self._maybe_optional(schema, base)
        if not schema.optional:
            ctx.schema_map[schema] = final
        return final

    def _add_metadata(self, schema: Schema, base: AvroSchema, connect_type: str | None) -> None:
        settings = self.settings
        params = schema.parameters
        if settings.connect_meta_data:
            if schema.doc is not None:
                base.add_prop(CONNECT_DOC_PROP, schema.doc)
            if schema.version is not None:
                base.add_prop(CONNECT_VERSION_PROP, schema.version)
            if params is not None:
                shown = self._parameters_from_connect(params)
                if shown:
                    base.add_prop(CONNECT_PARAMETERS_PROP, shown)
            if schema.default_value is not None and (
                settings.discard_type_doc_default
                or params is None
                or AVRO_FIELD_DEFAULT_FLAG_PROP not in params
            ):
                base.add_prop(
                    CONNECT_DEFAULT_VALUE_PROP, self.default_from_connect(schema, schema.default_value)
                )
            if schema.name is not None:
                base.add_prop(CONNECT_NAME_PROP, schema.name)
            if connect_type is not None:
                base.add_prop(CONNECT_TYPE_PROP, connect_type)
        force_legacy_decimal = False
        lowered = lower_name(schema.name)
        if lowered is not None:
            if lowered == logical.Decimal.LOGICAL_NAME.lower():
                assert params is not None
                precision = int(
                    params.get(CONNECT_AVRO_DECIMAL_PRECISION_PROP, CONNECT_AVRO_DECIMAL_PRECISION_DEFAULT)
                )
                scale = int(params.get(logical.Decimal.SCALE_FIELD, 0))
                if scale < 0 or scale > precision:
                    force_legacy_decimal = True
                else:
                    if precision <= 0:
                        raise DataError(f"Invalid decimal precision: {precision} (must be positive)")
                    most = int(
                        (8 * base.size - 1) * 0.3010299956639812
                    )  # Avro's maxPrecision: floor(log10(2^(8n-1)))
                    if base.type == "fixed" and precision > most:
                        raise DataError(f"fixed({base.size}) cannot store {precision} digits (max {most})")
                    base.add_prop(AVRO_LOGICAL_TYPE_PROP, "decimal")
                    base.add_prop("precision", precision)
                    base.add_prop("scale", scale)
                if CONNECT_AVRO_DECIMAL_PRECISION_PROP in params or force_legacy_decimal:
                    base.add_prop(AVRO_LOGICAL_TYPE_PROP, "decimal")
            else:
                for connect_name, avro_name in LOGICAL_AVRO.items():
                    if lowered == connect_name.lower():
                        base.add_prop(AVRO_LOGICAL_TYPE_PROP, avro_name)
        if params is not None:
            for key, value in params.items():
                if key.startswith(AVRO_PROP):
                    base.add_prop(key, value)

    def _parameters_from_connect(self, params: Mapping[str, str]) -> dict[str, str]:
        return {
            k: v
            for k, v in params.items()
            if self.settings.discard_type_doc_default or k != AVRO_FIELD_DEFAULT_FLAG_PROP
        }

    def _add_field(
        self,
        fields: list[AvroField],
        name: str,
        field_schema: Schema,
        doc: str | None,
        ctx: _FromConnectContext,
    ) -> None:
        default: Any = NO_DEFAULT
        if field_schema.default_value is not None:
            default = self.default_from_connect(field_schema, field_schema.default_value)
        elif field_schema.optional:
            default = None
        scrubbed = self.scrub_full_name(field_schema.name)
        already_seen = scrubbed is not None and scrubbed in ctx.seen_named_types
        if scrubbed is not None:
            ctx.seen_named_types.add(scrubbed)
        avro = self._from_connect(field_schema, ctx, ignore_optional=False)
        if default is not NO_DEFAULT and not is_valid_default(avro, default):
            default = NO_DEFAULT  # Avro refuses it; Confluent logs "Ignoring invalid default" and goes on
        avro_field = AvroField(
            name, avro, field_schema.doc if self.settings.discard_type_doc_default else doc, default
        )
        if (
            self.settings.connect_meta_data
            and already_seen
            and field_schema.parameters
            and (avro.is_named or any(b.is_named for b in avro.branches))
        ):
            shown = self._parameters_from_connect(field_schema.parameters)
            if shown:
                avro_field.props[CONNECT_PARAMETERS_PROP] = shown
        fields.append(avro_field)

    def default_from_connect(self, schema: Schema, value: Any) -> Any:
        """A Connect default as the JSON tree Confluent writes (``connect.default`` and field defaults)."""
        if value is None:
            return None
        raw = to_avro_logical(schema, value)
        kind = schema.type
        try:
            if kind in (Type.INT8, Type.INT16, Type.INT32, Type.INT64):
                if not isinstance(raw, int) or isinstance(raw, bool):
                    raise TypeError
                return int(raw)
            if kind is Type.FLOAT32:
                return JavaFloat(to_float32(float(raw)))
            if kind is Type.FLOAT64:
                return float(raw)
            if kind is Type.BOOLEAN:
                return bool(raw)
            if kind is Type.STRING:
                if not isinstance(raw, str):
                    raise TypeError
                return raw
            if kind is Type.BYTES:
                return bytes(raw).decode("latin-1")
            if kind is Type.ARRAY:
                assert schema.value_schema is not None
                return [self.default_from_connect(schema.value_schema, v) for v in raw]
            if kind is Type.MAP:
                assert schema.key_schema is not None and schema.value_schema is not None
                if string_keyed(schema, self.settings.allow_optional_map_keys):
                    return {str(k): self.default_from_connect(schema.value_schema, v) for k, v in raw.items()}
                return [
                    [
                        self.default_from_connect(schema.key_schema, k),
                        self.default_from_connect(schema.value_schema, v),
                    ]
                    for k, v in raw.items()
                ]
            struct: Struct = raw
            node: dict[str, Any] = {}
            for f in schema.fields:
                member = self.default_from_connect(f.schema, struct.get(f))
                if is_union_schema(schema):
                    return member
                node[self.scrub(f.name)] = member
            return node
        except (TypeError, AttributeError, ValueError) as e:
            raise DataError(
                f"Invalid type used for default value of {kind} field: {type(schema.default_value).__name__}"
            ) from e
