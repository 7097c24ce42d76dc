"""The settings of Confluent's ``JsonSchemaData`` that shape schemas and values (JsonSchemaDataConfig)."""

from __future__ import annotations

from dataclasses import dataclass

from kconnect.data.schema import Schema, Type

#: Confluent's namespace for its JSON Schema parameters; parameters in it are not written out.
NAMESPACE = "io.confluent.connect.json"
JSON_ID_PROP = NAMESPACE + ".Id"
JSON_TYPE_ENUM = NAMESPACE + ".Enum"
JSON_TYPE_ONE_OF = NAMESPACE + ".OneOf"
#: ``io.confluent.connect.schema.ConnectEnum`` / ``ConnectUnion`` parameters (generalized sum types).
GENERALIZED_TYPE_ENUM = "org.apache.kafka.connect.data.Enum"
GENERALIZED_TYPE_UNION = "org.apache.kafka.connect.data.Union"
GENERALIZED_UNION_PREFIX = "connect_union_"
NULL_MARKER = "<NULL>"

CONNECT_TYPE_PROP = "connect.type"
CONNECT_VERSION_PROP = "connect.version"
CONNECT_PARAMETERS_PROP = "connect.parameters"
CONNECT_INDEX_PROP = "connect.index"
CONNECT_TYPE_MAP = "map"
CONNECT_TYPE_BYTES = "bytes"
KEY_FIELD = "key"
VALUE_FIELD = "value"


@dataclass(frozen=True)
class JsonSchemaDataOptions:
    """What the mapping reads from the converter config (defaults are Confluent's)."""

    #: ``object.additional.properties``: structs allow undeclared properties (else ``false``).
    allow_additional_properties: bool = True
    #: ``use.optional.for.nonrequired``: properties not in ``required`` read as optional fields.
    use_optional_for_nonrequired: bool = False
    #: ``decimal.format=NUMERIC``: decimals as JSON numbers, else base64 strings.
    decimal_numeric: bool = False
    #: ``flatten.singleton.unions``: a ``oneOf`` of one schema reads as that schema.
    flatten_singleton_unions: bool = True
    #: ``ignore.default.for.nullables``: a null optional field is written null, not its default.
    ignore_default_for_nullables: bool = False
    #: ``json.fail.invalid.schema``: payloads are validated against the JSON Schema both ways.
    validate: bool = False
    #: ``generalized.sum.type.support``: unions and enums read with the parameters other formats share.
    generalized_sum_type_support: bool = False
    #: ``ignore.modern.dialects``: 2019-09 and 2020-12 schemas are treated as draft 7.
    ignore_modern_dialects: bool = False
    #: ``json.indent.output``: payloads written indented, as Jackson's pretty printer writes them.
    indent_output: bool = False


def is_union(schema: Schema) -> bool:
    """Whether `schema` is a union struct: Confluent's ``io.confluent.connect.json.OneOf``, or any struct
    with the generalized union parameter (a Protobuf oneof, an Avro union read with generalized types)."""
    if schema.type is not Type.STRUCT:
        return False
    return schema.name == JSON_TYPE_ONE_OF or GENERALIZED_TYPE_UNION in (schema.parameters or {})


#: The bits of Connect's integer types.
INTEGER_BITS = {Type.INT8: 8, Type.INT16: 16, Type.INT32: 32, Type.INT64: 64}
