"""A first end-to-end run of the storage sink: Kafka -> a worker (Spark) -> local Parquet.

The worker is the session's shared one (`rest_worker`); the connector has a name of its own.
"""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from plugins.storage.tests.integration.conftest import produce_orders
from tests.integration.harness import Connectors

pytestmark = pytest.mark.integration


def test_records_of_a_topic_land_in_committed_parquet_files(
    connectors: Connectors, kafka_bootstrap: str
) -> None:
    topic, out = connectors.topic, connectors.workdir / "out"
    produce_orders(kafka_bootstrap, topic, 2500)
    name = connectors.name("storage-smoke")
    connectors.create(
        name,
        {
            "connector.class": "StorageSink",
            "tasks.max": "1",
            "topics": topic,
            "storage.url": str(out),
            "format.class": "io.confluent.connect.s3.format.parquet.ParquetFormat",
            "flush.size": "1000",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        },
    )
    worker = connectors.worker
    directory = out / "topics" / topic / "partition=0"
    worker.wait_for("two files committed", lambda: len(list(directory.glob("*.parquet"))) == 2, timeout=120)
    names = sorted(p.name for p in directory.glob("*.parquet"))
    assert names == [
        f"{topic}+0+0000000000+0000000999.parquet",
        f"{topic}+0+0000001000+0000001999.parquet",
    ]
    ids = sorted(i for name in names for i in pq.read_table(directory / name).column("id").to_pylist())
    assert ids == list(range(2000))
    assert worker.status(name)["tasks"][0]["state"] == "RUNNING"
