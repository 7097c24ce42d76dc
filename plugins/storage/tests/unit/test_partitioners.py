"""The partitioners, timestamp extractors and partitioner keys, against Confluent's behaviour and texts.

Expected directories follow Confluent's kafka-connect-storage-common (``DefaultPartitioner``,
``FieldPartitioner``, ``TimeBasedPartitioner``, ``DailyPartitioner``, ``HourlyPartitioner``,
``PartitionerConfig``); the dates were checked with Joda-Time 2.14.1 (see
test_partitioners_time.py).
"""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from kconnect import SinkRecord, Struct
from kconnect.config import ConfigDef, ConfigException
from kconnect.data import logical
from kconnect.data.schema import SchemaBuilder
from kconnect.errors import DataError
from kconnect.records import TimestampType
from kconnect_storage.partitioners.config import (
    add_partitioner_errors,
    define_partitioner_keys,
    partitioner,
    partitioner_problems,
    time_zone,
    timestamp_extractor,
)
from kconnect_storage.partitioners.default import DefaultPartitioner
from kconnect_storage.partitioners.extractors import (
    RecordFieldTimestampExtractor,
    RecordTimestampExtractor,
    WallclockTimestampExtractor,
)
from kconnect_storage.partitioners.field import FieldPartitioner
from kconnect_storage.partitioners.time_based import TimeBasedPartitioner

STORAGE = "io.confluent.connect.storage.partitioner."
HDFS = "io.confluent.connect.hdfs.partitioner."
NOW = 1500000000000  # 2017-07-14T02:40:00Z

ADDRESS = SchemaBuilder.struct().field("city", SchemaBuilder.string().optional().build()).build()
VALUE_SCHEMA = (
    SchemaBuilder.struct()
    .name("Order")
    .field("id", SchemaBuilder.int64().build())
    .field("count", SchemaBuilder.int8().build())
    .field("country", SchemaBuilder.string().optional().build())
    .field("paid", SchemaBuilder.bool().build())
    .field("price", SchemaBuilder.float64().build())
    .field("address", ADDRESS)
    .field("created", logical.Timestamp.builder().build())
    .field("created_ms", SchemaBuilder.int64().build())
    .field("created_text", SchemaBuilder.string().build())
    .field("day", logical.Date.builder().build())
    .build()
)


def order(**changes: Any) -> Struct:
    values: dict[str, Any] = {
        "id": 42,
        "count": -3,
        "country": "fr",
        "paid": True,
        "price": 9.5,
        "address": Struct(ADDRESS).put("city", "Paris"),
        "created": datetime.datetime(2017, 7, 14, 2, 40, tzinfo=datetime.timezone.utc),
        "created_ms": NOW,
        "created_text": "2017-07-14T04:40:00+02:00",
        "day": datetime.date(2017, 7, 14),
    }
    values.update(changes)
    struct = Struct(VALUE_SCHEMA)
    for name, value in values.items():
        struct.put(name, value)
    return struct


def record(value: Any = None, *, partition: int | None = 3, timestamp: int | None = NOW) -> SinkRecord:
    return SinkRecord(
        topic="orders",
        kafka_partition=partition,
        value_schema=value.schema if isinstance(value, Struct) else None,
        value=value,
        timestamp=timestamp,
        kafka_offset=7,
        timestamp_type=TimestampType.CREATE_TIME,
    )


def time_based(**config: str) -> dict[str, str]:
    return {
        "partitioner.class": STORAGE + "TimeBasedPartitioner",
        "partition.duration.ms": "3600000",
        "path.format": "'year'=YYYY/'month'=MM/'day'=dd/'hour'=HH",
        "locale": "en",
        "timezone": "UTC",
        **config,
    }


# --- Default ---------------------------------------------------------------------------------------


def test_default_partitioner_keeps_kafka_partitions() -> None:
    built = partitioner({})
    assert isinstance(built, DefaultPartitioner)
    encoded = built.encode_partition(record(partition=3), NOW)
    assert encoded == "partition=3"
    assert built.partitioned_path("orders", encoded) == "orders/partition=3"


def test_directory_delim_joins_topic_and_partition() -> None:
    built = partitioner({"partitioner.class": HDFS + "DefaultPartitioner", "directory.delim": "_"})
    assert built.partitioned_path("orders", "partition=0") == "orders_partition=0"


# --- Field -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ("id", "id=42"),
        ("count", "count=-3"),
        ("country", "country=fr"),
        ("paid", "paid=true"),
        ("address.city", "address.city=Paris"),
        ("country,id, paid", "country=fr/id=42/paid=true"),
    ],
)
def test_field_partitioner_names_directories_by_fields(fields: str, expected: str) -> None:
    built = partitioner({"partitioner.class": STORAGE + "FieldPartitioner", "partition.field.name": fields})
    assert isinstance(built, FieldPartitioner)
    assert built.encode_partition(record(order()), NOW) == expected


def test_field_partitioner_null_value_is_named_null() -> None:
    built = FieldPartitioner(["country", "address.city"], "/")
    value = order(country=None, address=Struct(ADDRESS))
    assert built.encode_partition(record(value), NOW) == "country=null/address.city=null"


def test_field_partitioner_joins_with_directory_delim() -> None:
    built = partitioner(
        {
            "partitioner.class": HDFS + "FieldPartitioner",
            "partition.field.name": "country,id",
            "directory.delim": "-",
        }
    )
    assert built.encode_partition(record(order()), NOW) == "country=fr-id=42"
    assert built.partitioned_path("orders", "country=fr-id=42") == "orders-country=fr-id=42"


@pytest.mark.parametrize(
    ("field", "message"),
    [
        (
            "price",
            "Error encoding partition: type FLOAT64 of field 'price' is not supported as a partition key.",
        ),
        (
            "address",
            "Error encoding partition: type STRUCT of field 'address' is not supported as a partition key.",
        ),
        (
            "day",
            "Error encoding partition: type org.apache.kafka.connect.data.Date of field 'day' is not "
            "supported as a partition key.",
        ),
        ("missing", "Field 'missing' is not present in the schema."),
        ("address.street", "Field 'address.street' is not present in the schema."),
    ],
)
def test_field_partitioner_refuses_what_confluent_refuses(field: str, message: str) -> None:
    with pytest.raises(DataError) as raised:
        FieldPartitioner([field]).encode_partition(record(order()), NOW)
    assert str(raised.value) == message


def test_field_partitioner_needs_a_struct() -> None:
    with pytest.raises(
        DataError, match=r"^Error encoding partition: FieldPartitioner needs a Struct value, got dict"
    ):
        FieldPartitioner(["id"]).encode_partition(record({"id": 1}), NOW)


# --- TimeBased, Daily, Hourly ----------------------------------------------------------------------


def test_time_based_partitioner_prints_the_bucket_of_the_record_time() -> None:
    built = partitioner(time_based(**{"timestamp.extractor": "Record"}))
    assert isinstance(built, TimeBasedPartitioner)
    encoded = built.encode_partition(record(timestamp=NOW + 1234), 0)
    assert encoded == "year=2017/month=07/day=14/hour=02"
    assert built.partitioned_path("orders", encoded) == "orders/year=2017/month=07/day=14/hour=02"


def test_time_based_partitioner_drops_a_trailing_delimiter_of_path_format() -> None:
    built = partitioner(time_based(**{"path.format": "YYYY/MM/", "timezone": "America/New_York"}))
    assert built.encode_partition(record(), NOW) == "2017/07"


def test_wallclock_is_the_default_extractor() -> None:
    built = partitioner(time_based())
    assert built.encode_partition(record(timestamp=0), NOW) == "year=2017/month=07/day=14/hour=02"


@pytest.mark.parametrize(
    ("kind", "delim", "zone", "expected"),
    [
        ("DailyPartitioner", "/", "UTC", "year=2017/month=07/day=14"),
        ("DailyPartitioner", "/", "America/Los_Angeles", "year=2017/month=07/day=13"),
        ("HourlyPartitioner", "/", "UTC", "year=2017/month=07/day=14/hour=02"),
        ("HourlyPartitioner", "_", "Asia/Tokyo", "year=2017_month=07_day=14_hour=11"),
    ],
)
def test_daily_and_hourly_have_fixed_formats(kind: str, delim: str, zone: str, expected: str) -> None:
    # path.format and partition.duration.ms are overridden, as Confluent's configure() does
    config = {
        "partitioner.class": STORAGE + kind,
        "locale": "en",
        "timezone": zone,
        "directory.delim": delim,
        "path.format": "'ignored'",
        "partition.duration.ms": "-1",
    }
    assert partitioner(config).encode_partition(record(), NOW) == expected


def test_locale_names_months_in_path_format() -> None:
    built = partitioner(
        time_based(**{"path.format": "YYYY/MMMM", "locale": "fr", "partition.duration.ms": "86400000"})
    )
    assert built.encode_partition(record(), NOW) == "2017/juillet"


# --- timestamp extractors --------------------------------------------------------------------------


def test_wallclock_returns_now() -> None:
    assert WallclockTimestampExtractor().extract(record(timestamp=5), NOW) == NOW


def test_record_extractor_returns_the_record_timestamp() -> None:
    assert RecordTimestampExtractor().extract(record(timestamp=5), NOW) == 5


def test_record_extractor_without_timestamp_fails_with_confluents_text() -> None:
    with pytest.raises(DataError) as raised:
        RecordTimestampExtractor().extract(record(timestamp=None), NOW)
    assert str(raised.value) == (
        "Unable to determine timestamp using timestamp.extractor "
        "io.confluent.connect.storage.partitioner.TimeBasedPartitioner$RecordTimestampExtractor for record: "
        "SinkRecord{kafkaOffset=7, timestampType=CreateTime} "
        "ConnectRecord{topic='orders', kafkaPartition=3, timestamp=None}"
    )


@pytest.mark.parametrize("field", ["created", "created_ms", "created_text"])
def test_record_field_reads_struct_timestamp_int64_and_iso_fields(field: str) -> None:
    assert RecordFieldTimestampExtractor(field).extract(record(order()), 0) == NOW


def test_record_field_reads_int32_fields() -> None:
    schema = SchemaBuilder.struct().field("t", SchemaBuilder.int32().build()).build()
    assert RecordFieldTimestampExtractor("t").extract(record(Struct(schema).put("t", 86400)), 0) == 86400


def test_record_field_reads_a_string_of_digits_as_millis() -> None:
    value = order(created_text="1500000000000")
    assert RecordFieldTimestampExtractor("created_text").extract(record(value), 0) == NOW


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"ts": NOW}, NOW),
        ({"ts": 1500000000000.9}, NOW),
        ({"ts": "2017-07-14T02:40:00Z"}, NOW),
        ({"ts": "-5"}, -5),
        ({"ts": datetime.datetime(2017, 7, 14, 2, 40, tzinfo=datetime.timezone.utc)}, NOW),
    ],
)
def test_record_field_reads_schemaless_maps(value: dict[str, Any], expected: int) -> None:
    assert RecordFieldTimestampExtractor("ts").extract(record(value), 0) == expected


def test_record_field_reads_nested_fields() -> None:
    assert RecordFieldTimestampExtractor("meta.ts").extract(record({"meta": {"ts": 7}}), 0) == 7


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        (
            "price",
            order(),
            "Error extracting timestamp from record field: price (unsupported type 'FLOAT64' ",
        ),
        ("paid", order(), "Error extracting timestamp from record field: paid (unsupported type 'BOOLEAN' "),
        (
            "day",
            order(),
            "Error extracting timestamp from record field: day "
            "(unsupported type 'org.apache.kafka.connect.data.Date' ",
        ),
        ("ts", {"ts": True}, "Error extracting timestamp from record field: ts (unsupported type 'bool' "),
        ("ts", {"ts": [1]}, "Error extracting timestamp from record field: ts (unsupported type 'list' "),
        ("missing", order(), "The field 'missing' does not exist."),
        ("ts", {"other": 1}, "The field 'ts' does not exist."),
        ("ts", {"ts": None}, "The field 'ts' does not exist."),
        ("ts", "text", "Error encoding partition."),
        ("ts", None, "Error encoding partition."),
        (
            "created_text",
            order(created_text="yesterday"),
            'Error extracting timestamp from record field: created_text: Invalid format: "yesterday"',
        ),
    ],
)
def test_record_field_errors_name_the_field(field: str, value: Any, message: str) -> None:
    with pytest.raises(DataError) as raised:
        RecordFieldTimestampExtractor(field).extract(record(value), 0)
    assert str(raised.value).startswith(message)


def test_a_huge_digit_string_is_parsed_as_iso_like_java_after_long_overflow() -> None:
    # 19 digits over Long.MAX_VALUE: Long.valueOf fails, then the ISO parser refuses it
    with pytest.raises(DataError, match='Invalid format: "9999999999999999999"'):
        RecordFieldTimestampExtractor("ts").extract(record({"ts": "9999999999999999999"}), 0)


def test_timestamp_extractor_for_rotation() -> None:
    assert isinstance(timestamp_extractor({}), WallclockTimestampExtractor)
    assert isinstance(timestamp_extractor({"timestamp.extractor": "Record"}), WallclockTimestampExtractor)
    assert isinstance(
        timestamp_extractor(time_based(**{"timestamp.extractor": "Record"})), RecordTimestampExtractor
    )
    by_class = time_based(
        **{"timestamp.extractor": STORAGE + "TimeBasedPartitioner$RecordFieldTimestampExtractor"}
    )
    extractor = timestamp_extractor(by_class)
    assert isinstance(extractor, RecordFieldTimestampExtractor)
    assert extractor.field_name == "timestamp"


# --- keys and validation ---------------------------------------------------------------------------


def validate(config: dict[str, str]) -> dict[str, list[str]]:
    values = define_partitioner_keys(ConfigDef()).validate(config)
    add_partitioner_errors(config, values)
    return {name: value.errors for name, value in values.items() if value.errors}


def test_defaults_are_confluents() -> None:
    keys = define_partitioner_keys(ConfigDef()).config_keys
    assert keys["partitioner.class"].default == STORAGE + "DefaultPartitioner"
    assert keys["partition.field.name"].default == []
    assert keys["partition.duration.ms"].default == -1
    assert keys["path.format"].default == ""
    assert keys["locale"].default == ""
    assert keys["timezone"].default == ""
    assert keys["timestamp.extractor"].default == "Wallclock"
    assert keys["timestamp.field"].default == "timestamp"
    assert keys["directory.delim"].default == "/"
    assert validate({}) == {}


def test_time_based_needs_duration_format_locale_and_timezone() -> None:
    assert validate({"partitioner.class": STORAGE + "TimeBasedPartitioner"}) == {
        "partition.duration.ms": [
            "Invalid value -1 for configuration partition.duration.ms: "
            "Partition duration needs to be a positive."
        ],
        "path.format": ["Invalid value  for configuration path.format: Path format cannot be empty."],
        "locale": ["Invalid value  for configuration locale: Locale cannot be empty."],
        "timezone": ["Invalid value  for configuration timezone: Timezone cannot be empty."],
    }


def test_a_zero_duration_is_refused() -> None:
    assert validate(time_based(**{"partition.duration.ms": "0"})) == {
        "partition.duration.ms": [
            "Invalid value 0 for configuration partition.duration.ms: "
            "Partition duration needs to be a positive."
        ]
    }


@pytest.mark.parametrize("kind", ["DailyPartitioner", "HourlyPartitioner"])
def test_daily_and_hourly_need_locale_and_timezone(kind: str) -> None:
    assert validate({"partitioner.class": HDFS + kind}) == {
        "locale": ["Invalid value  for configuration locale: Locale cannot be empty."],
        "timezone": ["Invalid value  for configuration timezone: Timezone cannot be empty."],
    }


@pytest.mark.parametrize(
    ("path_format", "message"),
    [
        ("/", "Invalid value / for configuration path.format: Path format cannot be empty."),
        ("  ", "Invalid value  for configuration path.format: Path format cannot be empty."),  # Kafka trims
        ("dt=YYYY", "Invalid value dt=YYYY for configuration path.format: Illegal pattern component: t"),
        (
            "YYYY/zzz",
            "Invalid value YYYY/zzz for configuration path.format: Unsupported pattern component: zzz "
            "(time zone names); use Z, ZZ (offset) or ZZZ (zone id) instead",
        ),
    ],
)
def test_bad_path_format(path_format: str, message: str) -> None:
    assert validate(time_based(**{"path.format": path_format})) == {"path.format": [message]}


def test_timezone_is_checked_by_its_validator() -> None:
    assert validate({"timezone": "Mars/Olympus"}) == {
        "timezone": [
            "Invalid value Mars/Olympus for configuration timezone: "
            "The datetime zone id 'Mars/Olympus' is not recognised"
        ]
    }


def test_field_partitioner_needs_field_names() -> None:
    assert validate({"partitioner.class": STORAGE + "FieldPartitioner"}) == {
        "partition.field.name": ["Partition field name cannot be null or empty when using FieldPartitioner."]
    }


@pytest.mark.parametrize(
    ("names", "message"),
    [
        ("a,,b", "Invalid value  for configuration partition.field.name: Field name cannot be null or empty"),
        (
            "a..b",
            "Invalid value a..b for configuration partition.field.name: "
            "Field name cannot contain an empty or whitespace-only path segment",
        ),
        (
            ".a",
            "Invalid value .a for configuration partition.field.name: Field name cannot contain an empty or "
            "whitespace-only path segment",
        ),
    ],
)
def test_partition_field_names_are_checked(names: str, message: str) -> None:
    errors = validate({"partitioner.class": STORAGE + "FieldPartitioner", "partition.field.name": names})
    assert errors == {"partition.field.name": [message]}


def test_unknown_partitioner_class() -> None:
    errors = validate({"partitioner.class": "com.example.MyPartitioner"})
    assert errors == {
        "partitioner.class": [
            "Invalid value com.example.MyPartitioner for configuration partitioner.class: "
            "Class com.example.MyPartitioner could not be found."
        ]
    }


def test_unknown_timestamp_extractor() -> None:
    errors = validate({"timestamp.extractor": "Kafka"})
    assert list(errors) == ["timestamp.extractor"]
    assert errors["timestamp.extractor"][0].startswith(
        "Invalid value Kafka for configuration timestamp.extractor: Invalid timestamp extractor: Kafka"
    )


def test_record_field_needs_a_field() -> None:
    assert validate(time_based(**{"timestamp.extractor": "RecordField", "timestamp.field": " "})) == {
        "timestamp.field": [
            "Invalid value  for configuration timestamp.field: The field to extract cannot be null or empty."
        ]
    }


def test_partitioner_raises_the_first_problem() -> None:
    with pytest.raises(ConfigException) as raised:
        partitioner({"partitioner.class": STORAGE + "HourlyPartitioner", "timezone": "UTC"})
    assert raised.value.name == "locale"
    assert raised.value.message == "Invalid value  for configuration locale: Locale cannot be empty."
    assert [p.name for p in partitioner_problems({"partitioner.class": STORAGE + "HourlyPartitioner"})] == [
        "locale",
        "timezone",
    ]


def test_dependent_keys_are_shown_for_the_partitioner_that_reads_them() -> None:
    def shown(kind: str) -> set[str]:
        values = define_partitioner_keys(ConfigDef()).validate({"partitioner.class": STORAGE + kind})
        dependents = {"partition.field.name", "partition.duration.ms", "path.format", "locale", "timezone"}
        return {name for name in dependents if values[name].visible}

    assert shown("DefaultPartitioner") == set()
    assert shown("FieldPartitioner") == {"partition.field.name"}
    assert shown("TimeBasedPartitioner") == {"partition.duration.ms", "path.format", "locale", "timezone"}
    assert shown("DailyPartitioner") == {"locale", "timezone"}


def test_time_zone_for_scheduled_rotation() -> None:
    assert time_zone({}) is None
    zone = time_zone({"timezone": "US/Eastern"})
    assert zone is not None
    assert zone.id == "America/New_York"
