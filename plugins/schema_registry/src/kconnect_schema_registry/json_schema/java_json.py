"""How Confluent's Java stack writes a JSON Schema's text, where the order or the digits are Java's.

Confluent's converter builds an everit schema, prints it (everit's writer, org.json for maps and
defaults) and reads that text back into Jackson, whose compact rendering is the text registered.
Three Java habits survive that trip and decide the bytes, so the registry's ids and versions agree:

* ``connect.*`` keywords, ``connect.parameters`` and struct or map defaults sit in
  ``java.util.HashMap``\\ s, so they come out in Java's bucket order (`java_hashmap_order`);
* numbers in defaults go through org.json's ``numberToString`` (``1.0`` becomes ``1``) and then
  Jackson's ``BigDecimal`` text (``1.0E20`` becomes ``1.0E+20``): `java_number_text`;
* strings are escaped as Jackson escapes them (control characters only, no ``\\u`` for non-ASCII).
"""

from __future__ import annotations

import decimal
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_INTEGER = re.compile(r"-?(?:0|[1-9]\d*)")


@dataclass(frozen=True)
class RawJson:
    """JSON text written as is (a number in Java's digits)."""

    text: str


def _string_hash(text: str) -> int:
    data = text.encode("utf-16-be")
    h = 0
    for index in range(0, len(data), 2):
        h = (31 * h + (data[index] << 8 | data[index + 1])) & 0xFFFFFFFF
    return h ^ (h >> 16)


def default_capacity(size: int) -> int:
    """The table size of a ``new HashMap<>()`` after `size` puts."""
    capacity = 16
    while size > int(capacity * 0.75):
        capacity *= 2
    return capacity


def copy_capacity(size: int) -> int:
    """The table size of ``new HashMap<>(map)`` copying a map of `size` entries."""
    wanted = max(1, int(size / 0.75 + 1.0))
    capacity = 1
    while capacity < wanted:
        capacity *= 2
    return capacity


def sized_capacity(size: int) -> int:
    """The table size of ``new HashMap<>(size)`` after `size` puts (org.json's ``JSONObject(Map)``)."""
    capacity = 1
    while capacity < size:
        capacity *= 2
    while size > int(capacity * 0.75):
        capacity *= 2
    return capacity


def java_hashmap_order(keys: Iterable[str], capacity: int) -> list[str]:
    """`keys` (in the order they were put) in the iteration order of a Java HashMap of `capacity`."""
    return sorted(keys, key=lambda key: _string_hash(key) & (capacity - 1))


def hashmap_items(items: Iterable[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """The entries of a ``new HashMap<>()`` filled with `items`, in Java's iteration order."""
    entries = dict(items)
    order = java_hashmap_order(entries, default_capacity(len(entries)))
    return [(key, entries[key]) for key in order]


def java_number_text(text: str) -> RawJson | str:
    """A Java number's ``toString`` as org.json prints it and Jackson then writes it back.

    org.json strips trailing zeros of a plain decimal (``2.50`` -> ``2.5``, ``1.0`` -> ``1``) and
    quotes what is no JSON number (``NaN``); Jackson reads integers as integers and other numbers
    as ``BigDecimal``, which it writes with ``BigDecimal.toString``.
    """
    if "." in text and "e" not in text and "E" not in text:
        text = text.rstrip("0").rstrip(".")
    if not _NUMBER.fullmatch(text):
        return text
    if _INTEGER.fullmatch(text):
        return RawJson(str(int(text)))
    return RawJson(str(decimal.Decimal(text)))


def write_json(value: Any) -> str:
    """Compact JSON text of `value` (dicts in their order, `RawJson` as is), escaped as Jackson does."""
    parts: list[str] = []
    _write(value, parts)
    return "".join(parts)


def _write(value: Any, out: list[str]) -> None:
    if isinstance(value, RawJson):
        out.append(value.text)
    elif isinstance(value, dict):
        out.append("{")
        for index, (key, item) in enumerate(value.items()):
            if index:
                out.append(",")
            out.append(json.dumps(key, ensure_ascii=False))
            out.append(":")
            _write(item, out)
        out.append("}")
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            _write(item, out)
        out.append("]")
    else:
        out.append(json.dumps(value, ensure_ascii=False))
