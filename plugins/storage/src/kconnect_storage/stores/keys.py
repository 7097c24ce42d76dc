"""The keys that say where files go, with Confluent's names, defaults and error texts.

* `define_hdfs_keys`: ``HdfsSinkConnector``'s ``hdfs.url``/``store.url``, ``hadoop.conf.dir``,
  ``hadoop.home`` and the Kerberos keys (``hdfs.authentication.kerberos=true`` is refused);
* `define_s3_keys`: ``S3SinkConnector``'s ``s3.bucket.name``, ``store.url`` (the endpoint),
  ``s3.region``, credentials, ``s3.part.size`` and the other client keys kconnect carries out;
* `define_storage_url_keys`: ``StorageSinkConnector``'s ``storage.url`` (a local path,
  ``file://``, ``webhdfs://``, ``swebhdfs://`` or ``s3://bucket/prefix``) and the S3 client keys.

Each adds ``store.request.timeout.ms`` (kconnect's): how long one request to HDFS or S3 may wait.
`kconnect_storage.stores.config` turns the parsed values into a store.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from kconnect.config import (
    ConfigDef,
    ConfigException,
    ConfigType,
    Importance,
    LambdaValidator,
    Range,
    Validator,
    ValidString,
    Width,
)

from kconnect_storage.stores.webhdfs_address import SCHEMES as HDFS_SCHEMES

STORE_URL_CONFIG = "store.url"
STORE_TIMEOUT_CONFIG = "store.request.timeout.ms"
STORAGE_URL_CONFIG = "storage.url"

HDFS_URL_CONFIG = "hdfs.url"
HADOOP_CONF_DIR_CONFIG = "hadoop.conf.dir"
HADOOP_HOME_CONFIG = "hadoop.home"
HDFS_AUTHENTICATION_KERBEROS_CONFIG = "hdfs.authentication.kerberos"
CONNECT_HDFS_PRINCIPAL_CONFIG = "connect.hdfs.principal"
CONNECT_HDFS_KEYTAB_CONFIG = "connect.hdfs.keytab"
HDFS_NAMENODE_PRINCIPAL_CONFIG = "hdfs.namenode.principal"
KERBEROS_TICKET_RENEW_PERIOD_MS_CONFIG = "kerberos.ticket.renew.period.ms"

S3_BUCKET_CONFIG = "s3.bucket.name"
S3_REGION_CONFIG = "s3.region"
S3_PART_SIZE_CONFIG = "s3.part.size"
AWS_ACCESS_KEY_ID_CONFIG = "aws.access.key.id"
AWS_SECRET_ACCESS_KEY_CONFIG = "aws.secret.access.key"
S3_CREDENTIALS_PROVIDER_CLASS_CONFIG = "s3.credentials.provider.class"
S3_PATH_STYLE_ACCESS_CONFIG = "s3.path.style.access.enabled"
S3_WAN_MODE_CONFIG = "s3.wan.mode"
S3_PART_RETRIES_CONFIG = "s3.part.retries"
S3_SSEA_CONFIG = "s3.ssea.name"
S3_SSE_KMS_KEY_ID_CONFIG = "s3.sse.kms.key.id"
S3_ACL_CANNED_CONFIG = "s3.acl.canned"
S3_PROXY_URL_CONFIG = "s3.proxy.url"
S3_PROXY_USER_CONFIG = "s3.proxy.user"
S3_PROXY_PASS_CONFIG = "s3.proxy.password"

HDFS_GROUP = "HDFS"
SECURITY_GROUP = "Security"
S3_GROUP = "S3"
STORAGE_GROUP = "Storage"

MIB = 1024 * 1024
S3_PART_SIZE_DEFAULT = 25 * MIB
S3_PART_SIZE_MIN = 5 * MIB
S3_REGION_DEFAULT = "us-west-2"
DEFAULT_CREDENTIALS_PROVIDER = "com.amazonaws.auth.DefaultAWSCredentialsProviderChain"
CANNED_ACLS = (
    "private",
    "public-read",
    "public-read-write",
    "authenticated-read",
    "log-delivery-write",
    "bucket-owner-read",
    "bucket-owner-full-control",
    "aws-exec-read",
)
SSE_ALGORITHMS = ("", "AES256", "aws:kms")
STORAGE_URL_SCHEMES = ("file", "webhdfs", "swebhdfs", "s3")


# --- validators ---------------------------------------------------------------------------------------------


def _check_part_size(name: str, value: object) -> None:
    if value is None:
        raise ConfigException.invalid(name, value, "Part size must be non-null")
    if int(str(value)) < S3_PART_SIZE_MIN:
        raise ConfigException.invalid(
            name, value, f"Part size must be at least: {S3_PART_SIZE_MIN} bytes (5MB)"
        )


def _check_not_kerberos(name: str, value: object) -> None:
    if value is True:
        raise ConfigException.invalid(
            name,
            value,
            "kconnect reaches HDFS over WebHDFS without Kerberos (SPNEGO) authentication; "
            "it cannot write to a kerberized cluster",
        )


def _check_credentials_provider(name: str, value: object) -> None:
    if value is not None and str(value) != DEFAULT_CREDENTIALS_PROVIDER:
        raise ConfigException.invalid(
            name,
            value,
            f"kconnect supports only {DEFAULT_CREDENTIALS_PROVIDER}: boto3's credential chain "
            f"({AWS_ACCESS_KEY_ID_CONFIG}/{AWS_SECRET_ACCESS_KEY_CONFIG}, else the AWS environment "
            "variables, shared credential files and instance roles)",
        )


def _check_canned_acl(name: str, value: object) -> None:
    if value is not None and str(value) not in CANNED_ACLS:
        raise ConfigException.invalid(name, value, "Value must be one of: " + ", ".join(CANNED_ACLS))


def _check_not_blank(name: str, value: object) -> None:
    if value is not None and not str(value).strip():  # None: reported as missing
        raise ConfigException.invalid(name, value, "String must be non-empty")


def _check_hdfs_url(name: str, value: object) -> None:
    if value is None:
        return
    scheme = urlsplit(str(value)).scheme.lower()
    if scheme not in HDFS_SCHEMES or not urlsplit(str(value)).hostname:
        raise ConfigException.invalid(
            name,
            value,
            "Expected hdfs://namenode:port[/path], webhdfs://namenode:http-port[/path] or swebhdfs://...",
        )


def _check_storage_url(name: str, value: object) -> None:
    text = "" if value is None else str(value).strip()
    parts = urlsplit(text)
    scheme = parts.scheme.lower()
    if not text:
        raise ConfigException.invalid(name, value, "String must be non-empty")
    if scheme == "hdfs":
        raise ConfigException.invalid(
            name,
            value,
            "kconnect reaches HDFS over WebHDFS: write webhdfs://<namenode>:<http port>/path "
            "(or use HdfsSinkConnector, whose hdfs.url finds WebHDFS through hadoop.conf.dir)",
        )
    if scheme and scheme not in STORAGE_URL_SCHEMES:
        raise ConfigException.invalid(
            name, value, "Expected a local path, file:///path, webhdfs://host:port/path or s3://bucket/prefix"
        )
    if scheme in ("webhdfs", "swebhdfs", "s3") and not parts.netloc:
        raise ConfigException.invalid(
            name, value, f"A {scheme}:// URL needs a {'bucket' if scheme == 's3' else 'host'}"
        )


# --- keys ---------------------------------------------------------------------------------------------------


def _define_timeout_key(config_def: ConfigDef, group: str) -> ConfigDef:
    return config_def.define(
        STORE_TIMEOUT_CONFIG,
        type=ConfigType.LONG,
        default=30000,
        validator=Range.at_least(1),
        importance=Importance.LOW,
        documentation="How long one request to HDFS or S3 may wait to connect and for an answer before "
        "it fails (kconnect's key), so a store that stops answering fails the operation, which is "
        "retried retry.backoff.ms later, instead of hanging the task.",
        group=group,
        order_in_group=90,
        width=Width.SHORT,
        display_name="Store request timeout (ms)",
    )


def define_hdfs_keys(config_def: ConfigDef) -> ConfigDef:
    """Add ``HdfsSinkConnector``'s keys that say where HDFS is and how to log in to it."""
    config_def.define(
        HDFS_URL_CONFIG,
        type=ConfigType.STRING,
        default=None,
        validator=LambdaValidator(_check_hdfs_url, "hdfs://, webhdfs:// or swebhdfs:// URL"),
        importance=Importance.HIGH,
        documentation="The HDFS to write to: hdfs://namenode:port[/path] (kconnect then talks to the "
        "namenode's WebHDFS, at dfs.namenode.http-address of hadoop.conf.dir's hdfs-site.xml, else "
        "port 9870 of the same host), or webhdfs://namenode:http-port[/path] (swebhdfs:// for HTTPS). "
        "Confluent deprecates it for store.url, which is read when this is not set.",
        group=HDFS_GROUP,
        order_in_group=1,
        width=Width.MEDIUM,
        display_name="HDFS URL",
    ).define(
        STORE_URL_CONFIG,
        type=ConfigType.STRING,
        default=None,
        validator=LambdaValidator(_check_hdfs_url, "hdfs://, webhdfs:// or swebhdfs:// URL"),
        importance=Importance.HIGH,
        documentation="The HDFS to write to, as hdfs.url (which wins when both are set).",
        group=HDFS_GROUP,
        order_in_group=2,
        width=Width.MEDIUM,
        display_name="Store URL",
    ).define(
        HADOOP_CONF_DIR_CONFIG,
        type=ConfigType.STRING,
        default="",
        importance=Importance.HIGH,
        documentation="The Hadoop configuration directory; kconnect reads its hdfs-site.xml to find "
        "the namenode's WebHDFS address (dfs.namenode.http-address, dfs.http.policy).",
        group=HDFS_GROUP,
        order_in_group=3,
        width=Width.MEDIUM,
        display_name="Hadoop Configuration Directory",
    ).define(
        HADOOP_HOME_CONFIG,
        type=ConfigType.STRING,
        default="",
        importance=Importance.HIGH,
        documentation="The Hadoop home directory. Not needed by kconnect, which uses no Hadoop "
        "binaries; accepted so Confluent's configurations still validate.",
        group=HDFS_GROUP,
        order_in_group=4,
        width=Width.SHORT,
        display_name="Hadoop home directory",
    ).define(
        HDFS_AUTHENTICATION_KERBEROS_CONFIG,
        type=ConfigType.BOOLEAN,
        default=False,
        validator=LambdaValidator(_check_not_kerberos, "false"),
        importance=Importance.HIGH,
        documentation="Whether HDFS uses Kerberos for authentication. Only false: kconnect's WebHDFS "
        "client acts as the user named by the HADOOP_USER_NAME environment variable (else the "
        "worker's OS user), as Hadoop's simple authentication does.",
        group=SECURITY_GROUP,
        order_in_group=1,
        width=Width.SHORT,
        display_name="HDFS Authentication Kerberos",
        dependents=(
            CONNECT_HDFS_PRINCIPAL_CONFIG,
            CONNECT_HDFS_KEYTAB_CONFIG,
            HDFS_NAMENODE_PRINCIPAL_CONFIG,
            KERBEROS_TICKET_RENEW_PERIOD_MS_CONFIG,
        ),
    )
    for order, (name, display) in enumerate(
        (
            (CONNECT_HDFS_PRINCIPAL_CONFIG, "Connect Kerberos Principal"),
            (CONNECT_HDFS_KEYTAB_CONFIG, "Connect Kerberos Keytab"),
            (HDFS_NAMENODE_PRINCIPAL_CONFIG, "HDFS NameNode Kerberos Principal"),
        ),
        start=2,
    ):
        config_def.define(
            name,
            type=ConfigType.STRING,
            default="",
            importance=Importance.HIGH,
            documentation=f"Only with {HDFS_AUTHENTICATION_KERBEROS_CONFIG}=true, which kconnect refuses.",
            group=SECURITY_GROUP,
            order_in_group=order,
            width=Width.MEDIUM,
            display_name=display,
        )
    config_def.define(
        KERBEROS_TICKET_RENEW_PERIOD_MS_CONFIG,
        type=ConfigType.LONG,
        default=60 * 60 * 1000,
        importance=Importance.LOW,
        documentation=f"Only with {HDFS_AUTHENTICATION_KERBEROS_CONFIG}=true, which kconnect refuses.",
        group=SECURITY_GROUP,
        order_in_group=5,
        width=Width.SHORT,
        display_name="Kerberos Ticket Renew Period (ms)",
    )
    return _define_timeout_key(config_def, HDFS_GROUP)


def _define_s3_client_keys(
    config_def: ConfigDef, *, group: str, region_default: str | None, first: int
) -> ConfigDef:
    """The keys of the S3 client and of the objects it writes, shared by the S3 and storage connectors."""
    keys: list[tuple[str, ConfigType, object, Validator | None, Importance, str, str]] = [
        (
            STORE_URL_CONFIG,
            ConfigType.STRING,
            None,
            None,
            Importance.HIGH,
            "The S3 endpoint, for S3-compatible servers (MinIO, Ceph, ...): http(s)://host:port. "
            "Empty: AWS's endpoint of s3.region (or AWS_ENDPOINT_URL_S3 from the environment).",
            "Store URL",
        ),
        (
            S3_REGION_CONFIG,
            ConfigType.STRING,
            region_default,
            LambdaValidator(_check_not_blank, "a region name") if region_default is not None else None,
            Importance.MEDIUM,
            "The AWS region to be used the connector."
            + ("" if region_default is not None else " Empty: the AWS environment's (AWS_REGION)."),
            "AWS region",
        ),
        (
            S3_PART_SIZE_CONFIG,
            ConfigType.INT,
            S3_PART_SIZE_DEFAULT,
            LambdaValidator(_check_part_size, f"[{S3_PART_SIZE_MIN},...,{2**31 - 1}]"),
            Importance.HIGH,
            "The Part Size in S3 Multi-part Uploads.",
            "S3 Part Size",
        ),
        (
            AWS_ACCESS_KEY_ID_CONFIG,
            ConfigType.PASSWORD,
            "",
            None,
            Importance.HIGH,
            "The AWS access key id. Empty: the AWS credential chain (environment, shared files, "
            "instance roles).",
            "AWS Access Key ID",
        ),
        (
            AWS_SECRET_ACCESS_KEY_CONFIG,
            ConfigType.PASSWORD,
            "",
            None,
            Importance.HIGH,
            "The AWS secret access key, with aws.access.key.id.",
            "AWS Secret Access Key",
        ),
        (
            S3_CREDENTIALS_PROVIDER_CLASS_CONFIG,
            ConfigType.CLASS,
            DEFAULT_CREDENTIALS_PROVIDER,
            LambdaValidator(_check_credentials_provider, DEFAULT_CREDENTIALS_PROVIDER),
            Importance.LOW,
            "Credentials provider to use for authentication to AWS. Only the default: boto3's credential "
            "chain, its Python counterpart.",
            "AWS Credentials Provider Class",
        ),
        (
            S3_PATH_STYLE_ACCESS_CONFIG,
            ConfigType.BOOLEAN,
            True,
            None,
            Importance.LOW,
            "Use path-style access (endpoint/bucket/key) rather than virtual-hosted style "
            "(bucket.endpoint/key).",
            "Enable Path Style Access to S3",
        ),
        (
            S3_WAN_MODE_CONFIG,
            ConfigType.BOOLEAN,
            False,
            None,
            Importance.MEDIUM,
            "Use S3 accelerated endpoint.",
            "S3 accelerated endpoint enabled",
        ),
        (
            S3_PART_RETRIES_CONFIG,
            ConfigType.INT,
            3,
            Range.at_least(0),
            Importance.MEDIUM,
            "Maximum number of retry attempts for a failed S3 request (botocore's standard retries, "
            "with its own exponential backoff). Zero means no retries.",
            "S3 Part Upload Retries",
        ),
        (
            S3_SSEA_CONFIG,
            ConfigType.STRING,
            "",
            ValidString.in_(*SSE_ALGORITHMS),
            Importance.LOW,
            "The S3 Server Side Encryption Algorithm.",
            "S3 Server Side Encryption Algorithm",
        ),
        (
            S3_SSE_KMS_KEY_ID_CONFIG,
            ConfigType.STRING,
            "",
            None,
            Importance.LOW,
            "The AWS-KMS key for server side encryption, with s3.ssea.name=aws:kms.",
            "S3 Server Side Encryption Key",
        ),
        (
            S3_ACL_CANNED_CONFIG,
            ConfigType.STRING,
            None,
            LambdaValidator(_check_canned_acl, "[" + ", ".join(CANNED_ACLS) + "]"),
            Importance.LOW,
            "An S3 canned ACL header value to apply when writing objects.",
            "S3 Canned ACL",
        ),
        (
            S3_PROXY_URL_CONFIG,
            ConfigType.STRING,
            "",
            None,
            Importance.LOW,
            "S3 Proxy settings encoded in URL syntax, if S3 is reached through a proxy.",
            "S3 Proxy Settings",
        ),
        (
            S3_PROXY_USER_CONFIG,
            ConfigType.STRING,
            None,
            None,
            Importance.LOW,
            "S3 Proxy User, kept out of s3.proxy.url so the password stays hidden.",
            "S3 Proxy User",
        ),
        (
            S3_PROXY_PASS_CONFIG,
            ConfigType.PASSWORD,
            None,
            None,
            Importance.LOW,
            "S3 Proxy Password.",
            "S3 Proxy Password",
        ),
    ]
    for order, (name, config_type, default, validator, importance, doc, display) in enumerate(
        keys, start=first
    ):
        config_def.define(
            name,
            type=config_type,
            default=default,
            validator=validator,
            importance=importance,
            documentation=doc,
            group=group,
            order_in_group=order,
            width=Width.LONG,
            display_name=display,
        )
    return _define_timeout_key(config_def, group)


def define_s3_keys(config_def: ConfigDef) -> ConfigDef:
    """Add ``S3SinkConnector``'s keys that say which bucket, where and how to write to it."""
    config_def.define(
        S3_BUCKET_CONFIG,
        type=ConfigType.STRING,
        validator=LambdaValidator(_check_not_blank, "a bucket name"),
        importance=Importance.HIGH,
        documentation="The S3 Bucket.",
        group=S3_GROUP,
        order_in_group=1,
        width=Width.LONG,
        display_name="S3 Bucket",
    )
    return _define_s3_client_keys(config_def, group=S3_GROUP, region_default=S3_REGION_DEFAULT, first=2)


def define_storage_url_keys(config_def: ConfigDef) -> ConfigDef:
    """Add ``StorageSinkConnector``'s ``storage.url`` and the S3 client keys (used with ``s3://``)."""
    config_def.define(
        STORAGE_URL_CONFIG,
        type=ConfigType.STRING,
        validator=LambdaValidator(
            _check_storage_url, "local path, file://, webhdfs://, swebhdfs:// or s3:// URL"
        ),
        importance=Importance.HIGH,
        documentation="Where the files go: a local path or file:///path, webhdfs://namenode:http-port/path "
        "(swebhdfs:// for HTTPS) or s3://bucket/prefix (with the s3.* and aws.* keys; store.url is "
        "the S3 endpoint of an S3-compatible server).",
        group=STORAGE_GROUP,
        order_in_group=1,
        width=Width.LONG,
        display_name="Storage URL",
    )
    return _define_s3_client_keys(config_def, group=STORAGE_GROUP, region_default=None, first=2)
