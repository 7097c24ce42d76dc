"""The control channel's framing: one JSON object per line, both directions.

Messages from the task: ``hello`` (token), ``running``, ``paused``, ``failed`` (trace),
``stopped``, ``topic`` (topic), ``commit`` (id, offsets), ``read_offsets`` (id, partitions).
Messages to the task: ``target`` (state) and ``reply`` (id, result).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

#: Control messages are small; a bigger line means something is wrong.
MAX_LINE = 16 * 1024 * 1024


async def read_message(reader: asyncio.StreamReader) -> dict[str, Any] | None:
    """The next message, or None when the other side closed the connection."""
    line = await reader.readline()
    if not line:
        return None
    message = json.loads(line)
    if not isinstance(message, dict):
        raise ValueError("control message is not a JSON object")
    return message


def encode(message: dict[str, Any]) -> bytes:
    """One message as a line of JSON."""
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"
