"""Confluent HDFS and S3 sink keys the storage sink does not implement: refused unless at their default."""

from __future__ import annotations

from kconnect.config.refused_keys import RefusedKeys, refused

REFUSED = RefusedKeys(
    "storage sink",
    {
        "hive.integration": refused(
            "there is no Hive metastore integration; read the files with Spark, which finds the "
            "partition directories itself",
            "false",
        ),
        "hive.metastore.uris": refused("there is no Hive metastore integration"),
        "hive.conf.dir": refused("there is no Hive metastore integration"),
        "hive.home": refused("there is no Hive metastore integration"),
        "hive.database": refused("there is no Hive metastore integration", "default"),
        "hive.table.name": refused("there is no Hive metastore integration", "${topic}"),
        "storage.class": refused(
            "the store follows from the connector (hdfs.url, s3.bucket.name, storage.url)",
            "io.confluent.connect.hdfs.storage.HdfsStorage",
            "io.confluent.connect.s3.storage.S3Storage",
        ),
        "s3.object.tagging": refused("objects are written without tags", "false"),
        "store.kafka.keys": refused("only record values are written", "false"),
        "store.kafka.headers": refused("only record values are written", "false"),
        "keys.format.class": refused("only record values are written"),
        "headers.format.class": refused("only record values are written"),
        "schemas.cache.config": refused("the formats keep no schema cache of that size", "1000"),
        "s3.retry.backoff.ms": refused(
            "botocore's standard retries (s3.part.retries) keep their own backoff base", "200"
        ),
        "s3.sse.customer.key": refused(
            "customer-provided encryption keys are not supported; use s3.ssea.name with AES256 or aws:kms"
        ),
        "s3.http.send.expect.continue": refused("boto3 decides on Expect: 100-continue itself", "true"),
        "s3.elastic.buffer.enable": refused(
            "a staged file is spooled to local disk, not to a growing memory buffer", "false"
        ),
        "s3.elastic.buffer.init.capacity": refused(
            "a staged file is spooled to local disk, not to a growing memory buffer", "131072"
        ),
        "s3.ssl.key.password": refused("TLS to the S3 endpoint uses the system's trust store"),
        "s3.ssl.keystore.location": refused("TLS to the S3 endpoint uses the system's trust store"),
        "s3.ssl.truststore.location": refused("TLS to the S3 endpoint uses the system's trust store"),
    },
)
