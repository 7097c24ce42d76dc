"""A first end-to-end run of the storage sink: Kafka -> a standalone worker (Spark) -> local Parquet."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from plugins.storage.tests.integration.conftest import produce_orders
from tests.worker_process import write_properties

pytestmark = pytest.mark.integration


def test_records_of_a_topic_land_in_committed_parquet_files(
    start_worker: Any, tmp_path: Path, unique_topic: str, kafka_bootstrap: str
) -> None:
    out = tmp_path / "out"
    produce_orders(kafka_bootstrap, unique_topic, 2500)
    connector = write_properties(
        tmp_path / "storage.properties",
        {
            "name": "storage-smoke",
            "connector.class": "StorageSink",
            "tasks.max": "1",
            "topics": unique_topic,
            "storage.url": str(out),
            "format.class": "io.confluent.connect.s3.format.parquet.ParquetFormat",
            "flush.size": "1000",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        },
    )
    worker = start_worker(connector_files=[connector])
    directory = out / "topics" / unique_topic / "partition=0"
    worker.wait_for("two files committed", lambda: len(list(directory.glob("*.parquet"))) == 2, timeout=120)
    names = sorted(p.name for p in directory.glob("*.parquet"))
    assert names == [
        f"{unique_topic}+0+0000000000+0000000999.parquet",
        f"{unique_topic}+0+0000001000+0000001999.parquet",
    ]
    ids = sorted(i for name in names for i in pq.read_table(directory / name).column("id").to_pylist())
    assert ids == list(range(2000))
    assert worker.status("storage-smoke")["tasks"][0]["state"] == "RUNNING"
