"""JdbcSinkTask: writes each `put` to the database and commits it before `put` returns.

Offsets are therefore safe to commit as soon as `put` returned (the default `pre_commit`):
at-least-once, and idempotent with ``insert.mode=upsert``. A database error is retried
``max.retries`` times ``retry.backoff.ms`` apart (RetriableError: the framework offers the same
batch again), then fails the task with the database's message (never the password; with
``trim.sensitive.log``, not even the message: `redacted_error_text`, the full text going to the
``kconnect_jdbc.sink.sensitive`` logger at DEBUG only). A record
the config cannot write goes to the errant record reporter (``errors.tolerance``, DLQ) when there
is one, else fails the task, as in Confluent's connector.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import ClassVar

from kconnect import SinkRecord, SinkTask
from kconnect.errors import ConnectError, RetriableError
from sqlalchemy.exc import SQLAlchemyError

from kconnect_jdbc.connection import Database, error_text, open_database, redacted_error_text
from kconnect_jdbc.sink.config import SinkSettings
from kconnect_jdbc.sink.fields import check_record
from kconnect_jdbc.sink.writer import JdbcDbWriter
from kconnect_jdbc.version import VERSION

log = logging.getLogger(__name__)
#: Where the database's untrimmed error messages go when ``trim.sensitive.log`` keeps them out of the rest.
sensitive_log = logging.getLogger("kconnect_jdbc.sink.sensitive")


class JdbcSinkTask(SinkTask):
    """Writes Kafka records into database tables."""

    java_class_names: ClassVar[tuple[str, ...]] = ("io.confluent.connect.jdbc.sink.JdbcSinkTask",)

    @classmethod
    def version(cls) -> str:
        """The plugin's version."""
        return VERSION

    def start(self, config: Mapping[str, str]) -> None:
        """Open the database."""
        self.settings = SinkSettings.parse(config)
        self.database: Database = open_database(self.settings.connection, time_zone=self.settings.db_timezone)
        self.writer = JdbcDbWriter(self.settings, self.database)
        self.remaining_retries = self.settings.max_retries

    def put(self, records: Sequence[SinkRecord]) -> None:
        """Check, then write and commit `records`; see the module docstring for errors."""
        writable = [r for r in records if self._writable(r)]
        if not writable:
            return
        try:
            self.writer.write(writable)
        except SQLAlchemyError as e:
            message = self._error_message(e)
            self.writer.structure.forget()
            if self.remaining_retries > 0:
                log.warning(
                    "Write of %d records failed, remainingRetries=%d: %s",
                    len(writable),
                    self.remaining_retries,
                    message,
                )
                self.remaining_retries -= 1
                self.context.timeout(self.settings.retry_backoff_ms)
                raise RetriableError(message) from None
            log.error("Failing task after exhausting retries: %s", message)
            raise ConnectError(f"Exception chain: {message}") from None
        self.remaining_retries = self.settings.max_retries

    def _error_message(self, error: SQLAlchemyError) -> str:
        """The text a failed write is logged and reported with (``trim.sensitive.log``: redacted)."""
        message = error_text(error, self.settings.connection)
        if not self.settings.trim_sensitive_log:
            return message
        sensitive_log.debug("Raw sink write failure (redacted in the task's logs and errors): %s", message)
        return redacted_error_text(error)

    def _writable(self, record: SinkRecord) -> bool:
        try:
            check_record(record, self.settings)
        except ConnectError as e:
            reporter = self.context.errant_record_reporter()
            if reporter is None:
                raise
            reporter.report(record, e)
            return False
        return True

    def stop(self) -> None:
        """Close the database."""
        database = getattr(self, "database", None)
        if database is not None:
            database.dispose()
