"""``offset.flush.records``: kconnect's worker key bounding a source task's replay in records.

Kafka Connect commits a source task's offsets every ``offset.flush.interval.ms`` (default 60 s), so
after a crash the next run sends again what the task produced since the last commit: a number of
records that grows with the task's speed. A task on kconnect moves more records per interval than
the same task on Java, so it would replay more. With ``offset.flush.records`` a source task also
commits once that many records were acknowledged since its last commit, in the background while
records keep moving, so a crash replays about that many records at most, whatever the speed (plus
what was in flight). 0 turns it off (commits on the interval only, as in Kafka).

The default, 10,000, is a few hundred milliseconds of a task at full speed: a replay smaller than
Java's at any interval of a second or more, for one small write to the offsets topic per 10,000
records. Sink tasks are not affected: their commit calls the task's ``pre_commit`` (by default
``flush``), and committing on a count would change when a sink flushes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

OFFSET_FLUSH_RECORDS_CONFIG: Final = "offset.flush.records"
#: How many acknowledged records start a source offset commit unless the worker sets the key
#: (`kconnect.config.worker_settings` declares the key with it; tasks read `WorkerSettings`).
OFFSET_FLUSH_RECORDS_DEFAULT: Final = 10_000


def check_offset_flush_keys(props: Mapping[str, str]) -> list[str]:
    """The error of the worker's ``offset.flush.records`` (``<key>: <message>``), in Kafka's words."""
    raw = props.get(OFFSET_FLUSH_RECORDS_CONFIG)
    if raw is None or not raw.strip():
        return []
    key = OFFSET_FLUSH_RECORDS_CONFIG
    try:
        value = int(raw.strip())
    except ValueError:
        return [f"{key}: Invalid value {raw} for configuration {key}: Not a number of type LONG"]
    if value < 0:
        return [f"{key}: Invalid value {value} for configuration {key}: Value must be at least 0"]
    return []
