"""Connect schemas: `SchemaBuilder`, and the public home of `Type`, `Schema`, `Field` and the rest.

The Python twin of Kafka's ``org.apache.kafka.connect.data`` schema classes. The frozen values
(`Type`, `Schema`, `Field`, `SchemaAndValue`, the constant schemas) are defined in
`kconnect.data.connect_schema` and imported from here; build schemas with `SchemaBuilder`, which
checks a default value with `kconnect.data.struct.validate_value`:

    schema = SchemaBuilder.struct().name("point").field("x", INT32_SCHEMA).optional().build()
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping
from typing import Any

from kconnect.data.connect_schema import (
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
    Field,
    Schema,
    SchemaAndValue,
    Type,
    same_value,
)
from kconnect.data.struct import validate_value
from kconnect.errors import DataError, SchemaBuilderError

__all__ = [
    "BOOLEAN_SCHEMA",
    "BYTES_SCHEMA",
    "FLOAT32_SCHEMA",
    "FLOAT64_SCHEMA",
    "INT8_SCHEMA",
    "INT16_SCHEMA",
    "INT32_SCHEMA",
    "INT64_SCHEMA",
    "OPTIONAL_BOOLEAN_SCHEMA",
    "OPTIONAL_BYTES_SCHEMA",
    "OPTIONAL_FLOAT32_SCHEMA",
    "OPTIONAL_FLOAT64_SCHEMA",
    "OPTIONAL_INT8_SCHEMA",
    "OPTIONAL_INT16_SCHEMA",
    "OPTIONAL_INT32_SCHEMA",
    "OPTIONAL_INT64_SCHEMA",
    "OPTIONAL_STRING_SCHEMA",
    "STRING_SCHEMA",
    "Field",
    "Schema",
    "SchemaAndValue",
    "SchemaBuilder",
    "Type",
]


class SchemaBuilder:
    """Builds a `Schema` step by step (Kafka's `SchemaBuilder`); every setter returns the builder.

    Each property may be set once; setting it again to a different value raises SchemaBuilderError
    ("Invalid SchemaBuilder call: name has already been set."), as in Kafka. A default value is
    validated against the schema built so far.
    """

    def __init__(self, type: Type) -> None:
        if type is None:
            raise SchemaBuilderError("type cannot be null")
        self._type = Type(type)
        self._optional: builtins.bool | None = None
        self._default: Any = None
        self._name: str | None = None
        self._version: int | None = None
        self._doc: str | None = None
        self._parameters: dict[str, str] | None = None
        self._fields: dict[str, Field] | None = {} if self._type is Type.STRUCT else None
        self._key_schema: Schema | None = None
        self._value_schema: Schema | None = None

    # --- factories --------------------------------------------------------------------------------

    @classmethod
    def of_type(cls, type: Type) -> SchemaBuilder:
        """A builder for any type (Kafka's `SchemaBuilder.type`)."""
        return cls(type)

    @classmethod
    def int8(cls) -> SchemaBuilder:
        """A builder for an INT8 schema."""
        return cls(Type.INT8)

    @classmethod
    def int16(cls) -> SchemaBuilder:
        """A builder for an INT16 schema."""
        return cls(Type.INT16)

    @classmethod
    def int32(cls) -> SchemaBuilder:
        """A builder for an INT32 schema."""
        return cls(Type.INT32)

    @classmethod
    def int64(cls) -> SchemaBuilder:
        """A builder for an INT64 schema."""
        return cls(Type.INT64)

    @classmethod
    def float32(cls) -> SchemaBuilder:
        """A builder for a FLOAT32 schema."""
        return cls(Type.FLOAT32)

    @classmethod
    def float64(cls) -> SchemaBuilder:
        """A builder for a FLOAT64 schema."""
        return cls(Type.FLOAT64)

    @classmethod
    def bool(cls) -> SchemaBuilder:
        """A builder for a BOOLEAN schema."""
        return cls(Type.BOOLEAN)

    @classmethod
    def string(cls) -> SchemaBuilder:
        """A builder for a STRING schema."""
        return cls(Type.STRING)

    @classmethod
    def bytes(cls) -> SchemaBuilder:
        """A builder for a BYTES schema."""
        return cls(Type.BYTES)

    @classmethod
    def struct(cls) -> SchemaBuilder:
        """A builder for a STRUCT schema; add fields with `field`."""
        return cls(Type.STRUCT)

    @classmethod
    def array(cls, value_schema: Schema) -> SchemaBuilder:
        """A builder for an ARRAY of `value_schema`."""
        if value_schema is None:
            raise SchemaBuilderError("valueSchema cannot be null.")
        builder = cls(Type.ARRAY)
        builder._value_schema = value_schema
        return builder

    @classmethod
    def map(cls, key_schema: Schema, value_schema: Schema) -> SchemaBuilder:
        """A builder for a MAP from `key_schema` to `value_schema`."""
        if key_schema is None:
            raise SchemaBuilderError("keySchema cannot be null.")
        if value_schema is None:
            raise SchemaBuilderError("valueSchema cannot be null.")
        builder = cls(Type.MAP)
        builder._key_schema = key_schema
        builder._value_schema = value_schema
        return builder

    # --- setters ----------------------------------------------------------------------------------

    @property
    def type(self) -> Type:
        """The type being built."""
        return self._type

    def optional(self) -> SchemaBuilder:
        """Allow null values."""
        _check_can_set("optional", self._optional, True)
        self._optional = True
        return self

    def required(self) -> SchemaBuilder:
        """Reject null values (the default)."""
        _check_can_set("optional", self._optional, False)
        self._optional = False
        return self

    def name(self, name: str) -> SchemaBuilder:
        """Set the schema's name (a logical type's name, or a struct's record name)."""
        _check_can_set("name", self._name, name)
        self._name = name
        return self

    def version(self, version: int) -> SchemaBuilder:
        """Set the schema's version."""
        _check_can_set("version", self._version, version)
        self._version = version
        return self

    def doc(self, doc: str) -> SchemaBuilder:
        """Set the schema's documentation."""
        _check_can_set("doc", self._doc, doc)
        self._doc = doc
        return self

    def parameter(self, name: str, value: str) -> SchemaBuilder:
        """Add one string parameter (logical types keep theirs here, e.g. Decimal's ``scale``)."""
        if self._parameters is None:
            self._parameters = {}
        self._parameters[name] = value
        return self

    def parameters(self, parameters: Mapping[str, str]) -> SchemaBuilder:
        """Add several parameters; an empty mapping leaves parameters unset."""
        if parameters:
            if self._parameters is None:
                self._parameters = {}
            self._parameters.update(parameters)
        return self

    def default_value(self, value: Any) -> SchemaBuilder:
        """Set the default value, after checking it against the schema built so far."""
        _check_can_set("default", self._default, value)
        try:
            validate_value(self.build(), value)
        except DataError as e:
            raise SchemaBuilderError(f"Invalid default value: {e}") from e
        self._default = value
        return self

    def field(self, name: str, schema: Schema) -> SchemaBuilder:
        """Append a field to a STRUCT schema."""
        if self._fields is None:
            raise SchemaBuilderError(f"Cannot create fields on type {self._type}")
        if not name:
            raise SchemaBuilderError("fieldName cannot be null.")
        if schema is None:
            raise SchemaBuilderError(f"fieldSchema for field {name} cannot be null.")
        if name in self._fields:
            raise SchemaBuilderError(f"Cannot create field because of field name duplication {name}")
        self._fields[name] = Field(name, len(self._fields), schema)
        return self

    def build(self) -> Schema:
        """The immutable schema."""
        return Schema(
            type=self._type,
            optional=bool(self._optional),
            default_value=self._default,
            name=self._name,
            version=self._version,
            doc=self._doc,
            parameters=dict(self._parameters) if self._parameters is not None else None,
            fields=tuple(self._fields.values()) if self._fields is not None else (),
            key_schema=self._key_schema,
            value_schema=self._value_schema,
        )


def _check_can_set(what: str, current: Any, new: Any) -> None:
    if current is not None and not same_value(current, new):
        raise SchemaBuilderError(f"Invalid SchemaBuilder call: {what} has already been set.")
