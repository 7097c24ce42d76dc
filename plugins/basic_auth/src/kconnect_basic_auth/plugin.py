"""The REST extension: registers `basic_auth_extension` through ``register_rest_extensions``."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import logging
import secrets
import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kconnect import hookimpl
from kconnect.errors import ConnectError
from kconnect.plugin_host import PluginRegistry

from kconnect_basic_auth.credentials import Credentials

if TYPE_CHECKING:
    from kconnect.worker_config import WorkerConfig

    from kconnect_basic_auth.middleware import BasicAuthPlugin

log = logging.getLogger(__name__)

CREDENTIALS_FILE_CONFIG = "rest.basic.auth.credentials.file"
EXEMPT_PATHS_CONFIG = "rest.basic.auth.exempt.paths"
EXEMPT_PATHS_DEFAULT = "/health"
KAFKA_CLASS_NAME = "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension"
"""Kafka's name for this extension, so ``rest.extension.classes`` from a Kafka worker file enables it."""
REALM = "kconnect"
UNAUTHORIZED_MESSAGE = "User cannot access the resource."
_CACHE_SIZE = 256


class CredentialStore:
    """The credentials file, re-read when it changes, with a cache of recently verified headers.

    Verifying a scrypt hash takes tens of milliseconds, so an ``Authorization`` header that was
    verified is remembered (as a keyed digest, never in clear) until the file changes.
    """

    def __init__(self, path: Path) -> None:
        self._path = path
        self._lock = threading.Lock()
        self._key = secrets.token_bytes(32)
        self._verified: OrderedDict[bytes, None] = OrderedDict()
        self._stamp: tuple[int, int] | None = None
        self._credentials = self._reload()

    def _reload(self) -> Credentials:
        credentials = Credentials.load(self._path)
        stat = self._path.stat()
        self._stamp = (stat.st_mtime_ns, stat.st_size)
        self._verified.clear()
        log.info("Loaded %d users from %s", len(credentials.users), self._path)
        return credentials

    def _current(self) -> Credentials:
        try:
            stat = self._path.stat()
            if (stat.st_mtime_ns, stat.st_size) != self._stamp:
                self._credentials = self._reload()
        except (OSError, ConnectError) as exc:
            log.error("Keeping the previous credentials: %s", exc)
        return self._credentials

    def authorized(self, header: str | None) -> bool:
        """Whether an ``Authorization`` header carries a known user and their password."""
        if not header or not header[:6].lower() == "basic ":
            return False
        digest = hmac.new(self._key, header.encode("utf-8", "surrogateescape"), hashlib.sha256).digest()
        with self._lock:
            credentials = self._current()
            if digest in self._verified:
                self._verified.move_to_end(digest)
                return True
        try:
            user, sep, password = (
                base64.b64decode(header[6:].strip(), validate=True).decode("utf-8").partition(":")
            )
        except (binascii.Error, UnicodeDecodeError):
            return False
        if not sep or not credentials.check(user, password):
            return False
        with self._lock:
            self._verified[digest] = None
            if len(self._verified) > _CACHE_SIZE:
                self._verified.popitem(last=False)
        return True


def basic_auth_extension(worker_config: WorkerConfig, cluster_state: Any) -> BasicAuthPlugin:
    """The REST extension factory: reads the worker properties and loads the credentials file.

    Raises ConnectError naming ``rest.basic.auth.credentials.file`` if it is unset or unreadable.
    """
    path = worker_config.props.get(CREDENTIALS_FILE_CONFIG, "").strip()
    if not path:
        raise ConnectError(f"{worker_config.source}: {CREDENTIALS_FILE_CONFIG} must name a credentials file")
    # Imported here: litestar would cost a Spark task process, which loads every plugin but serves
    # no REST API, a few tenths of a second and 9 MB.
    from kconnect_basic_auth.middleware import BasicAuthPlugin, parse_exempt_paths

    exempt = parse_exempt_paths(worker_config.props.get(EXEMPT_PATHS_CONFIG, EXEMPT_PATHS_DEFAULT))
    return BasicAuthPlugin(CredentialStore(Path(path)), exempt)


@hookimpl
def register_rest_extensions(registry: PluginRegistry) -> None:
    """Register the basic-auth extension factory."""
    registry.add(basic_auth_extension, aliases=[KAFKA_CLASS_NAME, "BasicAuthSecurityRestExtension"])
