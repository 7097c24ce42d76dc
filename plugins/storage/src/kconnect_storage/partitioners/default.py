"""Confluent's ``DefaultPartitioner``: one directory per Kafka partition, ``partition=<n>``."""

from __future__ import annotations

from kconnect import SinkRecord


class DefaultPartitioner:
    """Keeps Kafka's partitions: ``<topic>/partition=<kafka partition>``."""

    def __init__(self, directory_delim: str = "/") -> None:
        """`directory_delim` (``directory.delim``) joins the topic and the encoded partition."""
        self.directory_delim = directory_delim

    def encode_partition(self, record: SinkRecord, now_ms: int) -> str:
        """``partition=<the record's Kafka partition>`` (``partition=null`` when it has none, as in Java)."""
        partition = "null" if record.kafka_partition is None else str(record.kafka_partition)
        return f"partition={partition}"

    def partitioned_path(self, topic: str, encoded_partition: str) -> str:
        """``<topic><directory.delim><encoded partition>`` (Confluent's ``generatePartitionedPath``)."""
        return f"{topic}{self.directory_delim}{encoded_partition}"
