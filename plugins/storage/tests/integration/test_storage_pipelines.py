"""The storage sinks end to end: Kafka -> a real worker (its tasks on Spark) -> local disk, HDFS and S3,
read back by Spark as a user would.

One worker (the session's `rest_worker`) runs every connector here; they are deleted when the module ends.
Every order of `many_orders` (a million at full size) lands exactly once in each store and format:
Parquet on the three stores, Avro on HDFS,
JSON lines on local disk and raw bytes on S3 (one topic for all six); the field and hourly
partitioners and a schema change run on smaller topics; validation answers through REST.
Spark reads local and HDFS files itself (``hdfs://`` from its JVM). S3 is read with pyarrow: Spark
would need ``s3a://`` (hadoop-aws and the AWS SDK bundle), which pyspark does not ship.
"""

from __future__ import annotations

import datetime
import shutil
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pyarrow.compute as pc
import pyarrow.dataset as ds
import pytest

from plugins.storage.tests.integration.conftest import (
    ORDER_SCHEMA,
    ORDERS,
    REGIONS,
    create_topic,
    envelope,
    order,
    order_value,
    produce,
    produce_orders,
)
from tests.integration.harness import Connectors
from tests.worker_process import WorkerProcess, free_port

pytestmark = pytest.mark.integration

PARQUET = "io.confluent.connect.s3.format.parquet.ParquetFormat"
JSON_CONVERTER = {
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    "key.converter": "org.apache.kafka.connect.storage.StringConverter",
}

#: Records per file of the tests of every order: five files per partition.
ORDERS_FLUSH = ORDERS // 10
#: The smaller topic of the formats and partitioners: two partitions of 15000 orders, with timestamps.
SMALL = 30_000
SMALL_FLUSH = 5_000
#: Record i of the small topic has timestamp T0 + i * STEP_MS: 30000 records over 2.5 hours.
T0_MS = int(datetime.datetime(2024, 3, 10, 21, 10, tzinfo=datetime.UTC).timestamp() * 1000)
STEP_MS = 300


def unique(stem: str) -> str:
    """A name (folder, bucket, connector) no other test uses."""
    return f"{stem}-{uuid.uuid4().hex[:8]}"


def poll(what: str, check: Callable[[], bool], worker: WorkerProcess, timeout: float) -> None:
    """Poll `check` once a second until true; fail naming `what`, with the worker's log tail."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(1.0)
    raise AssertionError(f"timed out waiting for {what}\n--- worker log ---\n{worker.log_tail()}")


def file_names(topic: str, partitions: int, per_partition: int, flush: int, extension: str) -> set[str]:
    """The names of the committed files of `topic` when every partition's files hold `flush` records."""
    return {
        f"{topic}+{p}+{first:010d}+{first + flush - 1:010d}{extension}"
        for p in range(partitions)
        for first in range(0, per_partition, flush)
    }


def assert_not_failed(worker: WorkerProcess, *names: str) -> None:
    """No connector or task of `names` has FAILED (a failed one shows its trace)."""
    for name in names:
        status = worker.status(name)
        states = [status["connector"]["state"], *(t["state"] for t in status["tasks"])]
        assert "FAILED" not in states, status


# --- the stores ------------------------------------------------------------------------------------------


class Stores:
    """Connector configs for each store, and the names of the files committed there."""

    def __init__(self, hdfs_cluster: Any, s3_server: Any, workdir: Path) -> None:
        self.hdfs_cluster = hdfs_cluster
        self.s3_server = s3_server
        self.workdir = workdir
        self.conf_dir = workdir / "hadoop-conf"
        self.conf_dir.mkdir()
        shutil.copy(hdfs_cluster.config_path, self.conf_dir / "hdfs-site.xml")

    def local(self) -> tuple[dict[str, str], Path]:
        """A StorageSink config writing below a new local folder, and that folder."""
        root = self.workdir / unique("local")
        return {"connector.class": "StorageSink", "storage.url": str(root)}, root

    def hdfs(self) -> tuple[dict[str, str], str]:
        """An HdfsSinkConnector config (Confluent's: ``hdfs.url=hdfs://...`` with ``hadoop.conf.dir``)
        writing below a new HDFS folder, and that folder's path."""
        root = f"/{unique('hdfs')}"
        config = {
            "connector.class": "io.confluent.connect.hdfs.HdfsSinkConnector",
            "hdfs.url": f"{self.hdfs_cluster.hdfs_url}{root}",
            "hadoop.conf.dir": str(self.conf_dir),
        }
        return config, root

    def s3(self) -> tuple[dict[str, str], str]:
        """An S3SinkConnector config writing to a new bucket of the moto server, and the bucket."""
        server = self.s3_server
        bucket = server.create_bucket(unique("pipeline"))
        config = {
            "connector.class": "io.confluent.connect.s3.S3SinkConnector",
            "s3.bucket.name": bucket,
            "store.url": server.endpoint_url,
            "s3.region": server.region,
            "aws.access.key.id": server.access_key,
            "aws.secret.access.key": server.secret_key,
        }
        return config, bucket

    def local_names(self, folder: Path) -> set[str]:
        """The file names under a local folder (recursively); none while it does not exist."""
        return {p.name for p in folder.rglob("*") if p.is_file()} if folder.exists() else set()

    def hdfs_names(self, folder: str) -> set[str]:
        """The file names under an HDFS folder (recursively), read over WebHDFS."""
        fs = self.hdfs_cluster.webhdfs()
        if not fs.exists(folder):
            return set()
        return {path.rsplit("/", 1)[1] for path in fs.find(folder)}

    def s3_names(self, bucket: str, prefix: str) -> set[str]:
        """The names of the objects whose keys start with `prefix`."""
        pages = (
            self.s3_server.client().get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
        )
        return {item["Key"].rsplit("/", 1)[1] for page in pages for item in page.get("Contents", [])}

    def s3_dataset(self, bucket: str, folder: str, fmt: str = "parquet") -> Any:
        """A pyarrow dataset of the files under `folder` of `bucket`, hive partitioning discovered."""
        return ds.dataset(
            f"{bucket}/{folder}",
            filesystem=self.s3_server.pyarrow_filesystem(),
            format=fmt,
            partitioning="hive",
        )


@pytest.fixture(scope="module")
def stores(hdfs_cluster: Any, s3_server: Any, tmp_path_factory: pytest.TempPathFactory) -> Stores:
    """The module's `Stores`."""
    return Stores(hdfs_cluster, s3_server, tmp_path_factory.mktemp("pipelines"))


@pytest.fixture(scope="module")
def sinks(rest_worker: WorkerProcess, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Connectors]:
    """Connectors on the session's worker, deleted when the module ends."""
    created = Connectors(rest_worker, tmp_path_factory.mktemp("sinks"), "")
    yield created
    created.delete_all()


@pytest.fixture(scope="module")
def small_topic(kafka_bootstrap: str) -> str:
    """Orders 0..29999 in two partitions (order i in partition i % 2), timestamps T0 + i * STEP_MS."""
    topic = unique("orders-small")
    create_topic(kafka_bootstrap, topic, 2)
    produce_orders(kafka_bootstrap, topic, SMALL, partitions=2, timestamp_ms=lambda i: T0_MS + i * STEP_MS)
    return topic


def check_ids(ids: list[int], count: int) -> None:
    """`ids` are exactly 0..count-1: none missing, none twice."""
    assert len(ids) == count
    assert sorted(ids) == list(range(count))


# --- every order, Parquet, three stores ------------------------------------------------------------------


def assert_spark_reads_every_order(frame: Any, where: str) -> None:
    """Spark's frame of the topic holds each id once, in the `partition` its record was read from."""
    from pyspark.sql import functions as F

    row = frame.agg(
        F.count("*").alias("rows"),
        F.countDistinct("id").alias("ids"),
        F.min("id").alias("low"),
        F.max("id").alias("high"),
        F.sum((F.col("partition") != F.col("id") % 2).cast("int")).alias("misplaced"),
    ).collect()[0]
    assert (row.rows, row.ids, row.low, row.high, row.misplaced) == (ORDERS, ORDERS, 0, ORDERS - 1, 0), where


@pytest.mark.timeout(900)
def test_every_order_lands_once_in_parquet_on_local_disk_hdfs_and_s3_and_spark_reads_them(
    sinks: Connectors, stores: Stores, spark: Any, many_orders: str, hdfs_cluster: Any
) -> None:
    topic = many_orders
    flush = ORDERS_FLUSH
    common = {
        "topics": topic,
        "tasks.max": "1",
        "flush.size": str(flush),
        "format.class": PARQUET,
        **JSON_CONVERTER,
    }
    local, local_root = stores.local()
    hdfs, hdfs_root = stores.hdfs()
    s3, bucket = stores.s3()
    names = [sinks.name("orders-local"), sinks.name("orders-hdfs"), sinks.name("orders-s3")]
    for name, config in zip(names, (local, hdfs, s3), strict=True):
        sinks.create(name, {**common, **config})

    worker = sinks.worker
    # S3's Parquet files name their codec, as Confluent's S3 sink names them.
    listings: list[tuple[str, str, Callable[[], set[str]]]] = [
        ("local disk", ".parquet", lambda: stores.local_names(local_root / "topics" / topic)),
        ("HDFS", ".parquet", lambda: stores.hdfs_names(f"{hdfs_root}/topics/{topic}")),
        ("S3", ".snappy.parquet", lambda: stores.s3_names(bucket, f"topics/{topic}/")),
    ]
    for store, extension, listing in listings:
        expected = file_names(topic, 2, ORDERS // 2, flush, extension)

        def all_committed(listing: Callable[[], set[str]] = listing, expected: set[str] = expected) -> bool:
            assert_not_failed(worker, *names)
            return listing() == expected

        poll(f"every order in committed files on {store}", all_committed, worker, timeout=600)

    assert_spark_reads_every_order(spark.read.parquet(str(local_root / "topics" / topic)), "local")
    assert_spark_reads_every_order(
        spark.read.parquet(f"{hdfs_cluster.hdfs_url}{hdfs_root}/topics/{topic}"), "hdfs"
    )

    table = stores.s3_dataset(bucket, f"topics/{topic}").to_table(columns=["id", "partition"])
    assert table.num_rows == ORDERS
    assert pc.count_distinct(table["id"]).as_py() == ORDERS
    assert pc.min_max(table["id"]).as_py() == {"min": 0, "max": ORDERS - 1}
    misplaced = pc.not_equal(table["partition"], pc.bit_wise_and(table["id"], 1))
    assert pc.sum(misplaced.cast("int64")).as_py() == 0


# --- the other formats -----------------------------------------------------------------------------------


def assert_spark_reads_the_orders(frame: Any, where: str) -> None:
    """`assert_spark_reads_every_order`, and every 9,973rd order's item and region as produced."""
    from pyspark.sql import functions as F

    assert_spark_reads_every_order(frame, where)
    sample = frame.where(F.col("id") % 9973 == 0).select("id", "item", "region").collect()
    expected = [(order(i)["id"], order(i)["item"], order(i)["region"]) for i in range(0, ORDERS, 9973)]
    assert sorted((r.id, r.item, r.region) for r in sample) == expected, where


@pytest.mark.timeout(900)
def test_every_order_in_avro_on_hdfs_json_lines_on_local_disk_and_bytearray_on_s3_read_back_as_produced(
    sinks: Connectors, stores: Stores, spark: Any, many_orders: str, hdfs_cluster: Any
) -> None:
    topic = many_orders
    common = {"topics": topic, "tasks.max": "1", "flush.size": str(ORDERS_FLUSH)}
    hdfs, hdfs_root = stores.hdfs()
    local, local_root = stores.local()
    s3, bucket = stores.s3()
    separator = "<end>\n"
    configs = {
        "avro-hdfs": {
            **common,
            **hdfs,
            **JSON_CONVERTER,
            "format.class": "io.confluent.connect.hdfs.avro.AvroFormat",
        },
        "json-local": {
            **common,
            **local,
            **JSON_CONVERTER,
            "format.class": "io.confluent.connect.s3.format.json.JsonFormat",
        },
        "bytes-s3": {
            **common,
            **s3,
            "value.converter": "org.apache.kafka.connect.converters.ByteArrayConverter",
            "key.converter": "org.apache.kafka.connect.converters.ByteArrayConverter",
            "format.class": "io.confluent.connect.s3.format.bytearray.ByteArrayFormat",
            "format.bytearray.separator": separator,
        },
    }
    names = {stem: sinks.name(stem) for stem in configs}
    for stem, config in configs.items():
        sinks.create(names[stem], config)
    worker = sinks.worker
    listings = {
        ".avro": lambda: stores.hdfs_names(f"{hdfs_root}/topics/{topic}"),
        ".json": lambda: stores.local_names(local_root / "topics" / topic),
        ".bin": lambda: stores.s3_names(bucket, f"topics/{topic}/"),
    }
    for extension, listing in listings.items():

        def all_committed(listing: Callable[[], set[str]] = listing, extension: str = extension) -> bool:
            assert_not_failed(worker, *names.values())
            return listing() == file_names(topic, 2, ORDERS // 2, ORDERS_FLUSH, extension)

        poll(f"every order in committed {extension} files", all_committed, worker, timeout=600)

    avro = spark.read.format("avro").load(f"{hdfs_cluster.hdfs_url}{hdfs_root}/topics/{topic}")
    assert_spark_reads_the_orders(avro, "avro on hdfs")
    assert_spark_reads_the_orders(spark.read.json(str(local_root / "topics" / topic)), "json lines")

    client = stores.s3_server.client()
    for p in range(2):
        for first in range(0, ORDERS // 2, ORDERS_FLUSH):
            last = first + ORDERS_FLUSH - 1
            key = f"topics/{topic}/partition={p}/{topic}+{p}+{first:010d}+{last:010d}.bin"
            body = client.get_object(Bucket=bucket, Key=key)["Body"].read()
            # Offset o of partition p holds order 2 * o + p.
            produced = [order_value(2 * o + p) for o in range(first, first + ORDERS_FLUSH)]
            assert body == b"".join(v + separator.encode() for v in produced), key


# --- partitioners ----------------------------------------------------------------------------------------


@pytest.mark.timeout(600)
def test_field_and_hourly_partitioners_name_the_directories_spark_discovers(
    sinks: Connectors, stores: Stores, spark: Any, small_topic: str
) -> None:
    common = {
        "topics": small_topic,
        "tasks.max": "1",
        "flush.size": str(SMALL_FLUSH),
        "format.class": PARQUET,
    }
    field, field_root = stores.local()
    hourly, hourly_root = stores.local()
    zone = "Asia/Kolkata"  # +05:30: the local hours cut each UTC hour in two
    configs = {
        "field": {
            **common,
            **field,
            **JSON_CONVERTER,
            "partitioner.class": "io.confluent.connect.storage.partitioner.FieldPartitioner",
            "partition.field.name": "region",
        },
        "hourly": {
            **common,
            **hourly,
            **JSON_CONVERTER,
            "partitioner.class": "io.confluent.connect.storage.partitioner.HourlyPartitioner",
            "timestamp.extractor": "Record",
            "locale": "en-US",
            "timezone": zone,
        },
    }
    names = {stem: sinks.name(stem) for stem in configs}
    for stem, config in configs.items():
        sinks.create(names[stem], config)
    worker = sinks.worker

    for stem, root in (("field", field_root), ("hourly", hourly_root)):

        def all_committed(root: Path = root) -> bool:
            assert_not_failed(worker, *names.values())
            folder = root / "topics" / small_topic
            return folder.exists() and ds.dataset(folder, format="parquet").count_rows() == SMALL

        poll(f"the {stem} partitioner's files committed", all_committed, worker, timeout=300)

    by_field = spark.read.parquet(str(field_root / "topics" / small_topic))
    assert sorted(d.name for d in (field_root / "topics" / small_topic).iterdir()) == sorted(
        f"region={r}" for r in REGIONS
    )
    assert sorted((r.id, r.region) for r in by_field.select("id", "region").collect()) == [
        (i, order(i)["region"]) for i in range(SMALL)
    ]

    local_zone = ZoneInfo(zone)

    def hour_of(i: int) -> datetime.datetime:
        return datetime.datetime.fromtimestamp((T0_MS + i * STEP_MS) / 1000, local_zone)

    folder = hourly_root / "topics" / small_topic
    directories = {str(p.parent.relative_to(folder)) for p in folder.rglob("*.parquet")}
    assert directories == {hour_of(i).strftime("year=%Y/month=%m/day=%d/hour=%H") for i in range(SMALL)}
    by_hour = spark.read.parquet(str(folder))
    found = sorted((r.id, r.year, r.month, r.day, r.hour) for r in by_hour.collect())
    assert found == [
        (i, hour_of(i).year, hour_of(i).month, hour_of(i).day, hour_of(i).hour) for i in range(SMALL)
    ]


# --- a schema change -------------------------------------------------------------------------------------

#: Version 2 of the orders' schema: an optional field with a default added.
ORDER_SCHEMA_V2: dict[str, Any] = {
    **ORDER_SCHEMA,
    "version": 2,
    "fields": [
        *ORDER_SCHEMA["fields"],
        {"field": "note", "type": "string", "optional": True, "default": "none"},
    ],
}


def schema_change_values() -> list[bytes]:
    """Offsets 0-1499 of schema v1, 1500-2499 of v2, 2500-2999 of v1 again, 3000-3499 of v2."""

    def value(i: int) -> bytes:
        v2 = 1500 <= i < 2500 or i >= 3000
        return (
            envelope(ORDER_SCHEMA_V2, {**order(i), "note": f"v2 {i}"})
            if v2
            else envelope(ORDER_SCHEMA, order(i))
        )

    return [value(i) for i in range(3500)]


@pytest.mark.timeout(600)
def test_a_schema_change_cuts_the_file_with_none_and_projects_older_records_with_backward(
    sinks: Connectors, stores: Stores, spark: Any, kafka_bootstrap: str
) -> None:
    topic = unique("orders-evolving")
    create_topic(kafka_bootstrap, topic, 1)
    produce(kafka_bootstrap, topic, schema_change_values())
    common = {
        "topics": topic,
        "tasks.max": "1",
        "flush.size": "1000",
        "format.class": PARQUET,
        **JSON_CONVERTER,
    }
    none, none_root = stores.local()
    backward, backward_root = stores.local()
    names = [sinks.name("schema-none"), sinks.name("schema-backward")]
    sinks.create(names[0], {**common, **none, "schema.compatibility": "NONE"})
    sinks.create(names[1], {**common, **backward, "schema.compatibility": "BACKWARD"})
    worker = sinks.worker

    def committed(root: Path) -> list[str]:
        return sorted(stores.local_names(root / "topics" / topic))

    def name(first: int, last: int) -> str:
        return f"{topic}+0+{first:010d}+{last:010d}.parquet"

    # NONE: every change of schema commits the open file, so files end before offsets 1500 and 2500;
    # the last 500 records (fewer than flush.size) stay in an open file.
    none_files = [name(0, 999), name(1000, 1499), name(1500, 2499), name(2500, 2999)]
    # BACKWARD: only the newer version cuts; offsets 2500-2999 are projected onto v2 with 3000-3499.
    backward_files = [name(0, 999), name(1000, 1499), name(1500, 2499), name(2500, 3499)]

    def settled() -> bool:
        assert_not_failed(worker, *names)
        return committed(none_root) == none_files and committed(backward_root) == backward_files

    poll("the files of both compatibilities", settled, worker, timeout=300)

    def rows(root: Path) -> list[tuple[int, str | None]]:
        frame = spark.read.option("mergeSchema", "true").parquet(str(root / "topics" / topic))
        return sorted((r.id, r.note) for r in frame.select("id", "note").collect())

    def v2(i: int) -> bool:
        return 1500 <= i < 2500 or i >= 3000

    assert rows(none_root) == [(i, f"v2 {i}" if v2(i) else None) for i in range(3000)]
    # The projected v1 records take v2's default; those before the change keep their v1 files.
    assert rows(backward_root) == [
        (i, f"v2 {i}" if v2(i) else ("none" if i >= 2500 else None)) for i in range(3500)
    ]


# --- validation through REST -----------------------------------------------------------------------------


def validate(worker: WorkerProcess, plugin: str, config: dict[str, str]) -> tuple[int, dict[str, list[str]]]:
    """PUT the config to the plugin's validate endpoint; its error_count and the errors by key."""
    response = worker.request("PUT", f"/connector-plugins/{plugin}/config/validate", config)
    assert response.status_code == 200, response.text
    body = response.json()
    errors = {c["value"]["name"]: c["value"]["errors"] for c in body["configs"] if c["value"]["errors"]}
    return body["error_count"], errors


@pytest.mark.timeout(300)
def test_a_bad_value_and_an_unreachable_store_are_errors_of_their_keys_and_creating_is_a_400(
    sinks: Connectors, stores: Stores, small_topic: str
) -> None:
    worker = sinks.worker
    hdfs, _ = stores.hdfs()
    s3, _ = stores.s3()
    base = {"topics": small_topic, "flush.size": "1000", "format.class": PARQUET}
    cases = [
        # (plugin, config, the key with the error, a text its message holds)
        ("HdfsSinkConnector", {**base, **hdfs, "flush.size": "0"}, "flush.size", "Value must be at least 1"),
        (
            "HdfsSinkConnector",
            {**base, **hdfs, "schema.compatibility": "SIDEWAYS"},
            "schema.compatibility",
            "SIDEWAYS",
        ),
        (
            "HdfsSinkConnector",
            {
                **base,
                "connector.class": hdfs["connector.class"],
                "hdfs.url": f"webhdfs://127.0.0.1:{free_port()}/x",
            },
            "hdfs.url",
            "127.0.0.1",
        ),
        (
            "S3SinkConnector",
            {**base, **s3, "s3.part.size": "1024"},
            "s3.part.size",
            "Part size must be at least",
        ),
        (
            "S3SinkConnector",
            {**base, **s3, "store.url": f"http://127.0.0.1:{free_port()}"},
            "s3.bucket.name",
            "127.0.0.1",
        ),
        ("S3SinkConnector", {**base, **s3, "s3.bucket.name": unique("missing")}, "s3.bucket.name", "missing"),
    ]
    for plugin, config, key, text in cases:
        name = sinks.name("invalid")
        count, errors = validate(worker, plugin, {**config, "name": name})
        assert count > 0 and list(errors) == [key], (plugin, config, errors)
        assert any(text in message for message in errors[key]), errors
        created = worker.request("POST", "/connectors", {"name": name, "config": {**config, "name": name}})
        assert created.status_code == 400, created.text
        assert errors[key][0] in created.json()["message"], created.text
