"""The names Confluent's ProtobufData gives Protobuf types and Connect schema parameters."""

from __future__ import annotations

NAMESPACE = "io.confluent.connect.protobuf"
DEFAULT_SCHEMA_NAME = "ConnectDefault"
MAP_ENTRY_SUFFIX = "Entry"
KEY_FIELD = "key"
VALUE_FIELD = "value"

#: Connect schema parameters.
TYPE_ENUM = NAMESPACE + ".Enum"
TYPE_UNION = NAMESPACE + ".Union"
TYPE_UNION_PREFIX = TYPE_UNION + "."
TYPE_TAG = NAMESPACE + ".Tag"
TYPE_PROP = NAMESPACE + ".Type"
TYPE_WRAPPER = NAMESPACE + ".Wrapper"
GENERALIZED_TYPE_UNION = "org.apache.kafka.connect.data.Union"
GENERALIZED_TYPE_ENUM = "org.apache.kafka.connect.data.Enum"
CONNECT_PRECISION_PROP = "connect.decimal.precision"
CONNECT_SCALE_PROP = "scale"
CONNECT_TYPE_PROP = "connect.type"

#: ``confluent.field_meta`` parameters.
PRECISION_PROP = "precision"
SCALE_PROP = "scale"

#: Well-known message types and the files defining them.
DECIMAL_TYPE = "confluent.type.Decimal"
DATE_TYPE = "google.type.Date"
TIME_TYPE = "google.type.TimeOfDay"
TIMESTAMP_TYPE = "google.protobuf.Timestamp"
VARIANT_TYPE = "confluent.type.Variant"
WRAPPERS_LOCATION = "google/protobuf/wrappers.proto"
TYPE_LOCATIONS = {
    DECIMAL_TYPE: "confluent/type/decimal.proto",
    DATE_TYPE: "google/type/date.proto",
    TIME_TYPE: "google/type/timeofday.proto",
    TIMESTAMP_TYPE: "google/protobuf/timestamp.proto",
}
DOUBLE_WRAPPER = "google.protobuf.DoubleValue"
FLOAT_WRAPPER = "google.protobuf.FloatValue"
INT64_WRAPPER = "google.protobuf.Int64Value"
UINT64_WRAPPER = "google.protobuf.UInt64Value"
INT32_WRAPPER = "google.protobuf.Int32Value"
UINT32_WRAPPER = "google.protobuf.UInt32Value"
BOOL_WRAPPER = "google.protobuf.BoolValue"
STRING_WRAPPER = "google.protobuf.StringValue"
BYTES_WRAPPER = "google.protobuf.BytesValue"
WRAPPER_TYPES = frozenset(
    {
        DOUBLE_WRAPPER,
        FLOAT_WRAPPER,
        INT64_WRAPPER,
        UINT64_WRAPPER,
        INT32_WRAPPER,
        UINT32_WRAPPER,
        BOOL_WRAPPER,
        STRING_WRAPPER,
        BYTES_WRAPPER,
    }
)
for _wrapper in WRAPPER_TYPES:
    TYPE_LOCATIONS[_wrapper] = WRAPPERS_LOCATION
