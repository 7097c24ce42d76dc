"""Registers the JDBC connectors with kconnect (entry point ``kconnect_jdbc.plugin``)."""

from kconnect import hookimpl
from kconnect.plugin_host import PluginRegistry

from kconnect_jdbc.sink.connector import JdbcSinkConnector
from kconnect_jdbc.source.connector import JdbcSourceConnector


@hookimpl
def register_connectors(registry: PluginRegistry) -> None:
    """Add JdbcSourceConnector and JdbcSinkConnector under Confluent's class names and short aliases."""
    registry.add(JdbcSourceConnector, aliases=["JdbcSource", "JdbcSourceConnector"])
    registry.add(JdbcSinkConnector, aliases=["JdbcSink", "JdbcSinkConnector"])
