"""The connector half of the plugin author API: Connector, SourceConnector, SinkConnector.

A connector runs on the worker (never on the data path): it reads its configuration, decides how
work is split, and hands each task a config map. Tasks move the records. A minimal source connector::

    from kconnect import ConfigDef, SourceConnector

    class MySource(SourceConnector):
        config_def = ConfigDef().define("topic", type="STRING", importance="HIGH", documentation="...")

        def start(self, config): self.config = dict(config)
        def task_class(self): return MySourceTask
        def task_configs(self, max_tasks): return [self.config]
        def stop(self): pass
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from enum import Enum
from typing import Any, ClassVar, Protocol

from kconnect.config import ConfigDef, ConfigValue
from kconnect.task import OffsetStorageReader, SinkTask, SourceTask, Task


class ConnectorContext(Protocol):
    """What the framework offers a running connector."""

    def request_task_reconfiguration(self) -> None:
        """Ask the framework to call `task_configs` again and restart tasks if the configs changed."""
        ...

    def raise_error(self, error: Exception) -> None:
        """Fail the connector with this error (it shows as FAILED with the error's trace)."""
        ...


class SourceConnectorContext(ConnectorContext, Protocol):
    """What the framework offers a running source connector (Kafka's SourceConnectorContext)."""

    @property
    def offset_storage_reader(self) -> OffsetStorageReader:
        """The reader of this connector's committed source offsets, as its tasks read them.

        Call it from the connector's own methods (`start`, `task_configs`, ...), which the worker
        runs in threads of their own; it waits for the worker's offset store.
        """
        ...


class ExactlyOnceSupport(str, Enum):
    """Whether a source connector can give exactly-once delivery (KIP-618)."""

    SUPPORTED = "SUPPORTED"
    UNSUPPORTED = "UNSUPPORTED"


class ConnectorTransactionBoundaries(str, Enum):
    """Whether a source connector's tasks can define their own transactions (KIP-618)."""

    SUPPORTED = "SUPPORTED"
    UNSUPPORTED = "UNSUPPORTED"


class Connector(ABC):
    """Base of every connector plugin.

    The worker creates one instance per connector, calls `initialize`, then `start(config)`, then
    `task_configs(max_tasks)` whenever it (re)builds tasks, and `stop()` when the connector is
    paused into STOPPED, reconfigured, deleted or the worker shuts down.
    """

    #: The connector's own configuration keys (the framework adds the common ones).
    config_def: ClassVar[ConfigDef | None] = None
    #: Java class names this plugin answers to, so Kafka's sample files run unchanged.
    java_class_names: ClassVar[tuple[str, ...]] = ()

    context: ConnectorContext

    def initialize(self, context: ConnectorContext) -> None:
        """Called once by the framework before `start`, with the connector's context."""
        self.context = context

    @classmethod
    def version(cls) -> str:
        """The plugin's version string (shown by `/connector-plugins`)."""
        return "undefined"

    @abstractmethod
    def start(self, config: Mapping[str, str]) -> None:
        """Start with the connector's configuration (all values as strings, as in Kafka)."""

    @abstractmethod
    def task_class(self) -> type[Task]:
        """The Task subclass this connector's tasks run."""

    @abstractmethod
    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        """The configs of up to `max_tasks` tasks; one task is started per entry."""

    @abstractmethod
    def stop(self) -> None:
        """Release what `start` acquired. Called once; no other method is called after it."""

    def validate(self, config: Mapping[str, str]) -> Mapping[str, ConfigValue]:
        """Validate a config beyond what `config_def` checks; the default validates against it.

        Called by the validate endpoint and before create/update. Returns one ConfigValue per key.
        """
        definition = type(self).config_def or ConfigDef()
        return definition.validate(config)

    def alter_offsets(self, config: Mapping[str, str], offsets: Mapping[Any, Any]) -> bool:
        """Called when a user alters or resets offsets (KIP-875) while the connector is STOPPED.

        Return True if the connector checked and accepts the change, False if it has no opinion
        (the framework then applies it anyway). Raise `ConnectError` to reject it.
        """
        return False


class SourceConnector(Connector):
    """A connector whose tasks read from an external system and write to Kafka."""

    def exactly_once_support(self, config: Mapping[str, str]) -> ExactlyOnceSupport | None:
        """Whether this connector supports exactly-once delivery with this config (None: unknown).

        Called by validation (and before create / update) when the config sets
        ``exactly.once.support=required``, on a connector instance that was not started.
        """
        return None

    def can_define_transaction_boundaries(
        self, config: Mapping[str, str]
    ) -> ConnectorTransactionBoundaries | None:
        """Whether this connector's tasks can define their transactions with this config.

        Called by validation when the config sets ``transaction.boundary=connector``, on a connector
        instance that was not started; only SUPPORTED lets that boundary through (None is refused,
        as Kafka refuses a null answer).
        """
        return ConnectorTransactionBoundaries.UNSUPPORTED

    @abstractmethod
    def task_class(self) -> type[SourceTask]:
        """The SourceTask subclass this connector's tasks run."""


class SinkConnector(Connector):
    """A connector whose tasks read from Kafka topics and write to an external system."""

    @abstractmethod
    def task_class(self) -> type[SinkTask]:
        """The SinkTask subclass this connector's tasks run."""
