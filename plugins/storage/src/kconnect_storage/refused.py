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
    },
)
