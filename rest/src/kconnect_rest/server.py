"""Serves the REST app with uvicorn inside the worker's event loop, on every listener.

The server binds the worker's listeners itself, so a port in use is an error raised to the caller
(uvicorn would exit the process). A uvicorn server has one SSL setting for all its sockets, so
each listener (``http://`` or ``https://``, `kconnect_rest.tls`) gets its own uvicorn server over
the one app; only the first runs the app's lifespan, so the app starts and stops once. Signals
stay with the worker, logging is left as the worker configured it, and access logs are off. The
loop is the worker's (uvloop when installed, `kconnect_rest.event_loop`); uvicorn parses HTTP
with httptools when installed, h11 otherwise.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import ssl
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

import uvicorn
from kconnect.errors import ConnectError
from kconnect.worker_config import WorkerConfig
from litestar import Litestar

from kconnect_rest.api_version import SERVER_HEADER
from kconnect_rest.tls import RestTlsSettings, has_https_listener

log = logging.getLogger(__name__)

_STARTUP_POLL_SECONDS = 0.01


class _EmbeddedServer(uvicorn.Server):
    """A uvicorn server that leaves signal handling to the worker that embeds it."""

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        """Install no signal handlers: the worker owns SIGINT/SIGTERM and calls `RestServer.stop`."""
        yield


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP, not 0: asyncio's own loop sets TCP_NODELAY only on connections of a socket that
    # says it is TCP (uvloop sets it on every one); without it an answer's body, written after its
    # headers, waits for the client's delayed ACK (~40 ms per request).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ConnectError(
            f"listeners: cannot bind REST server to {host}:{port}: {exc.strerror or exc}"
        ) from exc
    sock.set_inheritable(True)
    return sock


@dataclass
class _Listener:
    """One served listener: its URL, socket, uvicorn server and the task running it."""

    url: str
    socket: socket.socket
    server: _EmbeddedServer
    task: asyncio.Task[None] | None = None


def _url(scheme: str, host: str, port: int) -> str:
    host = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(host, host)
    return f"{scheme}://[{host}]:{port}" if ":" in host else f"{scheme}://{host}:{port}"


class _ServerConfig(uvicorn.Config):
    """uvicorn's config with an SSL context built by `kconnect_rest.tls` (uvicorn builds its own
    from file names only)."""

    def __init__(self, app: Litestar, ssl_context: ssl.SSLContext | None, **kwargs: Any) -> None:
        super().__init__(app, **kwargs)
        self._ssl_context = ssl_context

    def load(self) -> None:
        """uvicorn's loading, then the listener's SSL context (None: plain HTTP)."""
        super().load()
        self.ssl = self._ssl_context


class RestServer:
    """The REST API on every listener of the worker config (``listeners``).

    The worker calls `start` once the herder is running and `stop` when shutting down; both run
    in the worker's event loop.
    """

    def __init__(
        self, app: Litestar, worker_config: WorkerConfig, *, shutdown_timeout_seconds: float = 5.0
    ) -> None:
        self._app = app
        self._config = worker_config
        self._shutdown_timeout = shutdown_timeout_seconds
        self._served: list[_Listener] = []

    @property
    def url(self) -> str:
        """The first listener's base URL, without a trailing slash (the bound port if 0 was asked)."""
        return self.urls[0]

    @property
    def urls(self) -> tuple[str, ...]:
        """Every listener's base URL, in the order of ``listeners``."""
        if self._served:
            return tuple(listener.url for listener in self._served)
        return tuple(_url(item.scheme, item.host, item.port) for item in self._config.rest_listeners())

    async def start(self) -> None:
        """Bind every listener and serve; returns once all accept connections.

        Raises ConnectError if an address cannot be bound or a server fails to start, and
        ConfigFileError (naming the key) if an https listener's SSL keys are wrong.
        """
        if self._served:
            return
        listeners = self._config.rest_listeners()
        ssl_context = (
            RestTlsSettings.of(self._config).server_context() if has_https_listener(self._config) else None
        )
        try:
            for index, item in enumerate(listeners):
                sock = _bind(item.host, item.port)
                config = _ServerConfig(
                    self._app,
                    ssl_context if item.scheme == "https" else None,
                    log_config=None,
                    log_level=None,
                    access_log=False,
                    lifespan="on" if index == 0 else "off",
                    server_header=False,
                    headers=[("server", SERVER_HEADER)],
                    timeout_graceful_shutdown=int(self._shutdown_timeout) or 1,
                )
                url = _url(item.scheme, item.host, sock.getsockname()[1])
                self._served.append(_Listener(url, sock, _EmbeddedServer(config)))
            for listener in self._served:
                await self._serve(listener)
        except BaseException:
            await self.stop()
            raise
        log.info("REST server listening on %s", ", ".join(self.urls))

    async def _serve(self, listener: _Listener) -> None:
        task = asyncio.create_task(listener.server.serve(sockets=[listener.socket]), name="kconnect-rest")
        listener.task = task
        while not listener.server.started:
            if task.done():
                error = task.exception() if not task.cancelled() else None
                raise ConnectError(
                    f"REST server failed to start on {listener.url}: {error or 'stopped'}"
                ) from error
            await asyncio.sleep(_STARTUP_POLL_SECONDS)

    async def stop(self) -> None:
        """Stop accepting requests, let running ones finish (up to the shutdown timeout), close the
        sockets. The first listener's server, which runs the app's lifespan, stops last."""
        if not self._served:
            return
        served, self._served = self._served, []
        for listener in reversed(served):
            await self._stop(listener)
        log.info("REST server stopped")

    async def _stop(self, listener: _Listener) -> None:
        task = listener.task
        try:
            if task is None or task.done():
                return
            listener.server.should_exit = True
            try:
                await asyncio.wait_for(asyncio.shield(task), timeout=self._shutdown_timeout + 5)
            except asyncio.TimeoutError:
                listener.server.force_exit = True
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        finally:
            listener.socket.close()
