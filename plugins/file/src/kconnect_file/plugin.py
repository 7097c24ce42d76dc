"""Registers the file connectors with kconnect (entry point ``kconnect_file.plugin``)."""

from kconnect import hookimpl
from kconnect.plugin_host import PluginRegistry

from kconnect_file.sink import FileStreamSinkConnector
from kconnect_file.source import FileStreamSourceConnector


@hookimpl
def register_connectors(registry: PluginRegistry) -> None:
    """Add FileStreamSource and FileStreamSink under Kafka's class names and aliases."""
    registry.add(FileStreamSourceConnector, aliases=["FileStreamSource", "FileStreamSourceConnector"])
    registry.add(FileStreamSinkConnector, aliases=["FileStreamSink", "FileStreamSinkConnector"])
