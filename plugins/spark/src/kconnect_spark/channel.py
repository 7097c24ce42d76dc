"""The control channel's framing and vocabulary: one JSON object per line, both directions.

Messages from the task: ``hello`` (token, pid, host), ``running``, ``paused``, ``failed`` (trace),
``stopped``, ``topic`` (topic), ``commit`` (id, offsets), ``read_offsets`` (id, partitions).
Messages to the task: ``target`` (state), ``topics_reset``, ``reply`` (id, result) and ``error``
(id, error): the worker could not do what request `id` asked (e.g. its offset store failed).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

#: Control messages are small; a bigger line means something is wrong.
MAX_LINE = 16 * 1024 * 1024

#: The task-side exception a broken channel raises inside the Spark task; its name reaches the
#: worker in Spark's error text, which is how the worker tells this cause from others.
CHANNEL_LOST_ERROR = "ControlChannelLost"


#: The task-side exception a second attempt of a connector task's Spark task raises: Spark re-runs
#: a task whose executor was lost without counting it as a failure (so ``spark.task.maxFailures=1``
#: does not stop it), and a connector task must never run twice.
RERUN_REFUSED_ERROR = "TaskRerunRefused"


class TaskRerunRefused(RuntimeError):
    """Spark started a connector task's Spark task again (attempt > 0); the copy refuses to run."""


class ControlChannelLost(ConnectionError):
    """The control channel between a task and its worker broke; nobody supervises the task any more."""


class WorkerError(RuntimeError):
    """The worker answered a task's request with an error (e.g. its offset store could not write)."""


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
