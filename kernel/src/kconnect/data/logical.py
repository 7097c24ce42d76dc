"""Connect's logical types: Decimal, Date, Time and Timestamp, with their Python values.

A logical type is a primitive schema with a well-known name. Converters call `from_logical` to
turn the Python value into the primitive one written on the wire and `to_logical` on the way back:

==========  ============================================  =========  =====================
type        name                                          primitive  Python value
==========  ============================================  =========  =====================
Decimal     ``org.apache.kafka.connect.data.Decimal``     BYTES      ``decimal.Decimal``
Date        ``org.apache.kafka.connect.data.Date``        INT32      ``datetime.date``
Time        ``org.apache.kafka.connect.data.Time``        INT32      ``datetime.time``
Timestamp   ``org.apache.kafka.connect.data.Timestamp``   INT64      ``datetime.datetime``
==========  ============================================  =========  =====================

Decimal bytes are the unscaled value in big-endian two's complement (Java's
``BigInteger.toByteArray``), scale in the ``scale`` parameter. Dates count days since the epoch,
times milliseconds since midnight, timestamps milliseconds since the epoch, all in UTC: naive
datetimes are read as UTC, and `to_logical` returns naive dates and times and aware (UTC) datetimes.
"""

from __future__ import annotations

import datetime
import decimal

from kconnect.data.connect_schema import (
    DATE_LOGICAL_NAME,
    DECIMAL_LOGICAL_NAME,
    TIME_LOGICAL_NAME,
    TIMESTAMP_LOGICAL_NAME,
)
from kconnect.data.schema import Schema, SchemaBuilder
from kconnect.errors import DataError

MILLIS_PER_DAY = 24 * 60 * 60 * 1000
EPOCH_DATE = datetime.date(1970, 1, 1)
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def _check_name(schema: Schema, expected: str, what: str) -> None:
    if schema.name != expected:
        raise DataError(f"Requested conversion of {what} object but the schema does not match.")


class Decimal:
    """Arbitrary-precision decimals with a fixed scale, as BYTES of the unscaled value."""

    LOGICAL_NAME = DECIMAL_LOGICAL_NAME
    SCALE_FIELD = "scale"

    @classmethod
    def builder(cls, scale: int) -> SchemaBuilder:
        """A builder for a Decimal schema of `scale` (version 1), to add optional() or a default."""
        return SchemaBuilder.bytes().name(cls.LOGICAL_NAME).parameter(cls.SCALE_FIELD, str(scale)).version(1)

    @classmethod
    def schema(cls, scale: int) -> Schema:
        """The required Decimal schema of `scale`."""
        return cls.builder(scale).build()

    @classmethod
    def scale(cls, schema: Schema) -> int:
        """The scale a Decimal schema declares; raises DataError when missing or not an integer."""
        text = (schema.parameters or {}).get(cls.SCALE_FIELD)
        if text is None:
            raise DataError("Invalid Decimal schema: scale parameter not found.")
        try:
            return int(text)
        except ValueError as e:
            raise DataError(f"Invalid scale parameter found in Decimal schema: {text!r}") from e

    @classmethod
    def from_logical(cls, schema: Schema, value: decimal.Decimal) -> bytes:
        """The unscaled value's bytes; the value's scale must equal the schema's."""
        scale = cls.scale(schema)
        sign, digits, exponent = value.as_tuple()
        if not isinstance(exponent, int):
            raise DataError(f"Decimal value {value} is not a finite number")
        if -exponent != scale:
            raise DataError(
                "Decimal value has mismatching scale for given Decimal schema. "
                f"Schema has scale {scale}, value has scale {-exponent}."
            )
        unscaled = int("".join(map(str, digits)) or "0")
        if sign:
            unscaled = -unscaled
        return to_twos_complement(unscaled)

    @classmethod
    def to_logical(cls, schema: Schema, raw: bytes) -> decimal.Decimal:
        """The decimal whose unscaled value `raw` holds, at the schema's scale."""
        scale = cls.scale(schema)
        if not raw:
            raise DataError("Invalid Decimal bytes: zero length")
        unscaled = int.from_bytes(raw, "big", signed=True)
        digits = tuple(int(d) for d in str(abs(unscaled)))
        return decimal.Decimal((1 if unscaled < 0 else 0, digits, -scale))


def to_twos_complement(number: int) -> bytes:
    """`number` as the shortest big-endian two's complement bytes (Java's ``BigInteger.toByteArray``)."""
    magnitude_bits = (~number if number < 0 else number).bit_length()
    return number.to_bytes(magnitude_bits // 8 + 1, "big", signed=True)


class Date:
    """A calendar date, as INT32 days since 1970-01-01."""

    LOGICAL_NAME = DATE_LOGICAL_NAME
    SCHEMA: Schema

    @classmethod
    def builder(cls) -> SchemaBuilder:
        """A builder for the Date schema (version 1), to add optional() or a default."""
        return SchemaBuilder.int32().name(cls.LOGICAL_NAME).version(1)

    @classmethod
    def from_logical(cls, schema: Schema, value: datetime.date) -> int:
        """Days since the epoch; a datetime must be midnight UTC."""
        _check_name(schema, cls.LOGICAL_NAME, "Date")
        if isinstance(value, datetime.datetime):
            utc = _as_utc(value)
            if utc.time() != datetime.time(0):
                raise DataError(
                    "Kafka Connect Date type should not have any time fields set to non-zero values."
                )
            value = utc.date()
        return (value - EPOCH_DATE).days

    @classmethod
    def to_logical(cls, schema: Schema, raw: int) -> datetime.date:
        """The date `raw` days after the epoch."""
        _check_name(schema, cls.LOGICAL_NAME, "Date")
        try:
            return EPOCH_DATE + datetime.timedelta(days=raw)
        except OverflowError as e:
            raise DataError(f"Date value {raw} is out of the range Python dates support") from e


class Time:
    """A time of day, as INT32 milliseconds since midnight (UTC)."""

    LOGICAL_NAME = TIME_LOGICAL_NAME
    SCHEMA: Schema

    @classmethod
    def builder(cls) -> SchemaBuilder:
        """A builder for the Time schema (version 1), to add optional() or a default."""
        return SchemaBuilder.int32().name(cls.LOGICAL_NAME).version(1)

    @classmethod
    def from_logical(cls, schema: Schema, value: datetime.time) -> int:
        """Milliseconds since midnight; an aware time is first moved to UTC."""
        _check_name(schema, cls.LOGICAL_NAME, "Time")
        millis = ((value.hour * 60 + value.minute) * 60 + value.second) * 1000 + value.microsecond // 1000
        offset = value.utcoffset()
        if offset is not None:
            millis -= offset // datetime.timedelta(milliseconds=1)
        if not 0 <= millis <= MILLIS_PER_DAY:
            raise DataError("Kafka Connect Time type should not have any date fields set to non-zero values.")
        return millis

    @classmethod
    def to_logical(cls, schema: Schema, raw: int) -> datetime.time:
        """The (naive, UTC) time `raw` milliseconds after midnight."""
        _check_name(schema, cls.LOGICAL_NAME, "Time")
        if not 0 <= raw < MILLIS_PER_DAY:
            raise DataError(
                "Time values must use number of milliseconds greater than 0 and less than 86400000"
            )
        seconds, millis = divmod(raw, 1000)
        minutes, second = divmod(seconds, 60)
        hour, minute = divmod(minutes, 60)
        return datetime.time(hour, minute, second, millis * 1000)


class Timestamp:
    """An instant, as INT64 milliseconds since the epoch."""

    LOGICAL_NAME = TIMESTAMP_LOGICAL_NAME
    SCHEMA: Schema

    @classmethod
    def builder(cls) -> SchemaBuilder:
        """A builder for the Timestamp schema (version 1), to add optional() or a default."""
        return SchemaBuilder.int64().name(cls.LOGICAL_NAME).version(1)

    @classmethod
    def from_logical(cls, schema: Schema, value: datetime.datetime) -> int:
        """Milliseconds since the epoch (floor); a naive datetime is read as UTC."""
        _check_name(schema, cls.LOGICAL_NAME, "Timestamp")
        return epoch_millis(value)

    @classmethod
    def to_logical(cls, schema: Schema, raw: int) -> datetime.datetime:
        """The aware UTC datetime `raw` milliseconds after the epoch."""
        _check_name(schema, cls.LOGICAL_NAME, "Timestamp")
        try:
            return EPOCH + datetime.timedelta(milliseconds=raw)
        except OverflowError as e:
            raise DataError(f"Timestamp value {raw} is out of the range Python datetimes support") from e


def _as_utc(value: datetime.datetime) -> datetime.datetime:
    if value.tzinfo is None:
        return value.replace(tzinfo=datetime.timezone.utc)
    return value.astimezone(datetime.timezone.utc)


def epoch_millis(value: datetime.datetime) -> int:
    """Milliseconds from the epoch to `value` (naive means UTC), rounded down like Java's ``getTime``."""
    delta = _as_utc(value) - EPOCH
    return (delta.days * 86400 + delta.seconds) * 1000 + delta.microseconds // 1000


LOGICAL_TYPES: dict[str, type[Decimal] | type[Date] | type[Time] | type[Timestamp]] = {
    Decimal.LOGICAL_NAME: Decimal,
    Date.LOGICAL_NAME: Date,
    Time.LOGICAL_NAME: Time,
    Timestamp.LOGICAL_NAME: Timestamp,
}
"""Each logical type by its schema name."""

Date.SCHEMA = Date.builder().build()
Time.SCHEMA = Time.builder().build()
Timestamp.SCHEMA = Timestamp.builder().build()
