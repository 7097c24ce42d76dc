"""java_text: Java's number text and Jackson's string escapes, in both of Jackson's generators."""

from __future__ import annotations

import decimal
import math

import pytest
from kconnect.data.java_text import (
    jackson_double,
    jackson_float,
    jackson_string,
    java_decimal_str,
    java_double_repr,
    java_float_repr,
    to_float32,
)


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("plain", '"plain"'),
        ('q"b\\s/', '"q\\"b\\\\s/"'),
        ("\b\t\n\f\r", '"\\b\\t\\n\\f\\r"'),
        ("\x01\x1f\x7f", '"\\u0001\\u001F\x7f"'),
        ("é€\u2028", '"é€\u2028"'),
        ("a\\u00ab", '"a\\\\u00ab"'),  # a backslash the text holds is escaped, never read as an escape
    ],
)
def test_jackson_string_is_the_same_in_both_generators_inside_the_bmp(text: str, written: str) -> None:
    assert jackson_string(text) == written
    assert jackson_string(text, surrogate_escapes=False) == written


def test_beyond_the_bmp_the_byte_generator_escapes_a_surrogate_pair_and_the_writer_does_not() -> None:
    assert jackson_string("a\U0001f600\x1f") == '"a\\uD83D\\uDE00\\u001F"'
    assert jackson_string("a\U0001f600\x1f", surrogate_escapes=False) == '"a\U0001f600\\u001F"'
    assert jackson_string("\U0010ffff") == '"\\uDBFF\\uDFFF"'


@pytest.mark.parametrize(
    ("number", "double", "single"),
    [
        (1.0, "1.0", "1.0"),
        (0.001, "0.001", "0.001"),
        (1e7, "1.0E7", "1.0E7"),
        (1.1, "1.1", "1.1"),
        (1e-5, "1.0E-5", "1.0E-5"),
        (-0.0, "-0.0", "-0.0"),
        (1e20, "1.0E20", "1.0E20"),
    ],
)
def test_java_number_text(number: float, double: str, single: str) -> None:
    assert java_double_repr(number) == double
    assert java_float_repr(number) == single
    assert jackson_double(number) == double
    assert jackson_float(number) == single


def test_jackson_quotes_numbers_that_are_not_finite() -> None:
    written = [jackson_double(v) for v in (math.nan, math.inf, -math.inf)]
    assert written == ['"NaN"', '"Infinity"', '"-Infinity"']
    assert jackson_float(math.nan) == '"NaN"'
    assert java_double_repr(math.nan) == "NaN"


def test_float32_cast_and_big_decimal_text() -> None:
    assert to_float32(0.1) == 0.10000000149011612
    assert to_float32(1e39) == math.inf
    assert java_decimal_str(decimal.Decimal("-0.00")) == "0.00"
    assert java_decimal_str(decimal.Decimal("1E+3")) == "1E+3"
