"""``json.indent.output``: payloads indented as Jackson's ``DefaultPrettyPrinter`` indents them.

Objects put each entry on its own line, two spaces per level, ``"key" : value``; arrays stay on one
line, ``[ 1, 2 ]``; empty ones are ``{ }`` and ``[ ]``. Scalars are written by orjson, as unindented.
"""

from __future__ import annotations

from typing import Any

import orjson


def pretty_json(node: Any) -> bytes:
    """`node` (what an encoder returns) as indented JSON."""
    out: list[bytes] = []
    _write(node, 0, out)
    return b"".join(out)


def _write(node: Any, level: int, out: list[bytes]) -> None:
    if isinstance(node, dict):
        if not node:
            out.append(b"{ }")
            return
        inner = b"\n" + b"  " * (level + 1)
        out.append(b"{")
        for index, (key, value) in enumerate(node.items()):
            out.append(inner if index == 0 else b"," + inner)
            out.append(orjson.dumps(key) + b" : ")
            _write(value, level + 1, out)
        out.append(b"\n" + b"  " * level + b"}")
    elif isinstance(node, list):
        if not node:
            out.append(b"[ ]")
            return
        out.append(b"[ ")
        for index, value in enumerate(node):
            if index:
                out.append(b", ")
            _write(value, level, out)  # arrays are inline: their items keep the level
        out.append(b" ]")
    else:
        out.append(orjson.dumps(node))
