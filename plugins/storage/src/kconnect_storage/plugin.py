"""Registers the storage sink connectors with kconnect (entry point ``kconnect_storage.plugin``)."""

from kconnect import hookimpl
from kconnect.plugin_host import PluginRegistry

from kconnect_storage.connectors import HdfsSinkConnector, S3SinkConnector, StorageSinkConnector


@hookimpl
def register_connectors(registry: PluginRegistry) -> None:
    """Add the HDFS and S3 sinks under Confluent's class names and short aliases, and StorageSink."""
    registry.add(HdfsSinkConnector, aliases=["HdfsSink", "HdfsSinkConnector"])
    registry.add(S3SinkConnector, aliases=["S3Sink", "S3SinkConnector"])
    registry.add(StorageSinkConnector, aliases=["StorageSink", "StorageSinkConnector"])
