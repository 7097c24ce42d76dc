"""The storage sink's test servers (``tests/storage_servers.py``) are real and do what its tests rely on.

HDFS (a MiniDFSCluster): Python writes, renames, lists and reads through WebHDFS (fsspec), pyarrow
writes Parquet through the same client, a rename onto an existing file is refused (the commit guard a
sink builds on), Spark reads what Python wrote at ``hdfs_url``, and the files outlive a stop and
start. S3 (moto's server): pyarrow, s3fs and boto3 put, list and get the same objects; a multipart
upload shows nothing until it is completed and keeps S3's 5 MiB part minimum; a restart loses every
bucket, a halt keeps them. Spark reads Avro with the fetched spark-avro jar.
"""

from __future__ import annotations

import socket
import uuid
from pathlib import Path
from typing import Any

import boto3
import httpx
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import s3fs
from botocore.config import Config
from botocore.exceptions import ClientError, ConnectTimeoutError, EndpointConnectionError, ReadTimeoutError
from pyarrow.fs import FSSpecHandler, PyFileSystem

from tests.storage_servers import S3Server

pytestmark = pytest.mark.integration

MIB = 1024 * 1024


def unique(stem: str) -> str:
    """A name no other test uses (lower case, valid as an S3 bucket or an HDFS folder)."""
    return f"{stem}-{uuid.uuid4().hex[:10]}"


def refused(port: int) -> bool:
    """Whether a connection to ``127.0.0.1:port`` is refused."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2.0).close()
    except ConnectionRefusedError:
        return True
    return False


def rows(count: int) -> pa.Table:
    """`count` rows of (offset, value) as a Kafka partition might hold."""
    return pa.table({"offset": pa.array(range(count), pa.int64()), "value": [f"v{i}" for i in range(count)]})


# --- HDFS --------------------------------------------------------------------------------------------------


def test_a_file_written_through_webhdfs_is_renamed_listed_and_read_back(hdfs_cluster: Any) -> None:
    fs = hdfs_cluster.webhdfs()
    base = f"/{unique('topics')}/orders/partition=0"
    temporary, final = f"{base}/+tmp/part.parquet.tmp", f"{base}/orders+0+0000000000+0000000999.parquet"
    data = bytes(range(256)) * (12 * 1024)  # 3 MiB: fsspec sends it as a CREATE and appends
    with fs.open(temporary, "wb", block_size=MIB) as out:
        for start in range(0, len(data), MIB // 2):
            out.write(data[start : start + MIB // 2])
    assert not fs.exists(final)

    fs.mv(temporary, final)

    assert fs.ls(base, detail=False) == [f"{base}/+tmp", final]
    assert fs.ls(f"{base}/+tmp", detail=False) == []
    assert fs.info(final)["size"] == len(data)
    assert fs.cat(final) == data


def test_a_rename_onto_an_existing_file_is_refused_and_changes_nothing(hdfs_cluster: Any) -> None:
    fs = hdfs_cluster.webhdfs()
    base = f"/{unique('commits')}"
    fs.pipe({f"{base}/committed": b"first", f"{base}/again.tmp": b"second"})

    # WebHDFS answers a refused rename with {"boolean": false}; fsspec's mv() does not look at it.
    answer = httpx.put(
        f"{hdfs_cluster.webhdfs_url}/webhdfs/v1{base}/again.tmp",
        params={"op": "RENAME", "destination": f"{base}/committed", "user.name": "kconnect"},
    )

    assert answer.status_code == 200
    assert answer.json() == {"boolean": False}
    assert (fs.cat(f"{base}/committed"), fs.cat(f"{base}/again.tmp")) == (b"first", b"second")


def test_pyarrow_writes_parquet_to_hdfs_through_webhdfs_and_spark_reads_it_at_hdfs_url(
    hdfs_cluster: Any, spark: Any
) -> None:
    arrow_fs = PyFileSystem(FSSpecHandler(hdfs_cluster.webhdfs()))
    folder = f"/{unique('parquet')}/partition=0"
    pq.write_table(rows(1000), f"{folder}/part-0.parquet", filesystem=arrow_fs)
    pq.write_table(rows(500), f"{folder}/part-1.parquet", filesystem=arrow_fs)

    assert pq.read_table(f"{folder}/part-1.parquet", filesystem=arrow_fs).num_rows == 500
    frame = spark.read.parquet(f"{hdfs_cluster.hdfs_url}{folder}")
    assert frame.count() == 1500
    assert sorted(r.offset for r in frame.where("value = 'v999'").collect()) == [999]


def test_stop_refuses_connections_and_start_keeps_every_file_on_the_same_ports(hdfs_cluster: Any) -> None:
    path = f"/{unique('durable')}/file.json"
    hdfs_cluster.webhdfs().pipe(path, b'{"a": 1}\n')
    urls = (hdfs_cluster.webhdfs_url, hdfs_cluster.hdfs_url)

    hdfs_cluster.stop()
    try:
        assert not hdfs_cluster.running
        assert refused(hdfs_cluster.http_port)
        assert refused(hdfs_cluster.namenode_port)
    finally:
        hdfs_cluster.start()

    assert (hdfs_cluster.webhdfs_url, hdfs_cluster.hdfs_url) == urls
    fs = hdfs_cluster.webhdfs()
    assert fs.cat(path) == b'{"a": 1}\n'
    fs.pipe(path + ".after", b"written after the restart")
    assert fs.cat(path + ".after") == b"written after the restart"


def test_a_halted_cluster_leaves_requests_hanging_until_it_resumes(hdfs_cluster: Any) -> None:
    status = f"{hdfs_cluster.webhdfs_url}/webhdfs/v1/?op=GETFILESTATUS"
    hdfs_cluster.halt()
    try:
        with pytest.raises(httpx.ReadTimeout):
            httpx.get(status, timeout=1.0)
    finally:
        hdfs_cluster.resume()
    assert httpx.get(status, timeout=30.0).json()["FileStatus"]["type"] == "DIRECTORY"


# --- S3 ----------------------------------------------------------------------------------------------------


def test_objects_put_by_pyarrow_and_s3fs_are_listed_and_read_by_boto3(s3_server: Any) -> None:
    bucket = s3_server.create_bucket(unique("sink"))
    arrow_fs = s3_server.pyarrow_filesystem()
    pq.write_table(
        rows(1000), f"{bucket}/topics/orders/partition=0/orders+0+0+999.parquet", filesystem=arrow_fs
    )
    with arrow_fs.open_output_stream(f"{bucket}/big.bin") as out:  # pyarrow uploads this in parts
        for _ in range(3):
            out.write(b"x" * (6 * MIB))
    fs = s3fs.S3FileSystem(**s3_server.s3fs_options())
    with fs.open(f"{bucket}/topics/orders/partition=1/orders+1+0+0.json", "wb") as out:
        out.write(b'{"offset": 0}\n')

    client = s3_server.client()
    listed = client.list_objects_v2(Bucket=bucket)["Contents"]
    assert sorted(o["Key"] for o in listed) == [
        "big.bin",
        "topics/orders/partition=0/orders+0+0+999.parquet",
        "topics/orders/partition=1/orders+1+0+0.json",
    ]
    assert {o["Key"]: o["Size"] for o in listed}["big.bin"] == 18 * MIB
    assert client.get_object(Bucket=bucket, Key="topics/orders/partition=1/orders+1+0+0.json")[
        "Body"
    ].read() == (b'{"offset": 0}\n')
    assert pq.read_table(f"{bucket}/topics/orders/partition=0", filesystem=fs).num_rows == 1000
    assert fs.ls(f"{bucket}/topics/orders") == [
        f"{bucket}/topics/orders/partition=0",
        f"{bucket}/topics/orders/partition=1",
    ]


def test_a_multipart_upload_shows_nothing_until_completed(s3_server: Any) -> None:
    bucket = s3_server.create_bucket(unique("multipart"))
    client, key = s3_server.client(), "topics/orders/partition=0/orders+0+0+99.avro"
    upload = client.create_multipart_upload(Bucket=bucket, Key=key)["UploadId"]
    parts = [
        {"PartNumber": number, "ETag": client.upload_part(**where, PartNumber=number, Body=body)["ETag"]}
        for where in [{"Bucket": bucket, "Key": key, "UploadId": upload}]
        for number, body in [(1, b"a" * (5 * MIB)), (2, b"tail")]
    ]

    assert client.list_objects_v2(Bucket=bucket)["KeyCount"] == 0
    pending = client.list_multipart_uploads(Bucket=bucket)["Uploads"]
    assert [(u["Key"], u["UploadId"]) for u in pending] == [(key, upload)]

    client.complete_multipart_upload(
        Bucket=bucket, Key=key, UploadId=upload, MultipartUpload={"Parts": parts}
    )

    assert client.get_object(Bucket=bucket, Key=key)["Body"].read() == b"a" * (5 * MIB) + b"tail"
    assert "Uploads" not in client.list_multipart_uploads(Bucket=bucket)


def test_an_aborted_upload_leaves_nothing_and_parts_under_5_mib_are_refused(s3_server: Any) -> None:
    bucket = s3_server.create_bucket(unique("abort"))
    client = s3_server.client()
    aborted = client.create_multipart_upload(Bucket=bucket, Key="aborted")["UploadId"]
    client.upload_part(Bucket=bucket, Key="aborted", UploadId=aborted, PartNumber=1, Body=b"a" * (5 * MIB))
    client.abort_multipart_upload(Bucket=bucket, Key="aborted", UploadId=aborted)
    small = client.create_multipart_upload(Bucket=bucket, Key="small")["UploadId"]
    parts = [
        {
            "PartNumber": n,
            "ETag": client.upload_part(Bucket=bucket, Key="small", UploadId=small, PartNumber=n, Body=b"ab")[
                "ETag"
            ],
        }
        for n in (1, 2)
    ]

    with pytest.raises(ClientError) as refused_upload:
        client.complete_multipart_upload(
            Bucket=bucket, Key="small", UploadId=small, MultipartUpload={"Parts": parts}
        )

    assert refused_upload.value.response["Error"]["Code"] == "EntityTooSmall"
    assert client.list_objects_v2(Bucket=bucket)["KeyCount"] == 0


def test_a_restarted_s3_server_answers_on_the_same_port_with_no_bucket_left() -> None:
    with S3Server() as server:
        bucket = server.create_bucket(unique("gone"))
        server.client().put_object(Bucket=bucket, Key="k", Body=b"v")
        url = server.endpoint_url

        server.stop()
        assert refused(server.port)
        server.start()

        assert server.endpoint_url == url
        assert server.client().list_buckets()["Buckets"] == []


def test_a_halted_s3_server_times_clients_out_and_keeps_its_objects_when_resumed(s3_server: Any) -> None:
    bucket = s3_server.create_bucket(unique("halt"))
    s3_server.client().put_object(Bucket=bucket, Key="k", Body=b"kept")
    impatient = boto3.client(
        "s3",
        endpoint_url=s3_server.endpoint_url,
        aws_access_key_id=s3_server.access_key,
        aws_secret_access_key=s3_server.secret_key,
        region_name=s3_server.region,
        config=Config(connect_timeout=1, read_timeout=1, retries={"max_attempts": 1}),
    )

    s3_server.halt()
    try:
        with pytest.raises((ReadTimeoutError, ConnectTimeoutError, EndpointConnectionError)):
            impatient.get_object(Bucket=bucket, Key="k")
    finally:
        s3_server.resume()

    assert s3_server.client().get_object(Bucket=bucket, Key="k")["Body"].read() == b"kept"


# --- Spark reads Avro --------------------------------------------------------------------------------------


def test_spark_writes_and_reads_avro_with_the_fetched_spark_avro_jar(spark: Any, tmp_path: Path) -> None:
    frame = spark.createDataFrame([(i, f"v{i}") for i in range(100)], "offset long, value string")
    frame.write.format("avro").save(str(tmp_path / "avro"))

    back = spark.read.format("avro").load(str(tmp_path / "avro"))

    assert back.schema.simpleString() == "struct<offset:bigint,value:string>"
    assert sorted((r.offset, r.value) for r in back.collect()) == [(i, f"v{i}") for i in range(100)]
