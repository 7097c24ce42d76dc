"""FileStreamSource and FileStreamSink: Kafka's demo file connectors, for kconnect.

Same config keys, aliases and offsets shape as Kafka's ``connect-file`` module, so Kafka's
``connect-file-source.properties`` and ``connect-file-sink.properties`` run unchanged.
"""

from kconnect_file.sink import FileStreamSinkConnector, FileStreamSinkTask
from kconnect_file.source import FileStreamSourceConnector, FileStreamSourceTask

__all__ = [
    "FileStreamSinkConnector",
    "FileStreamSinkTask",
    "FileStreamSourceConnector",
    "FileStreamSourceTask",
]
