"""Which tables the source copies: the database's tables, filtered as `kconnect_jdbc.source.filters` says.

Used by the connector (at start and by its table monitor) and by validation.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from kconnect_jdbc.dialect import DatabaseDialect, TableId
from kconnect_jdbc.source.config import SourceSettings

if TYPE_CHECKING:
    from sqlalchemy import Connection

log = logging.getLogger(__name__)


def all_tables(connection: Connection, dialect: DatabaseDialect, settings: SourceSettings) -> list[TableId]:
    """Every table (and view, per ``table.types``) the patterns let the connector see."""
    return dialect.table_ids(
        connection,
        catalog_pattern=settings.catalog_pattern,
        schema_pattern=settings.schema_pattern,
        table_types=settings.table_types,
    )


def select_tables(found: list[TableId], settings: SourceSettings) -> list[TableId]:
    """`found` narrowed by the table-filtering keys (pure)."""
    return settings.table_filter.select(found)


def missing_whitelisted(found: list[TableId], settings: SourceSettings) -> list[str]:
    """Whitelist entries that name no table found (pure)."""
    return settings.table_filter.missing_whitelisted(found)


class TableMonitor:
    """Looks for new and dropped tables every ``table.poll.interval.ms`` (Confluent's TableMonitorThread).

    Owned by the source connector: `start` spawns the thread, `on_change` is called (on that thread)
    with the new list whenever it differs, `stop` ends it.
    """

    def __init__(
        self,
        list_tables: Callable[[], list[TableId]],
        interval_ms: int,
        on_change: Callable[[list[TableId]], None],
        current: list[TableId],
    ) -> None:
        self._list_tables = list_tables
        self._interval_s = interval_ms / 1000
        self._on_change = on_change
        self._current = current
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="jdbc-table-monitor", daemon=True)

    def start(self) -> None:
        """Start looking."""
        self._thread.start()

    def stop(self) -> None:
        """Stop looking and wait for the thread (at most one interval's query)."""
        self._stopped.set()
        if self._thread.is_alive():
            self._thread.join(timeout=30)

    def _run(self) -> None:
        while not self._stopped.wait(self._interval_s):
            try:
                tables = self._list_tables()
            except Exception as e:  # the database may be down for a while: keep the last list
                log.warning("Could not list tables to look for changes: %s", e)
                continue
            if tables != self._current:
                log.info("Tables changed from %s to %s", _names(self._current), _names(tables))
                self._current = tables
                self._on_change(tables)


def _names(tables: list[TableId]) -> list[str]:
    return [t.qualified for t in tables]
