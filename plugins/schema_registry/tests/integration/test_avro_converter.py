"""AvroConverter against a real registry (Apicurio's Confluent API), confluent-kafka's Avro serde as oracle.

For a table of Connect schemas covering every Connect type and logical type, nested structs,
arrays, maps with string and int keys, optional and default values:

* what kconnect's converter writes, confluent-kafka's ``AvroDeserializer`` reads as the expected
  Python data, and the text in the registry is the text Confluent's converter registers;
* what confluent-kafka's ``AvroSerializer`` writes with that same schema text, kconnect's converter
  reads as the expected Connect value, and both get the same schema id;
* schema evolution: an optional field added is version 2, an old reader still reads; an
  incompatible change under BACKWARD is a DataError naming the subject, the version and the registry.

Every test uses topics (and so subjects) of its own: the registry is shared by the session.
"""

from __future__ import annotations

import datetime
import decimal
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext
from kconnect.data import logical
from kconnect.data.schema import Schema, SchemaBuilder
from kconnect.data.struct import Struct
from kconnect.errors import DataError
from kconnect_schema_registry.avro.anything import ANYTHING_TEXT
from kconnect_schema_registry.avro.config import AvroDataSettings
from kconnect_schema_registry.avro.converter import AvroConverter
from kconnect_schema_registry.avro.mapping import AvroMapping

pytestmark = pytest.mark.integration

I32 = SchemaBuilder.int32().build()
STR = SchemaBuilder.string().build()
OPT_I32 = SchemaBuilder.int32().optional().build()
OPT_STR = SchemaBuilder.string().optional().build()
ENUM = "io.confluent.connect.avro.Enum"
UNION = "io.confluent.connect.avro.Union"
UTC = datetime.timezone.utc

POINT = SchemaBuilder.struct().name("geo.Point").field("x", I32).field("y", OPT_I32).build()
COLOR = (
    SchemaBuilder.string()
    .name("paint.Color")
    .parameters({ENUM: "paint.Color", f"{ENUM}.RED": "RED", f"{ENUM}.GREEN": "GREEN"})
    .build()
)
HASH = SchemaBuilder.bytes().name("crypto.Hash").parameter("connect.fixed.size", "4").build()
EITHER = SchemaBuilder.struct().name(UNION).field("int", OPT_I32).field("string", OPT_STR).build()
OPT_POINT = SchemaBuilder.struct().name("geo.Point").field("x", I32).field("y", OPT_I32).optional().build()
SHAPE = SchemaBuilder.struct().name(UNION).field("int", OPT_I32).field("Point", OPT_POINT).build()
ORDER = (
    SchemaBuilder.struct()
    .name("shop.Order")
    .doc("an order")
    .field("id", SchemaBuilder.int64().build())
    .field("small", SchemaBuilder.int8().build())
    .field("medium", SchemaBuilder.int16().build())
    .field("qty", I32)
    .field("ratio", SchemaBuilder.float32().build())
    .field("price", SchemaBuilder.float64().build())
    .field("paid", SchemaBuilder.bool().build())
    .field("item", STR)
    .field("blob", SchemaBuilder.bytes().build())
    .field("total", logical.Decimal.schema(2))
    .field("day", logical.Date.SCHEMA)
    .field("at", logical.Time.SCHEMA)
    .field("when", logical.Timestamp.SCHEMA)
    .field("note", OPT_STR)
    .field("priority", SchemaBuilder.int32().optional().default_value(3).build())
    .field("tags", SchemaBuilder.array(STR).build())
    .field("path", SchemaBuilder.array(POINT).build())
    .field("labels", SchemaBuilder.map(STR, OPT_I32).build())
    .field("by_id", SchemaBuilder.map(I32, POINT).build())
    .field("origin", POINT)
    .field("maybe", SchemaBuilder.struct().name("geo.Box").field("w", I32).optional().build())
    .build()
)
WHEN = datetime.datetime(2024, 2, 29, 23, 59, 58, 123000, tzinfo=UTC)


def order() -> Struct:
    """An ORDER value (priority left null: its default, 3, is written)."""
    return (
        Struct(ORDER)
        .put("id", 2**40)
        .put("small", -8)
        .put("medium", 1000)
        .put("qty", -3)
        .put("ratio", 0.5)
        .put("price", 19.99)
        .put("paid", True)
        .put("item", "thé")
        .put("blob", b"\x00\xff")
        .put("total", decimal.Decimal("-1234.50"))
        .put("day", datetime.date(2024, 2, 29))
        .put("at", datetime.time(13, 14, 15, 16000))
        .put("when", WHEN)
        .put("tags", ["a", "b"])
        .put("path", [Struct(POINT).put("x", 1), Struct(POINT).put("x", 2).put("y", 3)])
        .put("labels", {"k": 1, "none": None})
        .put("by_id", {7: Struct(POINT).put("x", 7).put("y", 8)})
        .put("origin", Struct(POINT).put("x", 0).put("y", 0))
    )


ORDER_DICT = {
    "id": 2**40,
    "small": -8,
    "medium": 1000,
    "qty": -3,
    "ratio": 0.5,
    "price": 19.99,
    "paid": True,
    "item": "thé",
    "blob": b"\x00\xff",
    "total": decimal.Decimal("-1234.50"),
    "day": datetime.date(2024, 2, 29),
    "at": datetime.time(13, 14, 15, 16000),
    "when": WHEN,
    "note": None,
    "priority": 3,
    "tags": ["a", "b"],
    "path": [{"x": 1, "y": None}, {"x": 2, "y": 3}],
    "labels": {"k": 1, "none": None},
    "by_id": [{"key": 7, "value": {"x": 7, "y": 8}}],
    "origin": {"x": 0, "y": 0},
    "maybe": None,
}

#: (case, Connect schema, Connect value, the Python value confluent-kafka reads/writes, settings).
CASES: list[tuple[str, Schema, Any, Any, dict[str, Any]]] = [
    ("int8", SchemaBuilder.int8().build(), -128, -128, {}),
    ("int16", SchemaBuilder.int16().build(), 32767, 32767, {}),
    ("int32", I32, -(2**31), -(2**31), {}),
    ("int64", SchemaBuilder.int64().build(), 2**63 - 1, 2**63 - 1, {}),
    ("float32", SchemaBuilder.float32().build(), 1.25, 1.25, {}),
    ("float64", SchemaBuilder.float64().build(), -0.1, -0.1, {}),
    ("boolean", SchemaBuilder.bool().build(), False, False, {}),
    ("string", STR, "ünïcode ✓", "ünïcode ✓", {}),
    ("bytes", SchemaBuilder.bytes().build(), b"\x00\x01\xfe", b"\x00\x01\xfe", {}),
    ("optional string", OPT_STR, "x", "x", {}),
    # A top-level bytes value (a Decimal too) is the payload itself, without Avro's length, in
    # Confluent's serializers (Java's and confluent-kafka's): the unscaled value's bytes.
    ("decimal", logical.Decimal.schema(3), decimal.Decimal("3.142"), b"\x0c\x46", {}),
    (
        "decimal with precision",
        logical.Decimal.builder(2).parameter("connect.decimal.precision", "9").build(),
        decimal.Decimal("-0.05"),
        b"\xfb",
        {},
    ),
    (
        "decimal in a struct",
        SchemaBuilder.struct().name("money.Amount").field("value", logical.Decimal.schema(3)).build(),
        Struct(
            SchemaBuilder.struct().name("money.Amount").field("value", logical.Decimal.schema(3)).build()
        ).put("value", decimal.Decimal("-3.142")),
        {"value": decimal.Decimal("-3.142")},
        {},
    ),
    ("date", logical.Date.SCHEMA, datetime.date(1969, 12, 31), datetime.date(1969, 12, 31), {}),
    ("time", logical.Time.SCHEMA, datetime.time(0, 0, 0, 1000), datetime.time(0, 0, 0, 1000), {}),
    ("timestamp", logical.Timestamp.SCHEMA, WHEN, WHEN, {}),
    ("array", SchemaBuilder.array(OPT_I32).build(), [1, None, 3], [1, None, 3], {}),
    ("map, string keys", SchemaBuilder.map(STR, I32).build(), {"a": 1}, {"a": 1}, {}),
    (
        "map, int keys",
        SchemaBuilder.map(I32, STR).build(),
        {1: "a", 2: "b"},
        [{"key": 1, "value": "a"}, {"key": 2, "value": "b"}],
        {},
    ),
    ("struct", POINT, Struct(POINT).put("x", 1), {"x": 1, "y": None}, {}),
    ("nested struct, every type", ORDER, order(), ORDER_DICT, {}),
    ("enum", COLOR, "GREEN", "GREEN", {"enhanced.avro.schema.support": "true"}),
    ("fixed", HASH, b"abcd", b"abcd", {}),
    ("union", EITHER, Struct(EITHER).put("string", "s"), "s", {}),
    (
        "union with a record",
        SHAPE,
        Struct(SHAPE).put("Point", Struct(OPT_POINT).put("x", 4)),
        {"x": 4, "y": None},
        {},
    ),
    ("union, the int branch", SHAPE, Struct(SHAPE).put("int", 9), 9, {}),
]
IDS = [c[0] for c in CASES]


@pytest.fixture
def converter(schema_registry: Any) -> Iterator[Callable[..., AvroConverter]]:
    """A factory of value AvroConverters configured on the session registry (closed at the end)."""
    made: list[AvroConverter] = []

    def make(**configs: Any) -> AvroConverter:
        avro = AvroConverter()
        avro.configure({"schema.registry.url": schema_registry.url, **configs}, False)
        made.append(avro)
        return avro

    yield make
    for avro in made:
        avro.close()


def topic_name() -> str:
    """A topic (and so a ``<topic>-value`` subject) of the test's own."""
    return f"avro-{uuid.uuid4().hex[:12]}"


def avro_settings(configs: dict[str, Any]) -> AvroDataSettings:
    """The mapping settings of a case's extra converter keys."""
    return AvroDataSettings(enhanced_schema_support=configs.get("enhanced.avro.schema.support") == "true")


def schema_id(message: bytes) -> int:
    """The schema id in a message's 5-byte header."""
    assert message[0] == 0
    return int.from_bytes(message[1:5], "big")


def versioned(schema: Schema, version: int) -> Schema:
    """`schema` as read back: the registry version on the top level when it has none of its own
    (not on an optional schema: Confluent maps a union with null to its branch without it)."""
    if schema.version is not None or schema.optional:
        return schema
    return Schema(
        type=schema.type,
        optional=schema.optional,
        default_value=schema.default_value,
        name=schema.name,
        version=version,
        doc=schema.doc,
        parameters=schema.parameters,
        fields=schema.fields,
        key_schema=schema.key_schema,
        value_schema=schema.value_schema,
    )


def plain(value: Any) -> Any:
    """A Connect value with Structs as dicts (to compare values whose struct schemas gained versions)."""
    if isinstance(value, Struct):
        return {f.name: plain(value.get(f)) for f in value.schema.fields}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


@pytest.mark.parametrize(("schema", "value", "expected", "configs"), [c[1:] for c in CASES], ids=IDS)
def test_confluent_reads_what_kconnect_writes(
    converter: Callable[..., AvroConverter],
    registry: SchemaRegistryClient,
    schema: Schema,
    value: Any,
    expected: Any,
    configs: dict[str, Any],
) -> None:
    topic = topic_name()
    message = converter(**configs).from_connect_data(topic, schema, value)
    assert message is not None
    registered = registry.get_latest_version(f"{topic}-value")
    assert registered.schema_id == schema_id(message)
    assert (
        registered.schema.schema_str == AvroMapping(avro_settings(configs)).from_connect_schema(schema).text()
    )
    read = AvroDeserializer(registry)(message, SerializationContext(topic, MessageField.VALUE))
    assert read == expected


@pytest.mark.parametrize(("schema", "value", "expected", "configs"), [c[1:] for c in CASES], ids=IDS)
def test_kconnect_reads_what_confluent_writes(
    converter: Callable[..., AvroConverter],
    registry: SchemaRegistryClient,
    schema: Schema,
    value: Any,
    expected: Any,
    configs: dict[str, Any],
) -> None:
    topic = topic_name()
    text = AvroMapping(avro_settings(configs)).from_connect_schema(schema).text()
    message = AvroSerializer(registry, text)(expected, SerializationContext(topic, MessageField.VALUE))
    avro = converter(**configs)
    read = avro.to_connect_data(topic, message)
    assert read.schema == versioned(schema, 1)
    written = value.put("priority", 3) if schema is ORDER else value
    assert plain(read.value) == plain(written)
    # kconnect registering the same schema under the same subject gets the same id, unless
    # confluent-kafka registered another text (it rewrites a primitive "int" as {"type":"int"}).
    ours = avro.from_connect_data(topic, schema, value)
    assert ours is not None
    same_text = registry.get_schema(schema_id(message)).schema_str == text
    assert same_text == (not text.startswith('"'))  # only a bare primitive name is rewritten
    assert (schema_id(ours) == schema_id(message)) == same_text


PERSON_V1 = SchemaBuilder.struct().name("crm.Person").field("name", STR).build()
PERSON_V2 = SchemaBuilder.struct().name("crm.Person").field("name", STR).field("email", OPT_STR).build()
#: A required field with no default: a BACKWARD-incompatible change (old records lack it).
PERSON_V3 = SchemaBuilder.struct().name("crm.Person").field("name", STR).field("age", I32).build()


def test_an_added_optional_field_is_version_2_and_old_readers_still_read(
    converter: Callable[..., AvroConverter], registry: SchemaRegistryClient
) -> None:
    topic = topic_name()
    avro = converter()
    first = avro.from_connect_data(topic, PERSON_V1, Struct(PERSON_V1).put("name", "ann"))
    second = avro.from_connect_data(
        topic, PERSON_V2, Struct(PERSON_V2).put("name", "bob").put("email", "b@x")
    )
    assert first is not None and second is not None
    assert registry.get_versions(f"{topic}-value") == [1, 2]
    assert registry.get_latest_version(f"{topic}-value").schema_id == schema_id(second)
    context = SerializationContext(topic, MessageField.VALUE)
    version_1 = AvroMapping().from_connect_schema(PERSON_V1).text()
    old_reader = AvroDeserializer(registry, version_1)
    assert [old_reader(m, context) for m in (first, second)] == [{"name": "ann"}, {"name": "bob"}]
    read = converter().to_connect_data(topic, second)
    assert read.schema == versioned(PERSON_V2, 2)
    assert plain(read.value) == {"name": "bob", "email": "b@x"}
    assert converter().to_connect_data(topic, first).schema == versioned(PERSON_V1, 1)


def test_an_incompatible_change_is_a_data_error_naming_subject_version_and_registry(
    converter: Callable[..., AvroConverter], registry_compatibility: Any
) -> None:
    topic = topic_name()
    avro = converter()
    assert avro.from_connect_data(topic, PERSON_V1, Struct(PERSON_V1).put("name", "ann")) is not None
    with pytest.raises(DataError) as failure:
        avro.from_connect_data(topic, PERSON_V3, Struct(PERSON_V3).put("name", "bob").put("age", 3))
    message = str(failure.value)
    assert f"'{topic}-value'" in message
    assert "version 1" in message
    assert registry_compatibility.url in message


def test_schemaless_values_as_confluents_anything_record(
    converter: Callable[..., AvroConverter], registry: SchemaRegistryClient
) -> None:
    topic = topic_name()
    message = converter().from_connect_data(topic, None, {"n": [1, None, "x"]})
    assert message is not None
    assert registry.get_latest_version(f"{topic}-value").schema.schema_str == ANYTHING_TEXT
    nothing = dict.fromkeys(("boolean", "bytes", "double", "float", "int", "long", "string", "array", "map"))
    entries = [
        {
            "key": {**nothing, "string": "n"},
            "value": {**nothing, "array": [{**nothing, "long": 1}, nothing, {**nothing, "string": "x"}]},
        }
    ]
    context = SerializationContext(topic, MessageField.VALUE)
    assert AvroDeserializer(registry)(message, context) == {**nothing, "map": entries}
    written = AvroSerializer(registry, ANYTHING_TEXT)({**nothing, "int": 5}, context)
    read = converter().to_connect_data(topic, written)
    assert read.schema is None and read.value == 5


def test_record_name_strategy_registers_under_the_record_name(
    converter: Callable[..., AvroConverter], registry: SchemaRegistryClient
) -> None:
    name = f"crm.Person{uuid.uuid4().hex[:8]}"
    schema = SchemaBuilder.struct().name(name).field("name", STR).build()
    strategy = {"value.subject.name.strategy": "io.confluent.kafka.serializers.subject.RecordNameStrategy"}
    avro = converter(**strategy)
    topic = topic_name()
    message = avro.from_connect_data(topic, schema, Struct(schema).put("name", "ann"))
    assert message is not None
    assert registry.get_latest_version(name).schema_id == schema_id(message)
    read = converter(**strategy).to_connect_data(topic, message)
    assert read.schema == versioned(schema, 1)
    with pytest.raises(DataError, match="needs a named schema"):
        avro.from_connect_data(topic, I32, 1)


def test_a_key_converter_registers_under_the_key_subject(
    schema_registry: Any, registry: SchemaRegistryClient
) -> None:
    avro = AvroConverter()
    avro.configure({"schema.registry.url": schema_registry.url}, True)
    try:
        topic = topic_name()
        message = avro.from_connect_data(topic, STR, "k1")
        assert message is not None
        assert registry.get_latest_version(f"{topic}-key").schema_id == schema_id(message)
        key = AvroDeserializer(registry)(message, SerializationContext(topic, MessageField.KEY))
        assert key == "k1"
        assert avro.to_connect_data(topic, message).value == "k1"
        assert avro.from_connect_data(topic, STR, None) is None  # a null key stays null
    finally:
        avro.close()


def test_use_latest_version_writes_with_the_subjects_latest_schema(
    converter: Callable[..., AvroConverter], registry: SchemaRegistryClient
) -> None:
    """The subject's latest version (here with an extra optional field) is the writer schema."""
    topic = topic_name()
    latest = AvroMapping().from_connect_schema(PERSON_V2).text()
    context = SerializationContext(topic, MessageField.VALUE)
    AvroSerializer(registry, latest)({"name": "x", "email": None}, context)
    avro = converter(**{"use.latest.version": "true", "auto.register.schemas": "false"})
    message = avro.from_connect_data(topic, PERSON_V2, Struct(PERSON_V2).put("name", "ann"))
    assert message is not None
    assert schema_id(message) == registry.get_latest_version(f"{topic}-value").schema_id
    assert AvroDeserializer(registry)(message, context) == {"name": "ann", "email": None}
    assert registry.get_versions(f"{topic}-value") == [1]


NUMBERS = (
    SchemaBuilder.struct()
    .name(UNION)
    .field("int", OPT_I32)
    .field("long", SchemaBuilder.int64().optional().build())
    .build()
)


def test_a_union_of_int_and_long_keeps_the_branch(
    converter: Callable[..., AvroConverter], registry: SchemaRegistryClient
) -> None:
    """The long branch written (by either side) is the long field read, as Java tells Long from Integer."""
    topic = topic_name()
    context = SerializationContext(topic, MessageField.VALUE)
    ours = converter().from_connect_data(topic, NUMBERS, Struct(NUMBERS).put("long", 5))
    assert ours is not None
    assert ours[5:] == b"\x02\x0a"  # branch 1 (long), then 5
    assert AvroDeserializer(registry)(ours, context) == 5
    text = AvroMapping().from_connect_schema(NUMBERS).text()
    theirs = AvroSerializer(registry, text)(("long", 7), context)  # fastavro's tuple names the branch
    read = converter().to_connect_data(topic, theirs)
    assert (read.value.get("int"), read.value.get("long")) == (None, 7)
