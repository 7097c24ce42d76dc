"""Which directory a record goes to: the `Partitioner` protocol and Confluent's partitioners.

Default (``partition=<kafka partition>``), Field (``<field>=<value>``), TimeBased, Daily and Hourly
(``path.format`` of the record's time); the file's path is
``<topics.dir>/<topic>/<encoded partition>/<file name>``.
"""

from __future__ import annotations

from typing import Protocol

from kconnect import SinkRecord


class Partitioner(Protocol):
    """Maps a record to its encoded partition (a relative directory path)."""

    def encode_partition(self, record: SinkRecord, now_ms: int) -> str:
        """The encoded partition of `record` (`now_ms`: the wall clock, for the Wallclock extractor).

        Raises `kconnect.errors.DataError` naming the record and field when it cannot be placed."""
        ...

    def partitioned_path(self, topic: str, encoded_partition: str) -> str:
        """The directory below ``topics.dir`` for the topic's files of one encoded partition."""
        ...
