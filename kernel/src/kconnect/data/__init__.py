"""Connect's data API: schemas, structs, logical types and schemaless values.

Connectors and converters build values against `Schema`s made with `SchemaBuilder`::

    from kconnect.data import INT32_SCHEMA, STRING_SCHEMA, SchemaBuilder, Struct

    schema = SchemaBuilder.struct().name("user").field("id", INT32_SCHEMA).field("n", STRING_SCHEMA).build()
    user = Struct(schema).put("id", 7).put("n", "ada")

The names follow Kafka's ``org.apache.kafka.connect.data`` so Kafka's docs describe this package.
"""

from kconnect.data.logical import Date, Decimal, Time, Timestamp
from kconnect.data.projector import project
from kconnect.data.schema import (
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
    SchemaBuilder,
    Type,
)
from kconnect.data.struct import Struct, validate_value
from kconnect.data.values import convert_to_string, infer_schema, parse_string

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
    "Date",
    "Decimal",
    "Field",
    "Schema",
    "SchemaAndValue",
    "SchemaBuilder",
    "Struct",
    "Time",
    "Timestamp",
    "Type",
    "convert_to_string",
    "infer_schema",
    "parse_string",
    "project",
    "validate_value",
]
