"""What the storage sink's integration tests share: topics of orders produced fast, and one SparkSession.

`produce_orders` writes JsonConverter envelopes (schema and payload) with confluent-kafka's Producer
(librdkafka: a million records in seconds), record ``i`` to Kafka partition ``i % partitions``, so a
test knows which partition and offset each id has. The session's `spark` (local, spark-avro on its
class path) is the user's proof that the files are what Spark reads. `many_orders` is one topic of
`ORDERS` orders per session, shared by the tests that read them all (producing it takes seconds each
time; the tests only read it, each with a consumer group and a store folder of its own). CI runs
100,000 orders, which proves the same (several files per partition, every record once, a SIGKILL at
each point of the commit cycle); ``KCONNECT_STORAGE_ORDERS=1000000`` runs the full size of issue 19.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient
from confluent_kafka.cimpl import NewTopic

#: The value schema of `produce_orders`' records (version 1).
ORDER_SCHEMA: dict[str, Any] = {
    "type": "struct",
    "name": "order",
    "version": 1,
    "optional": False,
    "fields": [
        {"field": "id", "type": "int64", "optional": False},
        {"field": "item", "type": "string", "optional": True},
        {"field": "region", "type": "string", "optional": False},
    ],
}

REGIONS = ("eu", "us", "asia")


def order(i: int) -> dict[str, Any]:
    """The payload of order `i`: its id, an item text and one of `REGIONS`."""
    return {"id": i, "item": f"item {i}", "region": REGIONS[i % len(REGIONS)]}


def envelope(schema: dict[str, Any], payload: dict[str, Any]) -> bytes:
    """A JsonConverter value with ``schemas.enable=true``: the schema beside the payload."""
    return json.dumps({"schema": schema, "payload": payload}, separators=(",", ":")).encode()


def create_topic(bootstrap: str, topic: str, partitions: int) -> None:
    """Create `topic` with `partitions` partitions (replication factor 1), waiting until it exists."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    futures = admin.create_topics([NewTopic(topic, num_partitions=partitions, replication_factor=1)])
    for future in futures.values():
        future.result(timeout=30)


def produce(
    bootstrap: str,
    topic: str,
    values: Iterator[bytes] | list[bytes],
    partitions: int = 1,
    timestamp_ms: Callable[[int], int] | None = None,
) -> int:
    """Produce `values` in order, value ``i`` to partition ``i % partitions`` (with record timestamp
    ``timestamp_ms(i)`` if given); waits for every acknowledgement and returns how many were sent."""
    producer = Producer(
        {"bootstrap.servers": bootstrap, "linger.ms": 50, "batch.size": 1_000_000, "enable.idempotence": True}
    )
    sent = 0
    for i, value in enumerate(values):
        timestamp = 0 if timestamp_ms is None else timestamp_ms(i)  # 0: the producer's clock
        while True:
            try:
                producer.produce(topic, value=value, partition=i % partitions, timestamp=timestamp)
                break
            except BufferError:  # the local queue is full: let librdkafka send some first
                producer.poll(0.1)
        if i % 10_000 == 0:
            producer.poll(0)
        sent += 1
    assert producer.flush(120) == 0, "records were not acknowledged"
    return sent


#: The start of every `order_value`: the schema's JSON once (json.dumps per record costs seconds).
_ORDER_HEAD = b'{"schema":' + json.dumps(ORDER_SCHEMA, separators=(",", ":")).encode() + b',"payload":'


def order_value(i: int) -> bytes:
    """Order `i` (`order`) as the JsonConverter envelope of `ORDER_SCHEMA` that `produce_orders` sends."""
    return _ORDER_HEAD + b'{"id":%d,"item":"item %d","region":"%s"}}' % (
        i,
        i,
        REGIONS[i % len(REGIONS)].encode(),
    )


def produce_orders(
    bootstrap: str,
    topic: str,
    count: int,
    partitions: int = 1,
    timestamp_ms: Callable[[int], int] | None = None,
) -> None:
    """Produce orders ``0..count-1`` (`order_value`), order ``i`` to partition ``i % partitions``, at
    offset ``i // partitions`` of a new topic."""
    produce(bootstrap, topic, (order_value(i) for i in range(count)), partitions, timestamp_ms)


#: How many orders `many_orders` holds, and in how many partitions.
ORDERS = int(os.environ.get("KCONNECT_STORAGE_ORDERS", "100000"))
ORDERS_PARTITIONS = 2


@pytest.fixture(scope="session")
def many_orders(kafka_bootstrap: str) -> str:
    """A topic of orders ``0..ORDERS-1`` in two partitions (order ``i`` in partition ``i % 2``, at offset
    ``i // 2``), produced once per session; its name."""
    topic = f"orders-{ORDERS}-{uuid.uuid4().hex[:8]}"
    create_topic(kafka_bootstrap, topic, ORDERS_PARTITIONS)
    produce_orders(kafka_bootstrap, topic, ORDERS, partitions=ORDERS_PARTITIONS)
    return topic
