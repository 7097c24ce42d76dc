"""The Spark executor for kconnect.

Each connector task runs as one long-running Spark task (a one-partition job started from its own
driver thread). Inside it, the kernel's task loop moves records between Kafka and the connector;
the Spark task talks to the worker only over a small control channel (target state, committed
source offsets, topic names). See ``docs/architecture.md`` for why.
"""

from kconnect_spark.executor import SparkExecutor

__all__ = ["SparkExecutor"]
