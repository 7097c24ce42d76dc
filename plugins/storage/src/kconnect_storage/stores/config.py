"""`open_store` builds the `Store` a connector's config names; `store_problems` checks it for a
connector's ``validate``.

The keys themselves (``hdfs.url``, ``s3.bucket.name``, ``storage.url``, ...) are defined in
`kconnect_storage.stores.keys` and exported here: `define_hdfs_keys`, `define_s3_keys`,
`define_storage_url_keys`.
"""

from __future__ import annotations

import getpass
import os
from collections.abc import Mapping
from urllib.parse import quote, urlsplit, urlunsplit

from kconnect.config import ConfigDef, ConfigException, Password

from kconnect_storage.stores import Store, StoreError
from kconnect_storage.stores.keys import (
    AWS_ACCESS_KEY_ID_CONFIG,
    AWS_SECRET_ACCESS_KEY_CONFIG,
    HADOOP_CONF_DIR_CONFIG,
    HDFS_URL_CONFIG,
    S3_ACL_CANNED_CONFIG,
    S3_BUCKET_CONFIG,
    S3_PART_RETRIES_CONFIG,
    S3_PART_SIZE_CONFIG,
    S3_PATH_STYLE_ACCESS_CONFIG,
    S3_PROXY_PASS_CONFIG,
    S3_PROXY_URL_CONFIG,
    S3_PROXY_USER_CONFIG,
    S3_REGION_CONFIG,
    S3_SSE_KMS_KEY_ID_CONFIG,
    S3_SSEA_CONFIG,
    S3_WAN_MODE_CONFIG,
    STORAGE_URL_CONFIG,
    STORE_TIMEOUT_CONFIG,
    STORE_URL_CONFIG,
    define_hdfs_keys,
    define_s3_keys,
    define_storage_url_keys,
)
from kconnect_storage.stores.local import LocalStore
from kconnect_storage.stores.webhdfs_address import SCHEMES as HDFS_SCHEMES
from kconnect_storage.stores.webhdfs_address import webhdfs_address

#: The longest a validation waits for the store's answer.
PROBE_TIMEOUT_MS = 10000

__all__ = [
    "define_hdfs_keys",
    "define_s3_keys",
    "define_storage_url_keys",
    "open_store",
    "probe",
    "store_problems",
    "store_url_key",
]


def _text(value: object) -> str:
    """A parsed value as text ("" for None; a `Password`'s secret)."""
    if isinstance(value, Password):
        return value.value or ""
    return "" if value is None else str(value)


def _hadoop_user() -> str:
    """Hadoop's simple-authentication user: ``HADOOP_USER_NAME``, else the OS user."""
    try:
        return os.environ.get("HADOOP_USER_NAME") or getpass.getuser()
    except (KeyError, OSError):
        return "kconnect"


def _hdfs_store(url: str, key: str, values: Mapping[str, object], temp_directory: str) -> Store:
    # Imported here: fsspec and requests cost every worker process a fifth of a second otherwise.
    from kconnect_storage.stores.hdfs import HdfsStore

    address = webhdfs_address(url, key=key, hadoop_conf_dir=_text(values.get(HADOOP_CONF_DIR_CONFIG)))
    given = url.strip().rstrip("/") or url
    via = f" (WebHDFS at {address.url})" if urlsplit(url).scheme.lower() == "hdfs" else ""
    return HdfsStore(
        host=address.host,
        port=address.port,
        https=address.https,
        root=address.root,
        temp_directory=temp_directory,
        user=_hadoop_user(),
        timeout=int(str(values[STORE_TIMEOUT_CONFIG])) / 1000,
        description=given + via,
    )


def _proxy_url(values: Mapping[str, object]) -> str | None:
    url = _text(values.get(S3_PROXY_URL_CONFIG))
    if not url:
        return None
    user, password = _text(values.get(S3_PROXY_USER_CONFIG)), _text(values.get(S3_PROXY_PASS_CONFIG))
    if not user:
        return url
    parts = urlsplit(url)
    login = quote(user, safe="") + (f":{quote(password, safe='')}" if password else "")
    return urlunsplit(parts._replace(netloc=f"{login}@{parts.netloc.rpartition('@')[2]}"))


def _s3_store(bucket: str, prefix: str, values: Mapping[str, object]) -> Store:
    # Imported here: boto3 costs every worker process a fifth of a second and 20 MB otherwise.
    from kconnect_storage.stores.s3 import S3Settings, S3Store

    return S3Store(
        S3Settings(
            bucket=bucket,
            prefix=prefix,
            region=_text(values.get(S3_REGION_CONFIG)).strip() or None,
            endpoint_url=_text(values.get(STORE_URL_CONFIG)).strip() or None,
            access_key_id=_text(values.get(AWS_ACCESS_KEY_ID_CONFIG)) or None,
            secret_access_key=_text(values.get(AWS_SECRET_ACCESS_KEY_CONFIG)) or None,
            part_size=int(str(values[S3_PART_SIZE_CONFIG])),
            part_retries=int(str(values[S3_PART_RETRIES_CONFIG])),
            path_style=bool(values[S3_PATH_STYLE_ACCESS_CONFIG]),
            accelerate=bool(values[S3_WAN_MODE_CONFIG]),
            timeout=int(str(values[STORE_TIMEOUT_CONFIG])) / 1000,
            proxy_url=_proxy_url(values),
            server_side_encryption=_text(values.get(S3_SSEA_CONFIG)) or None,
            kms_key_id=_text(values.get(S3_SSE_KMS_KEY_ID_CONFIG)) or None,
            canned_acl=_text(values.get(S3_ACL_CANNED_CONFIG)) or None,
        )
    )


def store_url_key(connector: str, config: Mapping[str, str]) -> str:
    """The key a problem with the store is reported against: the one that names it."""
    if connector == "hdfs":
        return (
            HDFS_URL_CONFIG
            if config.get(HDFS_URL_CONFIG) or not config.get(STORE_URL_CONFIG)
            else STORE_URL_CONFIG
        )
    return S3_BUCKET_CONFIG if connector == "s3" else STORAGE_URL_CONFIG


def open_store(connector: str, config: Mapping[str, str], temp_directory: str) -> Store:
    """The store a connector's config names; `connector` is ``hdfs``, ``s3`` or ``storage``.

    Called by the task when it starts. `temp_directory` is where rename stores stage files
    (``<topics.dir>/+tmp``, relative to the root). Opening makes no request; raises
    `ConfigException` (naming the key) for a config that names no usable store.
    """
    if connector == "hdfs":
        values = define_hdfs_keys(ConfigDef()).parse(config)
        key = store_url_key(connector, config)
        url = _text(values[key])
        if not url:
            raise ConfigException(
                f'Missing required configuration "{HDFS_URL_CONFIG}" (or "{STORE_URL_CONFIG}") '
                "which has no default value.",
                name=HDFS_URL_CONFIG,
            )
        return _hdfs_store(url, key, values, temp_directory)
    if connector == "s3":
        values = define_s3_keys(ConfigDef()).parse(config)
        return _s3_store(_text(values[S3_BUCKET_CONFIG]).strip(), "", values)
    if connector == "storage":
        values = define_storage_url_keys(ConfigDef()).parse(config)
        url = _text(values[STORAGE_URL_CONFIG]).strip()
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme == "s3":
            return _s3_store(parts.netloc, parts.path.strip("/"), values)
        if scheme in HDFS_SCHEMES:
            return _hdfs_store(url, STORAGE_URL_CONFIG, values, temp_directory)
        return LocalStore(parts.path if scheme == "file" else url, temp_directory)
    raise ValueError(f"Unknown connector kind {connector!r}: expected hdfs, s3 or storage")


def probe(store: Store) -> None:
    """Make one cheap request to `store` (HDFS: the root's status; S3: ``HeadBucket``; local: the
    root folder is writable); raises `StoreError` with a one-line message if it fails."""
    check = getattr(store, "probe", None)
    if callable(check):
        check()
    else:
        store.list_files("")


def store_problems(connector: str, config: Mapping[str, str], temp_directory: str) -> dict[str, str]:
    """Open and `probe` the store of a config whose keys passed their own validation; return
    ``{key: message}`` for the key that names the store if that fails, else {}.

    For a connector's ``validate``, which a REST client waits for: the probe is one request, not
    retried, that waits at most `PROBE_TIMEOUT_MS` (or ``store.request.timeout.ms`` if shorter).
    """
    timeout_ms = min(int(config.get(STORE_TIMEOUT_CONFIG) or PROBE_TIMEOUT_MS), PROBE_TIMEOUT_MS)
    quick = {**config, STORE_TIMEOUT_CONFIG: str(timeout_ms), S3_PART_RETRIES_CONFIG: "0"}
    try:
        store = open_store(connector, quick, temp_directory)
    except ConfigException as e:
        return {e.name or store_url_key(connector, config): e.message}
    try:
        probe(store)
    except StoreError as e:
        return {store_url_key(connector, config): str(e)}
    finally:
        store.close()
    return {}
