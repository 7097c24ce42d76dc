"""Registers the Spark executor (entry point ``kconnect_spark.plugin``)."""

from __future__ import annotations

from kconnect import hookimpl
from kconnect.worker_config import WorkerConfig

from kconnect_spark.executor import SparkExecutor


@hookimpl
def create_executor(config: WorkerConfig) -> SparkExecutor | None:
    """The Spark executor, unless the worker's ``executor`` property names another one."""
    wanted = config.props.get("executor", "spark").strip().lower()
    return SparkExecutor(config) if wanted == "spark" else None
