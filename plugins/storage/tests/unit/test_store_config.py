"""The stores' pure logic: where an HDFS URL's WebHDFS answers, the stores' key validators with
Confluent's texts, staged paths and rename tokens. The stores themselves are tested against real
servers in ``plugins/storage/tests/integration/test_stores.py``."""

from __future__ import annotations

from pathlib import Path

import pytest
from kconnect.config import ConfigDef, ConfigException
from kconnect_storage.stores import StoreError
from kconnect_storage.stores.config import (
    define_hdfs_keys,
    define_s3_keys,
    define_storage_url_keys,
    open_store,
)
from kconnect_storage.stores.local import LocalStore
from kconnect_storage.stores.staging import (
    is_unpublished,
    parse_rename_token,
    rename_token,
    staged_path,
    visible_files,
)
from kconnect_storage.stores.webhdfs_address import WebHdfsAddress, webhdfs_address


def hdfs_site(folder: Path, properties: dict[str, str]) -> str:
    """Write ``hdfs-site.xml`` with `properties` into `folder`; return the folder."""
    body = "".join(
        f"<property><name>{name}</name><value>{value}</value></property>"
        for name, value in properties.items()
    )
    (folder / "hdfs-site.xml").write_text(f"<?xml version='1.0'?><configuration>{body}</configuration>")
    return str(folder)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("webhdfs://nn:50070/data", WebHdfsAddress("nn", 50070, False, "/data")),
        ("webhdfs://nn", WebHdfsAddress("nn", 9870, False, "/")),
        ("swebhdfs://nn/x/", WebHdfsAddress("nn", 9871, True, "/x/")),
        ("hdfs://namenode:8020", WebHdfsAddress("namenode", 9870, False, "/")),
        ("HDFS://namenode:8020/warehouse", WebHdfsAddress("namenode", 9870, False, "/warehouse")),
    ],
)
def test_the_webhdfs_address_of_a_url_without_hadoop_configuration(
    url: str, expected: WebHdfsAddress
) -> None:
    assert webhdfs_address(url, key="hdfs.url") == expected


def test_hdfs_site_xml_gives_the_namenode_http_address_and_policy(tmp_path: Path) -> None:
    plain = hdfs_site(tmp_path, {"dfs.namenode.http-address": "0.0.0.0:50070"})
    assert webhdfs_address("hdfs://nn:8020/a", key="hdfs.url", hadoop_conf_dir=plain) == WebHdfsAddress(
        "nn", 50070, False, "/a"
    )
    hdfs_site(tmp_path, {"dfs.namenode.http-address": "web.nn:1234"})
    assert (
        webhdfs_address("hdfs://nn:8020", key="hdfs.url", hadoop_conf_dir=plain).url == "http://web.nn:1234"
    )
    hdfs_site(tmp_path, {"dfs.http.policy": "HTTPS_ONLY", "dfs.namenode.https-address": "0.0.0.0:50470"})
    assert webhdfs_address("hdfs://nn:8020", key="hdfs.url", hadoop_conf_dir=plain).url == "https://nn:50470"
    (tmp_path / "hdfs-site.xml").unlink()
    assert webhdfs_address("hdfs://nn:8020", key="hdfs.url", hadoop_conf_dir=plain).url == "http://nn:9870"


@pytest.mark.parametrize(
    ("url", "properties", "key", "message"),
    [
        ("ftp://nn", {}, "hdfs.url", "Expected hdfs://namenode:port"),
        ("hdfs://", {}, "hdfs.url", "Expected hdfs://namenode:port"),
        (
            "hdfs://nn:8020",
            {"dfs.webhdfs.enabled": "false"},
            "hadoop.conf.dir",
            "dfs.webhdfs.enabled is false",
        ),
        ("hdfs://ns1", {"dfs.nameservices": "ns1,ns2"}, "hdfs.url", "ns1 is an HA nameservice"),
    ],
)
def test_urls_that_lead_to_no_webhdfs_are_refused_naming_the_key(
    tmp_path: Path, url: str, properties: dict[str, str], key: str, message: str
) -> None:
    conf_dir = hdfs_site(tmp_path, properties)
    with pytest.raises(ConfigException) as refused:
        webhdfs_address(url, key="hdfs.url", hadoop_conf_dir=conf_dir)
    assert refused.value.name == key
    assert message in refused.value.message


def test_a_missing_hadoop_conf_dir_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigException, match="Not a directory") as refused:
        webhdfs_address("hdfs://nn:8020", key="hdfs.url", hadoop_conf_dir=str(tmp_path / "nowhere"))
    assert refused.value.name == "hadoop.conf.dir"


def errors(config_def: ConfigDef, config: dict[str, str]) -> dict[str, list[str]]:
    """The validation errors per key."""
    return {name: value.errors for name, value in config_def.validate(config).items() if value.errors}


def test_hdfs_keys_refuse_kerberos_and_other_schemes() -> None:
    found = errors(
        define_hdfs_keys(ConfigDef()), {"hdfs.url": "s3://bucket", "hdfs.authentication.kerberos": "true"}
    )
    assert list(found) == ["hdfs.url", "hdfs.authentication.kerberos"]
    assert "without Kerberos" in found["hdfs.authentication.kerberos"][0]
    assert errors(define_hdfs_keys(ConfigDef()), {"hdfs.url": "hdfs://nn:8020"}) == {}


def test_s3_keys_take_confluents_defaults_and_texts() -> None:
    values = define_s3_keys(ConfigDef()).parse({"s3.bucket.name": "b"})
    assert (values["s3.region"], values["s3.part.size"], values["s3.path.style.access.enabled"]) == (
        "us-west-2",
        25 * 1024 * 1024,
        True,
    )
    found = errors(
        define_s3_keys(ConfigDef()),
        {
            "s3.bucket.name": "b",
            "s3.part.size": "5242879",
            "s3.credentials.provider.class": "com.amazonaws.auth.profile.ProfileCredentialsProvider",
            "s3.ssea.name": "aws:kms:dsse",
        },
    )
    assert found["s3.part.size"] == [
        "Invalid value 5242879 for configuration s3.part.size: "
        "Part size must be at least: 5242880 bytes (5MB)"
    ]
    assert (
        "kconnect supports only com.amazonaws.auth.DefaultAWSCredentialsProviderChain"
        in (found["s3.credentials.provider.class"][0])
    )
    assert list(found) == ["s3.part.size", "s3.credentials.provider.class", "s3.ssea.name"]
    assert errors(define_s3_keys(ConfigDef()), {}) == {
        "s3.bucket.name": ['Missing required configuration "s3.bucket.name" which has no default value.']
    }


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("hdfs://nn:8020/x", "kconnect reaches HDFS over WebHDFS"),
        ("gs://bucket", "Expected a local path"),
        ("s3:///prefix", "needs a bucket"),
        ("", "String must be non-empty"),
    ],
)
def test_storage_url_refuses_what_it_cannot_reach(url: str, message: str) -> None:
    found = errors(define_storage_url_keys(ConfigDef()), {"storage.url": url})
    assert list(found) == ["storage.url"]
    assert message in found["storage.url"][0]


def test_storage_urls_open_their_store_without_a_request(tmp_path: Path) -> None:
    local = open_store("storage", {"storage.url": f"file://{tmp_path}/out"}, "topics/+tmp")
    assert isinstance(local, LocalStore)
    assert local.description == f"file://{tmp_path}/out"
    webhdfs = open_store("storage", {"storage.url": "webhdfs://nn:50070/data"}, "t")
    assert webhdfs.description == "webhdfs://nn:50070/data"
    s3 = open_store("storage", {"storage.url": "s3://bucket/pre/fix", "s3.region": "eu-west-1"}, "t")
    assert s3.description == "s3://bucket/pre/fix"
    hdfs = open_store("hdfs", {"store.url": "hdfs://nn:8020/"}, "t")
    assert hdfs.description == "hdfs://nn:8020 (WebHDFS at http://nn:9870)"
    with pytest.raises(ConfigException, match=r'"hdfs\.url"'):
        open_store("hdfs", {}, "t")


def test_staged_paths_mirror_the_folder_and_are_found_by_prefix_only() -> None:
    path = staged_path("topics/+tmp", "topics/orders/partition=1", "orders+1+")
    folder, name = path.rsplit("/", 1)
    assert folder == "topics/+tmp/topics/orders/partition=1"
    assert is_unpublished(name, "orders+1+")
    assert not is_unpublished(name, "orders+10+")
    assert not is_unpublished("orders+1+0000000000+0000000009.json", "orders+1+")
    assert visible_files(["topics/b", path, "topics/+tmp", "topics/+tmpx", "topics/a"], "topics/+tmp") == [
        "topics/+tmpx",
        "topics/a",
        "topics/b",
    ]
    assert parse_rename_token(rename_token(path, "topics/x"), "s") == (path, "topics/x")
    with pytest.raises(StoreError, match="is not a rename token"):
        parse_rename_token({"kind": "s3-multipart"}, "file:///data")
