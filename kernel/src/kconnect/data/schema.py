"""Connect schemas: `Type`, the frozen `Schema` and `Field`, `SchemaBuilder`, `SchemaAndValue`.

The Python twin of Kafka's ``org.apache.kafka.connect.data`` schema classes. A `Schema` is immutable
and hashable (its hash is computed once), so converters can cache per-schema work keyed on it.
Build schemas with `SchemaBuilder`; `validate_value` checks a Python value against a schema:

    schema = SchemaBuilder.struct().name("point").field("x", INT32_SCHEMA).optional().build()
"""

from __future__ import annotations

import builtins
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import Enum
from types import MappingProxyType
from typing import Any, ClassVar

from kconnect.errors import DataError, SchemaBuilderError


class Type(str, Enum):
    """A schema's type, valued with Kafka's lower-case wire name (Kafka's `Schema.Type`)."""

    INT8 = "int8"
    INT16 = "int16"
    INT32 = "int32"
    INT64 = "int64"
    FLOAT32 = "float32"
    FLOAT64 = "float64"
    BOOLEAN = "boolean"
    STRING = "string"
    BYTES = "bytes"
    ARRAY = "array"
    MAP = "map"
    STRUCT = "struct"

    @property
    def is_primitive(self) -> bool:
        """Whether the type holds a single value (everything but ARRAY, MAP and STRUCT)."""
        return self not in (Type.ARRAY, Type.MAP, Type.STRUCT)

    def __str__(self) -> str:
        # Kafka's messages print the enum constant ("INT32"), so ours do too.
        return self.name


@dataclass(frozen=True, slots=True)
class Field:
    """One field of a STRUCT schema: its name, its position and its schema."""

    name: str
    index: int
    schema: Schema


@dataclass(frozen=True, eq=False)
class Schema:
    """An immutable Connect schema (Kafka's `ConnectSchema`).

    `fields` is empty unless the type is STRUCT; `key_schema` is set only for MAP and `value_schema`
    for ARRAY and MAP. `parameters` is a read-only mapping or None. Prefer `SchemaBuilder`, which
    checks its input, over calling this constructor.
    """

    type: Type
    optional: bool = False
    default_value: Any = None
    name: str | None = None
    version: int | None = None
    doc: str | None = None
    parameters: Mapping[str, str] | None = None
    fields: tuple[Field, ...] = ()
    key_schema: Schema | None = None
    value_schema: Schema | None = None
    _fields_by_name: Mapping[str, Field] = field(init=False, repr=False)
    _hash: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.parameters is not None and not isinstance(self.parameters, MappingProxyType):
            object.__setattr__(self, "parameters", MappingProxyType(dict(self.parameters)))
        object.__setattr__(self, "fields", tuple(self.fields))
        object.__setattr__(self, "_fields_by_name", {f.name: f for f in self.fields})
        key = (
            self.type,
            self.optional,
            self.name,
            self.version,
            self.fields,
            self.key_schema,
            self.value_schema,
        )
        object.__setattr__(self, "_hash", hash(key))

    def field(self, name: str) -> Field | None:
        """The field called `name`, or None; raises DataError when this is not a STRUCT schema."""
        if self.type is not Type.STRUCT:
            raise DataError("Cannot look up fields on non-struct type")
        return self._fields_by_name.get(name)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Schema) or self._hash != other._hash:
            return False
        return (
            self.type is other.type
            and self.optional == other.optional
            and self.name == other.name
            and self.version == other.version
            and self.doc == other.doc
            and self.fields == other.fields
            and self.key_schema == other.key_schema
            and self.value_schema == other.value_schema
            and _same_value(self.default_value, other.default_value)
            and self.parameters == other.parameters
        )

    def __str__(self) -> str:
        return f"Schema{{{self.name}:{self.type}}}" if self.name is not None else f"Schema{{{self.type}}}"


def _same_value(a: Any, b: Any) -> bool:
    # bool == int in Python; a default of True must not equal a default of 1.
    return type(a) is type(b) and bool(a == b)


@dataclass(frozen=True, slots=True)
class SchemaAndValue:
    """A schema with a value of it, as converters return (Kafka's `SchemaAndValue`).

    Unpacks as a pair: ``schema, value = converter.to_connect_data(topic, data)``.
    """

    schema: Schema | None
    value: Any

    NULL: ClassVar[SchemaAndValue]

    def __iter__(self) -> Iterator[Any]:
        yield self.schema
        yield self.value


SchemaAndValue.NULL = SchemaAndValue(None, None)

INT8_SCHEMA = Schema(Type.INT8)
INT16_SCHEMA = Schema(Type.INT16)
INT32_SCHEMA = Schema(Type.INT32)
INT64_SCHEMA = Schema(Type.INT64)
FLOAT32_SCHEMA = Schema(Type.FLOAT32)
FLOAT64_SCHEMA = Schema(Type.FLOAT64)
BOOLEAN_SCHEMA = Schema(Type.BOOLEAN)
STRING_SCHEMA = Schema(Type.STRING)
BYTES_SCHEMA = Schema(Type.BYTES)
OPTIONAL_INT8_SCHEMA = Schema(Type.INT8, optional=True)
OPTIONAL_INT16_SCHEMA = Schema(Type.INT16, optional=True)
OPTIONAL_INT32_SCHEMA = Schema(Type.INT32, optional=True)
OPTIONAL_INT64_SCHEMA = Schema(Type.INT64, optional=True)
OPTIONAL_FLOAT32_SCHEMA = Schema(Type.FLOAT32, optional=True)
OPTIONAL_FLOAT64_SCHEMA = Schema(Type.FLOAT64, optional=True)
OPTIONAL_BOOLEAN_SCHEMA = Schema(Type.BOOLEAN, optional=True)
OPTIONAL_STRING_SCHEMA = Schema(Type.STRING, optional=True)
OPTIONAL_BYTES_SCHEMA = Schema(Type.BYTES, optional=True)

_UNSET: Any = object()


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
        from kconnect.data.struct import validate_value  # struct.py imports this module

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
    if current is not None and not _same_value(current, new):
        raise SchemaBuilderError(f"Invalid SchemaBuilder call: {what} has already been set.")
