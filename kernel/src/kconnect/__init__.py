"""kconnect: Kafka Connect for Python.

The plugin author's whole import::

    from kconnect import SourceConnector, SourceTask, SinkConnector, SinkTask, Schema, Struct, ConfigDef

A plugin is a pip-installable distribution that declares an entry point in the group ``kconnect``
pointing at a module with hook implementations (see `kconnect.hookspecs`)::

    # pyproject.toml
    [project.entry-points.kconnect]
    my_plugin = "my_plugin.plugin"

    # my_plugin/plugin.py
    from kconnect import hookimpl
    from my_plugin.source import MySourceConnector

    @hookimpl
    def register_connectors(registry):
        registry.add(MySourceConnector, aliases=["MySource"])
"""

from kconnect.cluster import ClusterState
from kconnect.config import ConfigDef
from kconnect.connector import (
    Connector,
    ConnectorContext,
    SinkConnector,
    SourceConnector,
    SourceConnectorContext,
)
from kconnect.connector_utils import group_partitions
from kconnect.converter import Converter, HeaderConverter
from kconnect.data.schema import Schema, SchemaAndValue, SchemaBuilder
from kconnect.data.struct import Struct
from kconnect.errors import ConnectError, DataError, RetriableError
from kconnect.hookspecs import hookimpl
from kconnect.records import ConnectRecord, Header, Headers, SinkBatch, SinkRecord, SourceBatch, SourceRecord
from kconnect.task import (
    OffsetStorageReader,
    SinkTask,
    SinkTaskContext,
    SourceTask,
    SourceTaskContext,
    Task,
    TopicPartition,
    TransactionContext,
)
from kconnect.transform import Predicate, Transformation

__version__ = "0.1.0"

__all__ = [
    "ClusterState",
    "ConfigDef",
    "ConnectError",
    "ConnectRecord",
    "Connector",
    "ConnectorContext",
    "Converter",
    "DataError",
    "Header",
    "HeaderConverter",
    "Headers",
    "OffsetStorageReader",
    "Predicate",
    "RetriableError",
    "Schema",
    "SchemaAndValue",
    "SchemaBuilder",
    "SinkBatch",
    "SinkConnector",
    "SinkRecord",
    "SinkTask",
    "SinkTaskContext",
    "SourceBatch",
    "SourceConnector",
    "SourceConnectorContext",
    "SourceRecord",
    "SourceTask",
    "SourceTaskContext",
    "Struct",
    "Task",
    "TopicPartition",
    "TransactionContext",
    "Transformation",
    "__version__",
    "group_partitions",
    "hookimpl",
]
