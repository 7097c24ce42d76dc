"""JdbcSourceConnector: finds the tables, splits them over tasks, and watches for new or dropped ones."""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar

from kconnect import ConfigDef, SourceConnector, group_partitions
from kconnect.config import ConfigValue

from kconnect_jdbc.dialect import TableId
from kconnect_jdbc.source.config import SOURCE_CONFIG_DEF, TABLES_CONFIG, SourceSettings
from kconnect_jdbc.source.tables import TableMonitor, all_tables, select_tables
from kconnect_jdbc.version import VERSION

if TYPE_CHECKING:
    from kconnect_jdbc.connection import Database
    from kconnect_jdbc.source.task import JdbcSourceTask

log = logging.getLogger(__name__)


class JdbcSourceConnector(SourceConnector):
    """Copies database tables (or one query's result) into Kafka topics, Confluent's way."""

    java_class_names: ClassVar[tuple[str, ...]] = ("io.confluent.connect.jdbc.JdbcSourceConnector",)
    config_def: ClassVar[ConfigDef] = SOURCE_CONFIG_DEF

    @classmethod
    def version(cls) -> str:
        """The plugin's version."""
        return VERSION

    def start(self, config: Mapping[str, str]) -> None:
        """Parse the config; in table mode, list the tables and start the table monitor."""
        self.config = dict(config)
        self.settings = SourceSettings.parse(config)
        self.database: Database | None = None
        self.monitor: TableMonitor | None = None
        self._lock = threading.Lock()
        self.tables: list[TableId] = []
        if self.settings.query:
            return
        # The database modules are imported here, in `task_class` and in `validate`: SQLAlchemy and
        # the drivers cost every worker process (which imports every plugin's connectors) 0.6 s and
        # 37 MB otherwise.
        from kconnect_jdbc.connection import open_database

        self.database = open_database(self.settings.connection, time_zone=self.settings.db_timezone)
        self.tables = self._list_tables()
        if self.settings.table_poll_interval_ms > 0:
            self.monitor = TableMonitor(
                self._list_tables,
                self.settings.table_poll_interval_ms,
                self._tables_changed,
                list(self.tables),
            )
            self.monitor.start()

    def _list_tables(self) -> list[TableId]:
        assert self.database is not None
        with self.database.engine.connect() as connection:
            return select_tables(all_tables(connection, self.database.dialect, self.settings), self.settings)

    def _tables_changed(self, tables: list[TableId]) -> None:
        with self._lock:
            self.tables = tables
        self.context.request_task_reconfiguration()

    def task_class(self) -> type[JdbcSourceTask]:
        """JdbcSourceTask."""
        from kconnect_jdbc.source.task import JdbcSourceTask

        return JdbcSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        """One task for a query; else the tables, sorted, in contiguous groups over at most `max_tasks`."""
        if self.settings.query:
            return [dict(self.config)]
        with self._lock:
            names = sorted(t.qualified for t in self.tables)
        if not names:
            log.warning("No tables were found so there's no work to be done.")
            return []
        groups = group_partitions(names, min(max_tasks, len(names)))
        return [{**self.config, TABLES_CONFIG: ",".join(group)} for group in groups]

    def stop(self) -> None:
        """Stop the table monitor and close the database."""
        if getattr(self, "monitor", None) is not None:
            assert self.monitor is not None
            self.monitor.stop()
        if getattr(self, "database", None) is not None:
            assert self.database is not None
            self.database.dispose()

    def validate(self, config: Mapping[str, str]) -> Mapping[str, ConfigValue]:
        """The config checks, then the database's: reachable, tables and columns present."""
        from kconnect_jdbc.source.validation import validate_source

        return validate_source(config)
