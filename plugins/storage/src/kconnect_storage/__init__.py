"""kconnect-storage: Kafka topics into files on HDFS, S3 or local disk, exactly once.

One sink engine (`kconnect_storage.task`) behind three connectors: Confluent's
``io.confluent.connect.hdfs.HdfsSinkConnector`` and ``io.confluent.connect.s3.S3SinkConnector``
(their keys, file names and layouts) and `StorageSinkConnector` for any store URL. The parts are
plugged together by protocols: a `Store` (where bytes go: `kconnect_storage.stores`), a
`RecordFormat` (how records become a file: `kconnect_storage.formats`) and a `Partitioner` (which
directory a record goes to: `kconnect_storage.partitioners`).
"""
