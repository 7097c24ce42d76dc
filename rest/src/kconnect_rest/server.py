"""Serves the REST app with uvicorn inside the worker's event loop.

The server binds the worker's first listener itself, so a port in use is an error raised to the
caller (uvicorn would exit the process). Signals stay with the worker, logging is left as the
worker configured it, and access logs are off. The loop is the worker's (uvloop when installed,
`kconnect_rest.event_loop`); uvicorn parses HTTP with httptools when installed, h11 otherwise.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Generator

import uvicorn
from kconnect.errors import ConnectError
from kconnect.worker_config import WorkerConfig
from litestar import Litestar

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


class RestServer:
    """The REST API on the first listener of the worker config.

    The worker calls `start` once the herder is running and `stop` when shutting down; both run
    in the worker's event loop.
    """

    def __init__(
        self, app: Litestar, worker_config: WorkerConfig, *, shutdown_timeout_seconds: float = 5.0
    ) -> None:
        self._app = app
        self._host, self._port = worker_config.rest_host_port()
        self._shutdown_timeout = shutdown_timeout_seconds
        self._server: _EmbeddedServer | None = None
        self._task: asyncio.Task[None] | None = None
        self._socket: socket.socket | None = None

    @property
    def url(self) -> str:
        """The base URL clients reach the API at, without a trailing slash (the bound port if 0 was asked)."""
        port = self._socket.getsockname()[1] if self._socket is not None else self._port
        host = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(self._host, self._host)
        return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"

    async def start(self) -> None:
        """Bind the listener and serve; returns once the server accepts connections.

        Raises ConnectError if the address cannot be bound or the server fails to start.
        """
        if self._task is not None:
            return
        self._socket = _bind(self._host, self._port)
        config = uvicorn.Config(
            self._app,
            log_config=None,
            log_level=None,
            access_log=False,
            lifespan="on",
            server_header=False,
            timeout_graceful_shutdown=int(self._shutdown_timeout) or 1,
        )
        self._server = _EmbeddedServer(config)
        self._task = asyncio.create_task(self._server.serve(sockets=[self._socket]), name="kconnect-rest")
        while not self._server.started:
            if self._task.done():
                await self._failed_start()
            await asyncio.sleep(_STARTUP_POLL_SECONDS)
        log.info("REST server listening on %s", self.url)

    async def _failed_start(self) -> None:
        task, self._task = self._task, None
        self._close_socket()
        error = task.exception() if task is not None and not task.cancelled() else None
        raise ConnectError(f"REST server failed to start on {self.url}: {error or 'stopped'}") from error

    async def stop(self) -> None:
        """Stop accepting requests, let running ones finish (up to the shutdown timeout), close the socket."""
        if self._server is None or self._task is None:
            return
        self._server.should_exit = True
        try:
            await asyncio.wait_for(asyncio.shield(self._task), timeout=self._shutdown_timeout + 5)
        except asyncio.TimeoutError:
            self._server.force_exit = True
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        finally:
            self._task = None
            self._server = None
            self._close_socket()
        log.info("REST server stopped")

    def _close_socket(self) -> None:
        if self._socket is not None:
            self._socket.close()
            self._socket = None
