"""Where a record's time comes from (``timestamp.extractor``): Wallclock, Record or RecordField.

The time-based partitioners bucket records by it, and the sink's ``rotate.interval.ms`` measures
a file's span with it. Confluent's behaviour and texts: RecordField reads ``timestamp.field`` (dots
for nested fields) of a Struct value (INT32, INT64 or Timestamp fields, or strings) or of a map
value (numbers, strings or datetimes); a string of digits is epoch milliseconds, any other string
an ISO-8601 date-time (`kconnect_storage.partitioners.iso_dates`).
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Mapping
from typing import Protocol

from kconnect import SinkRecord, Struct
from kconnect.data import logical
from kconnect.data.schema import Type
from kconnect.errors import DataError

from kconnect_storage.partitioners.fields import describe_record, nested_field, nested_value
from kconnect_storage.partitioners.iso_dates import parse_iso_millis

_EXTRACTOR_PREFIX = "io.confluent.connect.storage.partitioner.TimeBasedPartitioner$"
_NUMERIC = re.compile(r"-?[0-9]{1,19}")
_LONG_RANGE = range(-(2**63), 2**63)


class TimestampExtractor(Protocol):
    """Gives a record's time in milliseconds since the epoch."""

    #: The Java class Confluent names for this extractor (in its error texts).
    java_class_name: str

    def extract(self, record: SinkRecord, now_ms: int) -> int:
        """The time of `record`; `now_ms` is the wall clock the caller read for this batch.

        Raises `kconnect.errors.DataError` naming the record or field when there is none."""
        ...


class WallclockTimestampExtractor:
    """The time the record is written: the caller's `now_ms` (Confluent's ``Wallclock``)."""

    java_class_name = _EXTRACTOR_PREFIX + "WallclockTimestampExtractor"

    def extract(self, record: SinkRecord, now_ms: int) -> int:
        """`now_ms`, whatever the record."""
        return now_ms


class RecordTimestampExtractor:
    """The record's Kafka timestamp (Confluent's ``Record``)."""

    java_class_name = _EXTRACTOR_PREFIX + "RecordTimestampExtractor"

    def extract(self, record: SinkRecord, now_ms: int) -> int:
        """The record's timestamp; DataError with Confluent's text when it has none."""
        if record.timestamp is None:
            raise DataError(
                f"Unable to determine timestamp using timestamp.extractor {self.java_class_name} "
                f"for record: {describe_record(record)}"
            )
        return record.timestamp


class RecordFieldTimestampExtractor:
    """A field of the record's value (Confluent's ``RecordField``, ``timestamp.field``)."""

    java_class_name = _EXTRACTOR_PREFIX + "RecordFieldTimestampExtractor"

    def __init__(self, field_name: str) -> None:
        """Read the time from `field_name` (dots for nested fields)."""
        self.field_name = field_name

    def extract(self, record: SinkRecord, now_ms: int) -> int:
        """The field's time; DataError naming the field when it is missing or of another type."""
        value = record.value
        if isinstance(value, Struct):
            return self._from_struct(record, value)
        if isinstance(value, Mapping):
            found = nested_value(value, self.field_name)
            if isinstance(found, (int, float)) and not isinstance(found, bool):
                return int(found)  # Java's Number.longValue() truncates a fraction
            if isinstance(found, str):
                return self._from_string(found)
            if isinstance(found, datetime.datetime):
                return logical.epoch_millis(found)
            raise self._unsupported(type(found).__name__)
        raise DataError("Error encoding partition.")

    def _from_struct(self, record: SinkRecord, value: Struct) -> int:
        found = nested_value(value, self.field_name)
        field = nested_field(record.value_schema or value.schema, self.field_name)
        if field is None:
            raise DataError(f"The field '{self.field_name}' does not exist.")
        schema = field.schema
        if schema.name == logical.Timestamp.LOGICAL_NAME and isinstance(found, datetime.datetime):
            return logical.epoch_millis(found)
        if schema.type in (Type.INT32, Type.INT64) and isinstance(found, int):  # not Date or Time values
            return found
        if schema.type is Type.STRING and isinstance(found, str):
            return self._from_string(found)
        raise self._unsupported(str(schema.type) if schema.name is None else schema.name)

    def _from_string(self, text: str) -> int:
        if _NUMERIC.fullmatch(text) and int(text) in _LONG_RANGE:
            return int(text)
        try:
            return parse_iso_millis(text)
        except ValueError as e:
            raise DataError(f"Error extracting timestamp from record field: {self.field_name}: {e}") from e

    def _unsupported(self, type_name: str) -> DataError:
        return DataError(
            f"Error extracting timestamp from record field: {self.field_name} "
            f"(unsupported type '{type_name}' for user-defined timestamp field)"
        )
