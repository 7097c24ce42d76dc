"""A third opinion: Apicurio's Java AvroConverter on Java Kafka Connect, the same registry and topics.

Apicurio's converter (2.6.13.Final, its Avro mapping forked from Confluent's AvroData) runs on Kafka
4.3.1's ConnectStandalone with ``apicurio.registry.as-confluent=true``: Confluent's wire format with
content ids, which are the ids of the Confluent API kconnect's AvroConverter talks to.

* kconnect writes, Java reads: records kconnect's AvroConverter serialized (every primitive and
  logical type, nested struct, array, maps with string and int keys, optional fields) reach a Java
  FileStreamSink through Apicurio's converter, which writes Java's ``Struct.toString()`` of each;
  the lines are what Java prints for the values kconnect meant.
* Java writes, kconnect reads: a Java FileStreamSource with Kafka's own transformations (HoistField,
  Cast, InsertField) writes structs through Apicurio's converter; kconnect's converter reads the
  values Java built, and serializing them again gives the payload Java wrote byte for byte, under
  the schema text Java registered plus the ``connect.version`` Confluent's converter adds too.
"""

from __future__ import annotations

import asyncio
import datetime
import decimal
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from kconnect.data import logical
from kconnect.data.schema import Schema, SchemaBuilder
from kconnect.data.struct import Struct
from kconnect_schema_registry.avro.converter import AvroConverter
from kconnect_schema_registry.wire import unframe

from tests.java_converters import JavaStandalone, converter_properties

pytestmark = pytest.mark.integration

UTC = datetime.timezone.utc
I32 = SchemaBuilder.int32().build()
STR = SchemaBuilder.string().build()
POINT = SchemaBuilder.struct().name("geo.Point").field("x", I32).field("y", I32).build()
ORDER = (
    SchemaBuilder.struct()
    .name("shop.Order")
    .field("id", SchemaBuilder.int64().build())
    .field("small", SchemaBuilder.int8().build())
    .field("medium", SchemaBuilder.int16().build())
    .field("qty", I32)
    .field("ratio", SchemaBuilder.float32().build())
    .field("price", SchemaBuilder.float64().build())
    .field("paid", SchemaBuilder.bool().build())
    .field("item", STR)
    .field("total", logical.Decimal.schema(2))
    .field("day", logical.Date.SCHEMA)
    .field("at", logical.Time.SCHEMA)
    .field("when", logical.Timestamp.SCHEMA)
    .field("note", SchemaBuilder.string().optional().build())
    .field("tags", SchemaBuilder.array(STR).build())
    .field("labels", SchemaBuilder.map(STR, I32).build())
    .field("by_id", SchemaBuilder.map(I32, STR).build())
    .field("origin", POINT)
    .build()
)


def order(id_: int, note: str | None) -> Struct:
    return (
        Struct(ORDER)
        .put("id", id_)
        .put("small", -8)
        .put("medium", 300)
        .put("qty", 7)
        .put("ratio", 0.5)
        .put("price", 2.25)
        .put("paid", True)
        .put("item", "tea")
        .put("total", decimal.Decimal("12.50"))
        .put("day", datetime.date(2024, 1, 2))
        .put("at", datetime.time(1, 2, 3))
        .put("when", datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC))
        .put("note", note)
        .put("tags", ["a", "b"])
        .put("labels", {"k": 1})
        .put("by_id", {5: "five"})
        .put("origin", Struct(POINT).put("x", 1).put("y", -1))
    )


#: What Java's FileStreamSink prints for `order(id, note)`: Struct.toString(), java.util.Date in UTC.
def java_line(id_: int, note: str | None) -> str:
    return (
        f"Struct{{id={id_},small=-8,medium=300,qty=7,ratio=0.5,price=2.25,paid=true,item=tea,"
        "total=12.50,day=Tue Jan 02 00:00:00 UTC 2024,at=Thu Jan 01 01:02:03 UTC 1970,"
        "when=Tue Jan 02 03:04:05 UTC 2024,"
        + (f"note={note}," if note is not None else "")
        + "tags=[a, b],labels={k=1},by_id={5=five},origin=Struct{x=1,y=-1}}"
    )


def converter(registry_url: str) -> AvroConverter:
    avro = AvroConverter()
    avro.configure({"schema.registry.url": registry_url}, False)
    return avro


async def produce(bootstrap: str, topic: str, values: list[bytes]) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap)
    await producer.start()
    try:
        for value in values:
            await producer.send_and_wait(topic, value)
    finally:
        await producer.stop()


async def consume(bootstrap: str, topic: str, count: int, timeout: float = 120.0) -> list[bytes]:
    consumer = AIOKafkaConsumer(topic, bootstrap_servers=bootstrap, auto_offset_reset="earliest")
    await consumer.start()
    values: list[bytes] = []
    try:
        async with asyncio.timeout(timeout):
            while len(values) < count:
                batch = await consumer.getmany(timeout_ms=1000)
                values += [r.value for records in batch.values() for r in records if r.value is not None]
    finally:
        await consumer.stop()
    return values


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def test_java_reads_what_kconnects_avro_converter_writes(
    tmp_path: Path, kafka_bootstrap: str, schema_registry: Any
) -> None:
    topic = f"kc-to-java-{uuid.uuid4().hex[:8]}"
    avro = converter(schema_registry.url)
    records = [order(1, "first"), order(2, None), order(3, "third")]
    asyncio.run(
        produce(kafka_bootstrap, topic, [avro.from_connect_data(topic, ORDER, r) or b"" for r in records])
    )
    out = tmp_path / "java-sink.txt"
    sink = {
        "connector.class": "org.apache.kafka.connect.file.FileStreamSinkConnector",
        "topics": topic,
        "file": str(out),
    }
    with JavaStandalone(
        tmp_path / "java",
        kafka_bootstrap,
        {"java-avro-sink": sink},
        converter_properties("value.converter", schema_registry.base_url),
    ) as java:
        java.wait_for("write three lines", lambda: len(lines(out)) >= 3)
    assert lines(out) == [java_line(1, "first"), java_line(2, None), java_line(3, "third")]


def test_kconnect_reads_what_java_writes_and_writes_the_same_bytes(
    tmp_path: Path, kafka_bootstrap: str, schema_registry: Any
) -> None:
    topic = f"java-to-kc-{uuid.uuid4().hex[:8]}"
    source_file = tmp_path / "numbers.txt"
    source_file.write_text("1\n22\n333\n", encoding="utf-8")
    source = {
        "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector",
        "topic": topic,
        "file": str(source_file),
        "transforms": "hoist,cast,insert",
        "transforms.hoist.type": "org.apache.kafka.connect.transforms.HoistField$Value",
        "transforms.hoist.field": "n",
        "transforms.cast.type": "org.apache.kafka.connect.transforms.Cast$Value",
        "transforms.cast.spec": "n:int64",
        "transforms.insert.type": "org.apache.kafka.connect.transforms.InsertField$Value",
        "transforms.insert.static.field": "origin",
        "transforms.insert.static.value": "java",
        "transforms.insert.topic.field": "topic",
    }
    with JavaStandalone(
        tmp_path / "java",
        kafka_bootstrap,
        {"java-avro-source": source},
        converter_properties("value.converter", schema_registry.base_url),
    ):
        written = asyncio.run(consume(kafka_bootstrap, topic, 3))

    avro = converter(schema_registry.url)
    read = [avro.to_connect_data(topic, value) for value in written]
    schema = read[0].schema
    assert isinstance(schema, Schema)
    assert [(f.name, f.schema.type.value, f.schema.optional) for f in schema.fields] == [
        ("n", "int64", False),
        ("topic", "string", True),
        ("origin", "string", True),
    ]
    assert [(v.value.get("n"), v.value.get("origin"), v.value.get("topic")) for v in read] == [
        (1, "java", topic),
        (22, "java", topic),
        (333, "java", topic),
    ]
    # The same Connect data through kconnect's converter: the same payload, byte for byte, and the
    # schema text Java registered plus "connect.version": kconnect, as Confluent's converter, versions
    # the Connect schema it reads with the subject's version and writes that version back.
    assert read[0].schema is not None and read[0].schema.version == 1
    again = [avro.from_connect_data(topic, v.schema, v.value) or b"" for v in read]
    assert [bytes(unframe(data)[1]) for data in again] == [bytes(unframe(data)[1]) for data in written]
    with httpx.Client(base_url=schema_registry.url) as registry:
        java_text, kconnect_text = (
            registry.get(f"/schemas/ids/{unframe(data)[0]}").json()["schema"]
            for data in (written[0], again[0])
        )
    assert kconnect_text == java_text[:-1] + ',"connect.version":1}'
