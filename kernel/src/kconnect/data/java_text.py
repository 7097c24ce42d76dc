"""Java's and Jackson's text rules: numbers as Java prints them, strings as Jackson escapes them.

Kafka Connect's Java side writes text that other systems compare byte for byte: JsonConverter's
records, the internal topics' keys (compaction keeps one record per key), the schema text a
registry gives an id. kconnect writes the same bytes through these rules, the one place they are
defined:

* `java_double_repr`, `java_float_repr`, `java_decimal_str`: ``Double.toString``,
  ``Float.toString`` and ``BigDecimal.toString`` (``1.0``, ``1.0E10``, ``1.1``, ``1E+3``);
  `to_float32` is Java's ``(float)`` cast those rest on.
* `jackson_string`: a quoted JSON string escaped as Jackson escapes it; `jackson_double` and
  `jackson_float`: numbers as Jackson writes them (Java's text, quoted when not finite).

Java's names are kept (``toString``, ``(float)``) so a reader can check each rule against the JDK.
"""

from __future__ import annotations

import decimal
import json
import math
import re
import struct as _struct
from collections.abc import Callable

# --- Java's number text -----------------------------------------------------------------------------


def _java_notation(text: str, negative: bool) -> str:
    """Shortest digits (`text`, a positive Python float text) in Java's scientific notation."""
    _, digit_tuple, exponent = decimal.Decimal(text).as_tuple()
    assert isinstance(exponent, int)
    digits = "".join(map(str, digit_tuple)).rstrip("0") or "0"
    scientific = len(digit_tuple) - 1 + exponent
    return f"{'-' if negative else ''}{digits[0]}.{digits[1:] or '0'}E{scientific}"


def java_double_repr(number: float) -> str:
    """`number` as Java's ``Double.toString`` writes it: ``1.0``, ``0.001``, ``1.0E7``, ``NaN``."""
    if 1e-3 <= abs(number) < 1e7:
        return repr(number)  # Python's shortest digits, already in Java's plain form
    if number != number:
        return "NaN"
    if math.isinf(number):
        return "Infinity" if number > 0 else "-Infinity"
    if number == 0:
        return "-0.0" if math.copysign(1.0, number) < 0 else "0.0"
    text = repr(abs(number))
    if len(decimal.Decimal(text).as_tuple().digits) == 1:
        # Java prints at least two significant digits, the two closest to the exact value.
        text = f"{abs(number):.1e}"
    return _java_notation(text, number < 0)


_FLOAT32 = _struct.Struct(">f")
_FLOAT32_MAX = 3.4028235677973366e38


def to_float32(number: float) -> float:
    """`number` rounded to the nearest 32-bit float (Java's ``(float)`` cast)."""
    if abs(number) > _FLOAT32_MAX:
        # Beyond the largest float32 the cast may still round down; let struct decide, else overflow.
        try:
            return float(_FLOAT32.unpack(_FLOAT32.pack(number))[0])
        except OverflowError:
            return math.copysign(math.inf, number)
    return float(_FLOAT32.unpack(_FLOAT32.pack(number))[0])


def java_float_repr(number: float) -> str:
    """`number`, rounded to 32 bits, as Java's ``Float.toString`` writes it: ``1.1``, ``1.0E10``."""
    single = to_float32(number)
    if single != single or math.isinf(single) or single == 0:
        return java_double_repr(single)
    text = repr(abs(single))
    for precision in range(2, 10):  # Java prints at least two significant digits
        candidate = f"{abs(single):.{precision}g}"
        if to_float32(float(candidate)) == abs(single):
            text = candidate
            break
    if 1e-3 <= abs(single) < 1e7:
        plain = format(decimal.Decimal(text), "f")
        plain = plain if "." in plain else plain + ".0"
        return ("-" if single < 0 else "") + plain
    return _java_notation(text, single < 0)


def java_decimal_str(value: decimal.Decimal) -> str:
    """A decimal as Java's ``BigDecimal.toString`` writes it (the same scientific rules; no ``-0``)."""
    text = str(value)
    return text[1:] if value.is_zero() and text.startswith("-") else text


# --- Jackson's JSON text ----------------------------------------------------------------------------

_encode_basestring: Callable[[str], str] = json.encoder.encode_basestring  # type: ignore[attr-defined]
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")

_ESCAPES = {c: f"\\u{c:04X}" for c in range(0x20)}
_ESCAPES.update({0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0C: "\\f", 0x0D: "\\r", 0x22: '\\"', 0x5C: "\\\\"})


class _SurrogatePairEscapes(dict[int, str]):
    """A `str.translate` table with Jackson's escapes, splitting astral characters into escaped pairs."""

    def __missing__(self, code: int) -> str:
        if code <= 0xFFFF:
            raise LookupError(code)
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04X}\\u{0xDC00 + (code & 0x3FF):04X}"


_PAIR_ESCAPES = _SurrogatePairEscapes(_ESCAPES)


def jackson_string(text: str, *, surrogate_escapes: bool = True) -> str:
    """`text` as a quoted JSON string, escaped exactly as Jackson escapes it.

    Jackson escapes ``"``, ``\\`` and the control characters (``\\b \\t \\n \\f \\r`` short, the
    others ``\\u00XX`` in upper-case hex) and writes ``/``, U+007F and other non-ASCII characters
    raw. Characters beyond U+FFFF depend on where Jackson writes, which is why this is a parameter:

    * ``surrogate_escapes=True`` (the default): Jackson's UTF-8 byte generator, behind
      ``ObjectMapper.writeValueAsBytes``, writes them as an escaped surrogate pair
      (``\\uD83D\\uDE00``). Kafka's JsonConverter writes records this way, and so its internal
      topics' keys and values.
    * ``surrogate_escapes=False``: Jackson's character generator, writing to a ``java.io.Writer``,
      writes them raw (encoded as UTF-8 only later, with the rest of the text). Avro's
      ``Schema.toString``, the schema text Confluent's Avro converter registers, is written so.
    """
    quoted = _encode_basestring(text)
    # The C encoder matches Jackson except for lower-case \u00xx escapes and raw astral characters.
    if surrogate_escapes and not text.isascii() and _ASTRAL.search(text):
        return '"' + text.translate(_PAIR_ESCAPES) + '"'
    if "\\u00" in quoted:
        return '"' + text.translate(_ESCAPES) + '"'
    return quoted


def jackson_double(number: float) -> str:
    """A double as Jackson writes it: Java's ``Double.toString``, quoted when not finite."""
    if 1e-3 <= abs(number) < 1e7:
        return repr(number)  # the common case, without a call
    text = java_double_repr(number)
    return text if math.isfinite(number) else f'"{text}"'


def jackson_float(number: float) -> str:
    """A float32 as Jackson writes it: Java's ``Float.toString``, quoted when not finite."""
    text = java_float_repr(number)
    return text if text[-1].isdigit() else f'"{text}"'
