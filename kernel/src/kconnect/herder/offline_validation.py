"""Connector config files validated without a worker (``kconnect validate``): the validate endpoint's answers.

`offline_validator` builds the `ConnectorValidator` a worker with the given properties would build
(`ConnectorValidator.for_worker`: its converters, its executor's connector keys, its config
providers, and a distributed worker's exactly-once checks), without stores, a broker or a running
executor. `validate_file` takes one connector file's config (read with
`kconnect.worker_config.load_properties`, as ``kconnect standalone`` reads it) and answers
as ``PUT /connector-plugins/{plugin}/config/validate`` does: Kafka's ConfigInfos, or the error the
endpoint answers with (no ``connector.class``, or a class no installed plugin has).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kconnect.config import ConfigInfos
from kconnect.config.connector_keys import CONNECTOR_CLASS_CONFIG
from kconnect.errors import BadRequestError, ConnectError, PluginError
from kconnect.executor import Executor
from kconnect.herder.validation import ConnectorValidator
from kconnect.plugin_host import PluginHost
from kconnect.worker_config import WorkerConfig
from kconnect.worker_providers import read_worker_config, worker_config_transformer

#: Where a worker without a file (standalone defaults) is named in messages.
STANDALONE_DEFAULTS = "<standalone worker defaults>"


def validation_worker(path: str | Path | None, host: PluginHost) -> WorkerConfig:
    """The worker file's config (its provider references resolved), or a standalone worker's
    defaults without one; ConfigFileError names the file and the key. The plugins the worker
    would find from its config (Java plugins on ``plugin.path``) are added to `host`, as a worker does."""
    if path is None:
        return WorkerConfig.from_props({}, STANDALONE_DEFAULTS)
    worker = read_worker_config(path, host)
    host.add_worker_plugins(worker)
    return worker


def is_distributed(worker: WorkerConfig) -> bool:
    """A worker file with ``group.id`` is a distributed worker's (Kafka's connect-distributed.properties)."""
    return bool(worker.props.get("group.id", "").strip())


def offline_validator(worker: WorkerConfig, host: PluginHost) -> ConnectorValidator:
    """The validator `worker` would validate with; ConfigFileError when its group keys are bad.

    The executor is created (not started) only for its connector keys; without an executor plugin
    those keys are not validated. Config providers are created as the worker creates them.
    """
    executor: Executor | None
    try:
        executor = host.create_executor(worker)
    except PluginError:
        executor = None
    exactly_once = worker.group_config().exactly_once_source_support if is_distributed(worker) else None
    # A value that expires would restart a running connector; nothing runs here.
    transformer = worker_config_transformer(worker.props, host, lambda _connector: None)
    return ConnectorValidator.for_worker(worker, host, executor, transformer, exactly_once)


@dataclass(frozen=True)
class FileValidation:
    """One file's answer: the endpoint's ConfigInfos, or the error it answers with instead."""

    path: str
    infos: ConfigInfos | None = None
    error: ConnectError | None = None

    @property
    def errors(self) -> list[tuple[str, str]]:
        """Each error as (key, message), in the order the endpoint lists the keys."""
        if self.error is not None:
            return [(CONNECTOR_CLASS_CONFIG, str(self.error))]
        assert self.infos is not None
        return [
            (info.value.name, message)
            for info in self.infos.configs
            if info.value is not None
            for message in info.value.errors
        ]

    @property
    def valid(self) -> bool:
        """No error on any key."""
        return not self.errors


async def validate_file(validator: ConnectorValidator, path: str, config: dict[str, str]) -> FileValidation:
    """`config` (read from `path`) validated as the validate endpoint validates it."""
    try:
        return FileValidation(path, infos=await validator.validate(config))
    except (BadRequestError, PluginError) as error:
        return FileValidation(path, error=error)
