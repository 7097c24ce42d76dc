"""Output: tables for people, JSON and YAML for scripts (the server's bodies, unchanged)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import yaml

#: The ``-o`` formats every ``get`` and ``describe`` takes.
FORMATS = ("table", "json", "yaml")


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Left-aligned columns two spaces apart, headers first; the last column is not padded."""
    widths = [max(len(str(row[i])) for row in [headers, *rows]) for i in range(len(headers))]
    lines = []
    for row in [headers, *rows]:
        cells = [str(cell).ljust(width) for cell, width in zip(row, widths, strict=True)]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def key_values(pairs: Sequence[tuple[str, str]]) -> str:
    """``label  value`` lines, the values aligned."""
    width = max((len(label) for label, _ in pairs), default=0)
    return "\n".join(f"{label.ljust(width)}  {value}".rstrip() for label, value in pairs)


def dump(data: Any, output: str) -> str:
    """`data` as JSON (indented, keys in the server's order) or YAML (block style, same order)."""
    if output == "yaml":
        return str(
            yaml.safe_dump(data, sort_keys=False, allow_unicode=True, default_flow_style=False)
        ).rstrip()
    return json.dumps(data, indent=2, ensure_ascii=False)


def compact(data: Any) -> str:
    """A JSON value on one line (a partition or an offset in a table cell)."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def state_counts(states: Sequence[str]) -> str:
    """Task states as counts, most frequent first: ``2 RUNNING, 1 FAILED``; ``-`` for none."""
    counts: dict[str, int] = {}
    for state in states:
        counts[state] = counts.get(state, 0) + 1
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return ", ".join(f"{n} {state}" for state, n in ordered) or "-"


def indented(text: str, prefix: str = "  ") -> str:
    """Every line of `text` behind `prefix` (a stack trace under its heading)."""
    return "\n".join(prefix + line for line in text.rstrip().splitlines())
