"""JdbcSinkConnector: every task gets the same config (Kafka spreads the topic partitions)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar

from kconnect import ConfigDef, SinkConnector
from kconnect.config import ConfigValue
from kconnect.errors import ConnectError

from kconnect_jdbc.config import CONNECTION_URL_CONFIG
from kconnect_jdbc.sink.config import (
    DELETE_ENABLED_CONFIG,
    DELETES_NEED_RECORD_KEY,
    PK_MODE_CONFIG,
    SINK_CONFIG_DEF,
    SinkSettings,
)
from kconnect_jdbc.unsupported import REFUSED
from kconnect_jdbc.version import VERSION

if TYPE_CHECKING:
    from kconnect_jdbc.sink.task import JdbcSinkTask

#: Longest validation waits to connect to the database.
VALIDATE_TIMEOUT_S = 5


class JdbcSinkConnector(SinkConnector):
    """Writes topics into database tables, Confluent's way."""

    java_class_names: ClassVar[tuple[str, ...]] = ("io.confluent.connect.jdbc.JdbcSinkConnector",)
    config_def: ClassVar[ConfigDef] = SINK_CONFIG_DEF

    @classmethod
    def version(cls) -> str:
        """The plugin's version."""
        return VERSION

    def start(self, config: Mapping[str, str]) -> None:
        """Check and keep the config."""
        SinkSettings.parse(config)
        self.config = dict(config)

    def task_class(self) -> type[JdbcSinkTask]:
        """JdbcSinkTask."""
        # Imported here, as the database in `validate`: SQLAlchemy and the drivers cost every worker
        # process (which imports every plugin's connectors) 0.6 s and 37 MB otherwise.
        from kconnect_jdbc.sink.task import JdbcSinkTask

        return JdbcSinkTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        """`max_tasks` copies of the config."""
        return [dict(self.config) for _ in range(max_tasks)]

    def stop(self) -> None:
        """Nothing to release."""

    def validate(self, config: Mapping[str, str]) -> Mapping[str, ConfigValue]:
        """The config checks, unsupported keys, deletes only with ``pk.mode=record_key``, the database."""
        values = SINK_CONFIG_DEF.validate(config)
        REFUSED.add_errors(values, config)
        if any(v.errors for v in values.values()):
            return values
        settings = SinkSettings.parse(config)
        if settings.delete_enabled and settings.pk_mode != "record_key":
            values[PK_MODE_CONFIG].add_error(DELETES_NEED_RECORD_KEY)
            values[DELETE_ENABLED_CONFIG].add_error(DELETES_NEED_RECORD_KEY)
        from kconnect_jdbc.connection import probe

        try:
            probe(settings.connection, time_zone=settings.db_timezone, timeout_s=VALIDATE_TIMEOUT_S).dispose()
        except ConnectError as e:
            values[CONNECTION_URL_CONFIG].add_error(f"Could not connect to database. {e}")
        return values
