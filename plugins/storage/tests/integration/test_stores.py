"""The storage sink's stores against real storage: local disk, HDFS (a MiniDFSCluster, over WebHDFS)
and S3 (moto's server), each opened from a connector config with `open_store`.

What the sink's exactly-once argument needs from a store, asserted the same way on all three: a
staged or sealed file is not listed until it is published; publishing is idempotent, also from a
new store instance after a crash with the token read back from JSON; `discard_unpublished` removes
a crashed task's leftovers of one name prefix and nothing else; `write_whole` replaces; listings
are recursive. Then what only one store does (S3's parts, ``hdfs://`` through ``hadoop.conf.dir``)
and a frozen server: every operation fails with a `StoreError` naming the store within the
request timeout instead of hanging.
"""

from __future__ import annotations

import json
import shutil
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from kconnect_storage.stores import StagedFile, Store, StoreError, Token
from kconnect_storage.stores.config import PROBE_TIMEOUT_MS, open_store, probe, store_problems
from kconnect_storage.stores.hdfs import BLOCK_SIZE

pytestmark = pytest.mark.integration

MIB = 1024 * 1024
TEMP = "topics/+tmp"
FOLDER = "topics/orders/partition=0"
TIMEOUT_MS = 2000
#: How long a frozen server may keep one operation waiting: the request timeout, S3's one retry
#: with botocore's backoff, and slack for a loaded machine.
FROZEN_LIMIT_S = 20.0

StoreFactory = Callable[[], Store]


def unique(stem: str) -> str:
    """A name no other test uses (lower case: valid as a bucket and a folder)."""
    return f"{stem}-{uuid.uuid4().hex[:10]}"


def store_config(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, dict[str, str]]:
    """A connector kind and config naming a fresh, empty place on store `kind`."""
    if kind == "local":
        return "storage", {"storage.url": str(tmp_path / "root")}
    if kind == "hdfs":
        cluster = request.getfixturevalue("hdfs_cluster")
        url = f"webhdfs://127.0.0.1:{cluster.http_port}/{unique('stores')}"
        return "hdfs", {"hdfs.url": url, "store.request.timeout.ms": str(TIMEOUT_MS)}
    server = request.getfixturevalue("s3_server")
    return "s3", {
        "s3.bucket.name": server.create_bucket(unique("stores")),
        "store.url": server.endpoint_url,
        "s3.region": server.region,
        "aws.access.key.id": server.access_key,
        "aws.secret.access.key": server.secret_key,
        "s3.part.size": str(5 * MIB),
        "s3.part.retries": "1",
        "store.request.timeout.ms": str(TIMEOUT_MS),
    }


@pytest.fixture
def new_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreFactory]:
    """Opens stores on one fresh place of the store kind the test is parametrized with; each call is
    a new instance, as a restarted task would open. All are closed at the end."""
    connector, config = store_config(request.param, request, tmp_path)
    opened: list[Store] = []

    def open_one() -> Store:
        store = open_store(connector, config, TEMP)
        opened.append(store)
        return store

    yield open_one
    for store in opened:
        store.close()


every_store = pytest.mark.parametrize("new_store", ["local", "hdfs", "s3"], indirect=True)


def sealed(store: Store, name: str, data: bytes, folder: str = FOLDER) -> Token:
    """Stage `data` for ``<folder>/<name>``, seal it and return its token as the commit log keeps it."""
    staged = store.stage(folder, name.rsplit("+", 2)[0] + "+")
    for start in range(0, len(data), MIB):
        staged.write(data[start : start + MIB])
    staged.flush()
    assert staged.tell() == len(data)
    token = staged.seal(f"{folder}/{name}")
    back: Token = json.loads(json.dumps(token))
    return back


# --- what every store does ---------------------------------------------------------------------------------


@every_store
def test_a_staged_file_is_listed_only_once_published(new_store: StoreFactory) -> None:
    store = new_store()
    name = "orders+0+0000000000+0000000099.json"
    staged = store.stage(FOLDER, "orders+0+")
    staged.write(b'{"offset": 0}\n' * 100)

    assert store.list_files("topics") == []
    token = json.loads(json.dumps(staged.seal(f"{FOLDER}/{name}")))
    assert store.list_files("topics") == []
    assert store.list_files("") == []

    store.publish(token)

    assert store.list_files("topics") == [f"{FOLDER}/{name}"]
    assert store.read(f"{FOLDER}/{name}") == b'{"offset": 0}\n' * 100


@every_store
def test_publishing_again_and_from_a_new_store_after_a_crash_changes_nothing(new_store: StoreFactory) -> None:
    first = new_store()
    name = "orders+0+0000000100+0000000199.bin"
    data = bytes(range(256)) * 4096
    token = sealed(first, name, data)

    after_crash = new_store()  # the first is abandoned unclosed, as by a killed worker
    after_crash.publish(token)
    after_crash.publish(token)
    first.publish(token)

    assert new_store().list_files("topics") == [f"{FOLDER}/{name}"]
    assert after_crash.read(f"{FOLDER}/{name}") == data


@every_store
def test_discard_unpublished_removes_the_leftovers_of_one_prefix_under_a_folder_only(
    new_store: StoreFactory,
) -> None:
    crashed = new_store()
    published = sealed(crashed, "orders+0+0000000000+0000000009.bin", b"published")
    crashed.publish(published)
    sealed_leftover = sealed(crashed, "orders+0+0000000010+0000000019.bin", b"sealed, never published")
    nested_leftover = sealed(crashed, "orders+0+0000000020+0000000029.bin", b"below", f"{FOLDER}/hour=01")
    other_partition = sealed(crashed, "orders+1+0000000000+0000000009.bin", b"partition 1")
    beside = sealed(crashed, "orders+0+0000000030+0000000039.bin", b"beside", "topics/orders/partition=00")
    # A file being written when the task died; on HDFS and local disk its first block is there.
    unsealed = crashed.stage(FOLDER, "orders+0+")
    unsealed.write(b"u" * (BLOCK_SIZE + 1))
    unsealed.flush()
    try:
        restarted = new_store()
        discarded = restarted.discard_unpublished(FOLDER, "orders+0+")

        # S3 spools an unsealed file on the task's machine: only the sealed uploads are there to abort.
        assert discarded == (2 if crashed.description.startswith("s3://") else 3)
        assert restarted.discard_unpublished(FOLDER, "orders+0+") == 0
        for gone in (sealed_leftover, nested_leftover):
            with pytest.raises(StoreError):
                restarted.publish(gone)
        restarted.publish(other_partition)
        restarted.publish(beside)
        assert restarted.list_files("topics") == [
            f"{FOLDER}/orders+0+0000000000+0000000009.bin",
            f"{FOLDER}/orders+1+0000000000+0000000009.bin",
            "topics/orders/partition=00/orders+0+0000000030+0000000039.bin",
        ]
    finally:
        unsealed.discard()


@every_store
def test_a_discarded_file_is_never_published(new_store: StoreFactory) -> None:
    store = new_store()
    token = sealed(store, "orders+0+0000000000+0000000009.bin", b"thrown away")
    staged: StagedFile = store.stage(FOLDER, "orders+0+")
    staged.write(b"never sealed")

    store.discard(token)
    staged.discard()

    with pytest.raises(StoreError, match=r"orders\+0\+0000000000\+0000000009\.bin"):
        store.publish(token)
    assert store.list_files("") == []
    assert store.discard_unpublished(FOLDER, "orders+0+") == 0


@every_store
def test_write_whole_replaces_and_delete_removes(new_store: StoreFactory) -> None:
    store = new_store()
    entry = "logs/orders/0.json"

    store.write_whole(entry, b'{"files": [1]}')
    store.write_whole(entry, b'{"files": [2, 3]}')

    assert store.read(entry) == b'{"files": [2, 3]}'
    assert store.list_files("logs") == [entry]
    assert store.list_files("") == [entry]
    store.delete(entry)
    store.delete(entry)
    assert store.list_files("logs") == []


@every_store
def test_list_files_is_recursive_sorted_and_relative_to_the_root(new_store: StoreFactory) -> None:
    store = new_store()
    names = [
        "topics/orders/partition=1/orders+1+0000000000+0000000004.avro",
        "topics/orders/partition=0/orders+0+0000000005+0000000009.avro",
        "topics/orders/partition=0/orders+0+0000000000+0000000004.avro",
        "topics/payments/year=2026/month=11/payments+0+0000000000+0000000000.avro",
    ]
    for path in names:
        folder, name = path.rsplit("/", 1)
        store.publish(sealed(store, name, path.encode(), folder))
    staged = store.stage("topics/orders/partition=0", "orders+0+")
    staged.write(b"staged")
    staged.flush()

    assert store.list_files("topics") == sorted(names)
    assert store.list_files("topics/orders") == sorted(names[:3])
    assert store.list_files("topics/payments/year=2026") == [names[3]]
    assert store.list_files("topics/missing") == []
    assert store.read(names[3]) == names[3].encode()
    staged.discard()


@every_store
def test_an_empty_file_is_published_empty(new_store: StoreFactory) -> None:
    store = new_store()
    store.publish(sealed(store, "orders+0+0000000000+0000000000.json", b""))
    assert store.read(f"{FOLDER}/orders+0+0000000000+0000000000.json") == b""


# --- S3 ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("new_store", ["s3"], indirect=True)
def test_a_12_mib_file_goes_to_s3_in_parts_completed_only_at_publish(
    new_store: StoreFactory, s3_server: Any
) -> None:
    store = new_store()
    data = bytes(range(256)) * (48 * 1024) + b"tail"  # 12 MiB and 4 bytes
    token = sealed(store, "orders+0+0000000000+0000099999.parquet", data)
    bucket = store.description.split("/")[2].split(" ")[0]
    client = s3_server.client()

    assert [p["PartNumber"] for p in token["parts"]] == [1, 2, 3]
    assert client.list_objects_v2(Bucket=bucket)["KeyCount"] == 0
    assert [u["Key"] for u in client.list_multipart_uploads(Bucket=bucket)["Uploads"]] == [token["key"]]

    store.publish(token)

    assert client.head_object(Bucket=bucket, Key=token["key"])["ContentLength"] == len(data)
    assert store.read(token["key"]) == data
    assert "Uploads" not in client.list_multipart_uploads(Bucket=bucket)


def test_an_s3_prefix_from_storage_url_is_the_root_and_bad_credentials_name_the_bucket_not_the_secret(
    s3_server: Any,
) -> None:
    bucket = s3_server.create_bucket(unique("prefix"))
    config = {
        "storage.url": f"s3://{bucket}/warehouse/raw",
        "store.url": s3_server.endpoint_url,
        "s3.region": s3_server.region,
        "aws.access.key.id": s3_server.access_key,
        "aws.secret.access.key": s3_server.secret_key,
    }
    store = open_store("storage", config, TEMP)
    try:
        store.publish(sealed(store, "orders+0+0000000000+0000000009.json", b"{}\n"))
        assert store.list_files("topics") == [f"{FOLDER}/orders+0+0000000000+0000000009.json"]
        keys = [o["Key"] for o in s3_server.client().list_objects_v2(Bucket=bucket)["Contents"]]
        assert keys == [f"warehouse/raw/{FOLDER}/orders+0+0000000000+0000000009.json"]
    finally:
        store.close()

    problems = store_problems("storage", {**config, "storage.url": "s3://no-such-bucket-here/x"}, TEMP)
    assert list(problems) == ["storage.url"]
    assert problems["storage.url"].startswith("Could not reach the bucket on s3://no-such-bucket-here/x at ")
    assert s3_server.secret_key not in problems["storage.url"]


# --- HDFS --------------------------------------------------------------------------------------------------


def test_an_hdfs_url_finds_webhdfs_through_hadoop_conf_dir(hdfs_cluster: Any, tmp_path: Path) -> None:
    conf_dir = tmp_path / "hadoop-conf"
    conf_dir.mkdir()
    shutil.copy(hdfs_cluster.config_path, conf_dir / "hdfs-site.xml")
    root = f"/{unique('hdfs-url')}"
    config = {"hdfs.url": f"{hdfs_cluster.hdfs_url}{root}", "hadoop.conf.dir": str(conf_dir)}

    assert store_problems("hdfs", config, TEMP) == {}
    store = open_store("hdfs", config, TEMP)
    try:
        store.publish(sealed(store, "orders+0+0000000000+0000000009.json", b"{}\n"))
    finally:
        store.close()

    assert hdfs_cluster.webhdfs().cat(f"{root}/{FOLDER}/orders+0+0000000000+0000000009.json") == b"{}\n"
    # Without the configuration, Hadoop's default WebHDFS port (9870) is tried, and said so.
    without = store_problems("hdfs", {"hdfs.url": config["hdfs.url"]}, TEMP)
    assert list(without) == ["hdfs.url"]
    assert f"on {hdfs_cluster.hdfs_url}{root} (WebHDFS at http://127.0.0.1:9870)" in without["hdfs.url"]


def test_publishing_over_a_file_hdfs_already_has_keeps_it_and_drops_the_copy(hdfs_cluster: Any) -> None:
    root = f"/{unique('again')}"
    store = open_store("hdfs", {"hdfs.url": f"webhdfs://127.0.0.1:{hdfs_cluster.http_port}{root}"}, TEMP)
    try:
        name = "orders+0+0000000000+0000000009.json"
        store.publish(sealed(store, name, b"first\n"))
        # The same offsets written again (WebHDFS refuses a rename onto an existing file).
        store.publish(sealed(store, name, b"first\n"))

        assert store.list_files("") == [f"{FOLDER}/{name}"]
        assert store.read(f"{FOLDER}/{name}") == b"first\n"
        assert store.discard_unpublished(FOLDER, "orders+0+") == 0
    finally:
        store.close()


# --- a frozen server ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("new_store", ["hdfs", "s3"], indirect=True)
def test_a_frozen_store_fails_each_operation_within_the_timeout_naming_the_store(
    new_store: StoreFactory, request: pytest.FixtureRequest
) -> None:
    store = new_store()
    token = sealed(store, "orders+0+0000000000+0000000009.json", b"{}\n")
    server = request.getfixturevalue(
        "hdfs_cluster" if store.description.startswith("webhdfs") else "s3_server"
    )
    operations: list[tuple[str, Callable[[], object]]] = [
        ("probe", lambda: probe(store)),
        ("list", lambda: store.list_files("topics")),
        ("publish", lambda: store.publish(token)),
        ("write", lambda: store.write_whole("logs/orders/0.json", b"{}")),
        ("seal", lambda: sealed(store, "orders+0+0000000010+0000000019.json", b"{}\n")),
    ]

    server.halt()
    try:
        for what, operation in operations:
            started = time.monotonic()
            with pytest.raises(StoreError) as failed:
                operation()
            took = time.monotonic() - started
            assert took < FROZEN_LIMIT_S, f"{what} took {took:.1f} s"
            message = str(failed.value)
            assert message.startswith("Could not "), message
            assert f" on {store.description}: " in message, message
            assert "\n" not in message
    finally:
        server.resume()

    store.publish(token)  # the same store works again once the server answers
    assert store.list_files("topics") == [f"{FOLDER}/orders+0+0000000000+0000000009.json"]


def test_validation_of_a_frozen_store_answers_within_the_probe_limit(s3_server: Any) -> None:
    config = {
        "s3.bucket.name": s3_server.create_bucket(unique("validate")),
        "store.url": s3_server.endpoint_url,
        "s3.region": s3_server.region,
        "aws.access.key.id": s3_server.access_key,
        "aws.secret.access.key": s3_server.secret_key,
    }  # the defaults: 30 s per request, 3 retries
    assert store_problems("s3", config, TEMP) == {}

    s3_server.halt()
    try:
        started = time.monotonic()
        problems = store_problems("s3", config, TEMP)
        took = time.monotonic() - started
    finally:
        s3_server.resume()

    assert list(problems) == ["s3.bucket.name"]
    assert problems["s3.bucket.name"].startswith(
        f"Could not reach the bucket on s3://{config['s3.bucket.name']} at "
    )
    assert PROBE_TIMEOUT_MS / 1000 <= took < PROBE_TIMEOUT_MS / 1000 + 10
