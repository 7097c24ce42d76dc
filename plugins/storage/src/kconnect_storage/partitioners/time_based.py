"""Confluent's ``TimeBasedPartitioner`` and its fixed forms ``DailyPartitioner`` and ``HourlyPartitioner``.

A record's time (from the ``timestamp.extractor``) is cut down to the start of its
``partition.duration.ms`` bucket in ``timezone`` (`kconnect_storage.partitioners.timezones`)
and printed with ``path.format``, a Joda-Time pattern
(`kconnect_storage.partitioners.joda_format`), in ``locale``.
"""

from __future__ import annotations

from kconnect import SinkRecord

from kconnect_storage.partitioners.default import DefaultPartitioner
from kconnect_storage.partitioners.extractors import TimestampExtractor
from kconnect_storage.partitioners.joda_format import JodaPattern
from kconnect_storage.partitioners.locales import date_symbols
from kconnect_storage.partitioners.timezones import JodaZone, bucket_start

HOUR_MS = 3600000
DAY_MS = 24 * HOUR_MS
_CACHED_BUCKETS = 1024


def daily_path_format(directory_delim: str) -> str:
    """``'year'=YYYY/'month'=MM/'day'=dd`` with `directory_delim` between (``DailyPartitioner``)."""
    return directory_delim.join(("'year'=YYYY", "'month'=MM", "'day'=dd"))


def hourly_path_format(directory_delim: str) -> str:
    """The daily format and ``'hour'=HH`` (``HourlyPartitioner``)."""
    return directory_delim.join((daily_path_format(directory_delim), "'hour'=HH"))


class TimeBasedPartitioner(DefaultPartitioner):
    """Directories of time buckets: ``year=2015/month=12/day=07/hour=15`` and the like."""

    def __init__(
        self,
        *,
        partition_duration_ms: int,
        path_format: str,
        locale: str,
        zone: JodaZone,
        extractor: TimestampExtractor,
        directory_delim: str = "/",
    ) -> None:
        """Buckets of `partition_duration_ms` (> 0) in `zone`, printed with `path_format`.

        A `path_format` ending with `directory_delim` loses it, as in Confluent. Raises
        ValueError with Joda's text when `path_format` is not a valid pattern.
        """
        super().__init__(directory_delim)
        if directory_delim and path_format.endswith(directory_delim):
            path_format = path_format[: -len(directory_delim)]
        self.partition_duration_ms = partition_duration_ms
        self.path_format = path_format
        self.zone = zone
        self.extractor = extractor
        self._pattern = JodaPattern(path_format)
        self._symbols = date_symbols(locale)
        self._encoded: dict[int, str] = {}  # bucket start -> directory: records arrive in few buckets

    def encode_partition(self, record: SinkRecord, now_ms: int) -> str:
        """The bucket of the record's time, printed; DataError when the record has no time."""
        return self.encode_timestamp(self.extractor.extract(record, now_ms))

    def encode_timestamp(self, timestamp_ms: int) -> str:
        """The directory of the bucket holding `timestamp_ms`."""
        start = bucket_start(self.partition_duration_ms, timestamp_ms, self.zone)
        encoded = self._encoded.get(start)
        if encoded is None:
            if len(self._encoded) >= _CACHED_BUCKETS:
                self._encoded.clear()
            encoded = self._encoded[start] = self._pattern.format(start, self.zone, self._symbols)
        return encoded
