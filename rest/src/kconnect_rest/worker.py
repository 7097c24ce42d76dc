"""The worker processes: wire plugin host, executor, stores, herder and REST server together.

`StandaloneWorker` (``kconnect standalone``) and `DistributedWorker` (``kconnect distributed``).
Start-up order keeps the REST server responsive from the first second: REST (``/health`` says
``starting``), then the herder and executor (Spark starts in the background; a distributed herder
reads its topics and joins the group), then, standalone, the connector files given on the command
line. SIGINT / SIGTERM stop tasks gracefully (offsets committed).
"""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from kconnect import __version__
from kconnect.config.connector_keys import CONNECTOR_CLASS_CONFIG, NAME_CONFIG
from kconnect.errors import ConnectError, RequestTimeoutError
from kconnect.herder.api import Herder
from kconnect.plugin_host import PluginHost
from kconnect.worker_config import ConfigFileError, WorkerConfig, load_properties
from kconnect.worker_providers import read_worker_config

from kconnect_rest import tls
from kconnect_rest.http_headers import ResponseHeaderFilters

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ConnectorFile:
    """A connector config read from a file given on the command line."""

    path: str
    config: dict[str, str]

    @property
    def name(self) -> str:
        """The connector's name (checked present when the file was read)."""
        return self.config[NAME_CONFIG]


class RunnableHerder(Herder, Protocol):
    """A herder a worker process runs: the REST front door, plus start and stop."""

    async def start(self) -> None:
        """Load the stores, start the executor and (distributed) join the group."""
        ...

    async def stop(self) -> None:
        """Stop every connector and task gracefully, then the executor."""
        ...


async def serve(
    config: WorkerConfig,
    host: PluginHost,
    herder: RunnableHerder,
    stopping: asyncio.Event,
    started: Callable[[], Awaitable[None]],
) -> None:
    """What both workers do around their herder: REST first (so ``/health`` answers ``starting``),
    then the herder, then `started`; then wait for `stopping` and stop the herder, then REST."""
    from kconnect_rest.app import create_app
    from kconnect_rest.server import RestServer

    rest = RestServer(create_app(herder, config, host), config)
    await rest.start()
    log.info("REST server listening on %s, advertised as %s", ", ".join(rest.urls), config.advertised_url())
    try:
        await herder.start()
        await started()
        await stopping.wait()
        log.info("Stopping kconnect worker")
    finally:
        await herder.stop()
        await rest.stop()


def _stop_on_signals(request_stop: Callable[[], None]) -> None:
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, request_stop)


def read_connector_file(path: str | Path) -> ConnectorFile:
    """Read a connector .properties / .json file; ConfigFileError names the file and the key."""
    config = load_properties(path)
    if not config.get(NAME_CONFIG, "").strip():
        raise ConfigFileError(f"{path}: {NAME_CONFIG}: missing required key (the connector's name)")
    if not config.get(CONNECTOR_CLASS_CONFIG, "").strip():
        raise ConfigFileError(
            f"{path}: {CONNECTOR_CLASS_CONFIG}: missing required key (which connector to run)"
        )
    return ConnectorFile(str(path), config)


class StandaloneWorker:
    """One standalone worker process (``kconnect standalone``)."""

    def __init__(
        self, config: WorkerConfig, host: PluginHost, connectors: Sequence[ConnectorFile] = ()
    ) -> None:
        self.config = config
        self.host = host
        self.connectors = list(connectors)
        self._stopping = asyncio.Event()

    @classmethod
    def from_files(cls, worker_file: str, connector_files: Sequence[str]) -> StandaloneWorker:
        """Load the plugins and read and check every file before anything starts."""
        host = PluginHost.load()
        config = read_worker_config(worker_file, host)
        host.add_worker_plugins(config)
        if not config.offset_storage_file:
            raise ConfigFileError(
                f"{worker_file}: offset.storage.file.filename: missing required key "
                "(standalone workers keep source offsets in this file)"
            )
        tls.check(config)
        ResponseHeaderFilters.from_props(config.props, config.source)
        connectors = [read_connector_file(path) for path in connector_files]
        names = [c.name for c in connectors]
        for connector in connectors:
            if names.count(connector.name) > 1:
                raise ConfigFileError(
                    f"{connector.path}: name: connector {connector.name!r} is defined twice"
                )
        return cls(config, host, connectors)

    def request_stop(self) -> None:
        """Ask `run` to shut down (what SIGINT / SIGTERM do)."""
        self._stopping.set()

    async def run(self) -> None:
        """Run until asked to stop; ConnectError (naming the file) if a connector file is rejected."""
        from kconnect.herder.standalone import StandaloneHerder

        _stop_on_signals(self.request_stop)
        herder = StandaloneHerder.create(self.config, self.host, self.host.create_executor(self.config))

        async def create_connectors() -> None:
            for connector in self.connectors:
                try:
                    await herder.put_connector_config(connector.name, connector.config, allow_replace=True)
                except RequestTimeoutError:
                    # The connector's start() or task_configs() is slow: it goes on in its own thread.
                    log.warning(
                        "Connector %s from %s has not started within the request timeout; it keeps starting",
                        connector.name, connector.path,
                    )  # fmt: skip
                    continue
                except ConnectError as exc:
                    raise ConfigFileError(f"{connector.path}: {exc}") from exc
                log.info("Connector %s created from %s", connector.name, connector.path)
            log.info("kconnect %s worker %s started", __version__, herder.worker_id)

        await serve(self.config, self.host, herder, self._stopping, create_connectors)


class DistributedWorker:
    """One worker of a Connect cluster (``kconnect distributed``): connectors come through REST only."""

    def __init__(self, config: WorkerConfig, host: PluginHost) -> None:
        self.config = config
        self.host = host
        self._stopping = asyncio.Event()

    @classmethod
    def from_file(cls, worker_file: str) -> DistributedWorker:
        """Load the plugins and read and check the worker file (group and internal topic keys too)
        before anything starts."""
        from kconnect.distributed.request_signing import InterWorkerKeyConfig

        host = PluginHost.load()
        config = read_worker_config(worker_file, host)
        host.add_worker_plugins(config)
        config.group_config()
        for topic in (config.config_storage, config.offset_storage, config.status_storage):
            topic()
        InterWorkerKeyConfig.from_props(config.props, config.source)
        tls.check(config)
        ResponseHeaderFilters.from_props(config.props, config.source)
        url = config.advertised_url()
        return cls(replace(config, worker_id=url.split("://", 1)[1].rstrip("/")), host)

    def request_stop(self) -> None:
        """Ask `run` to shut down (what SIGINT / SIGTERM do)."""
        self._stopping.set()

    async def run(self) -> None:
        """Serve REST, read the internal topics, join the group and run what it assigns, until stopped."""
        from kconnect.distributed.request_signing import InterWorkerKeyConfig
        from kconnect.herder.distributed import DistributedHerder

        from kconnect_rest.internal_client import InternalRequestClient

        _stop_on_signals(self.request_stop)
        executor = self.host.create_executor(self.config)
        client = InternalRequestClient(
            InterWorkerKeyConfig.from_props(self.config.props, self.config.source),
            verify=tls.client_verify(self.config),
        )
        herder = DistributedHerder.create(
            self.config, self.host, executor, client, self.config.advertised_url()
        )

        async def joined() -> None:
            group = self.config.group_config().group_id
            log.info("kconnect %s worker %s started in group %s", __version__, herder.worker_id, group)

        try:
            await serve(self.config, self.host, herder, self._stopping, joined)
        finally:
            await client.close()
