"""``errors.tolerance``: whether a record that fails conversion or transformation fails the task.

Kafka's rule (KIP-298): with ``none`` (the default) the first such error fails the task; with
``all`` the record is skipped and the task goes on. Both loops call `ErrorTolerance.skip` from the
``except`` block around a record's converters and transformations; a skipped source record still
has its source offset committed, as Kafka acknowledges dropped records.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

log = logging.getLogger(__name__)


class ErrorTolerance:
    """A connector's ``errors.tolerance`` setting, applied to one failed record at a time."""

    def __init__(self, connector_config: Mapping[str, str]) -> None:
        self.tolerate_all = connector_config.get("errors.tolerance", "none").strip().lower() == "all"

    def skip(self, stage: str, record: str) -> None:
        """Called inside an ``except`` block: re-raise the error, or log it and return (skip the record).

        `stage` names what failed (``conversion``, ``transformation``), `record` which record.
        """
        if not self.tolerate_all:
            raise
        log.warning("Skipping %s: %s failed (errors.tolerance=all)", record, stage, exc_info=True)
