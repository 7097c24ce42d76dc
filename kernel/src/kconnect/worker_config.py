"""Worker configuration: Java Kafka Connect's worker properties, read unchanged.

`load_properties` reads a ``.properties`` file (Java syntax, via `javaproperties`) or a JSON
file; `WorkerConfig` gives typed access to the keys the kernel uses and keeps every other key
(``producer.*``, ``consumer.*``, ``spark.*``, converter settings) for whoever needs it.
"""

from __future__ import annotations

import json
import logging
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import javaproperties

from kconnect.errors import ConnectError

log = logging.getLogger(__name__)

DEFAULT_LISTENER = "http://0.0.0.0:8083"


class ConfigFileError(ConnectError):
    """A config file cannot be read or holds a bad value; the message names file, key and reason."""


def load_properties(path: str | Path) -> dict[str, str]:
    """Read a Java ``.properties`` file, or a JSON object (Kafka's connector JSON, with ``config``).

    Raises ConfigFileError naming the file and what is wrong.
    """
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigFileError(f"{file}: cannot read: {exc.strerror or exc}") from exc
    if file.suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigFileError(f"{file}: not valid JSON: {exc.msg} at line {exc.lineno}") from exc
        if not isinstance(data, dict):
            raise ConfigFileError(f"{file}: expected a JSON object")
        if isinstance(data.get("config"), dict):
            config = dict(data["config"])
            if "name" in data and "name" not in config:
                config["name"] = data["name"]
            data = config
        return {str(k): _stringify(v) for k, v in data.items()}
    try:
        return dict(javaproperties.loads(text))
    except (ValueError, UnicodeError) as exc:
        raise ConfigFileError(f"{file}: not a valid properties file: {exc}") from exc


def _stringify(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    return json.dumps(value) if isinstance(value, (list, dict)) else str(value)


def _int(props: Mapping[str, str], key: str, default: int, source: str) -> int:
    raw = props.get(key)
    if raw is None or raw.strip() == "":
        return default
    try:
        return int(raw.strip())
    except ValueError:
        raise ConfigFileError(f"{source}: {key}: invalid value {raw!r}: not a number of type INT") from None


@dataclass(frozen=True)
class WorkerConfig:
    """Typed view of a worker's properties (Kafka's StandaloneConfig / WorkerConfig keys)."""

    props: Mapping[str, str]
    source: str = "<worker config>"
    bootstrap_servers: str = "localhost:9092"
    listeners: tuple[str, ...] = (DEFAULT_LISTENER,)
    offset_storage_file: str | None = None
    config_storage_file: str | None = None
    offset_flush_interval_ms: int = 60000
    task_shutdown_graceful_timeout_ms: int = 5000
    worker_id: str = field(default="")

    @classmethod
    def from_props(cls, props: Mapping[str, str], source: str = "<worker config>") -> WorkerConfig:
        """Build from raw properties; ConfigFileError names `source`, the key and the reason."""
        listeners = tuple(
            part.strip() for part in props.get("listeners", DEFAULT_LISTENER).split(",") if part.strip()
        ) or (DEFAULT_LISTENER,)
        for listener in listeners:
            if not listener.lower().startswith(("http://", "https://")):
                raise ConfigFileError(
                    f"{source}: listeners: invalid listener {listener!r}: expected http://host:port"
                )
        _refuse_https(props, listeners, source)
        if "plugin.path" in props:
            log.info("plugin.path is ignored: kconnect finds plugins through pip-installed entry points")
        host, port = _host_port(listeners[0])
        return cls(
            props=dict(props),
            source=source,
            bootstrap_servers=props.get("bootstrap.servers", "localhost:9092"),
            listeners=listeners,
            offset_storage_file=props.get("offset.storage.file.filename") or None,
            config_storage_file=props.get("config.storage.file.filename") or None,
            offset_flush_interval_ms=_int(props, "offset.flush.interval.ms", 60000, source),
            task_shutdown_graceful_timeout_ms=_int(props, "task.shutdown.graceful.timeout.ms", 5000, source),
            worker_id=f"{_advertised_host(host)}:{port}",
        )

    @classmethod
    def from_file(cls, path: str | Path) -> WorkerConfig:
        """Read and check a worker properties file."""
        return cls.from_props(load_properties(path), str(path))

    def with_prefix(self, prefix: str) -> dict[str, str]:
        """Keys starting with `prefix`, with the prefix stripped (``producer.``, ``spark.``...)."""
        return {k[len(prefix) :]: v for k, v in self.props.items() if k.startswith(prefix)}

    def rest_host_port(self) -> tuple[str, int]:
        """Host and port of the first listener, for the REST server to bind."""
        return _host_port(self.listeners[0])


HTTPS_NOT_SUPPORTED = "is not supported yet (kconnect serves plain HTTP; HTTPS arrives in a later release)"
"""Why an ``https`` listener is refused: served as plain HTTP it would send passwords in the clear."""


def _refuse_https(props: Mapping[str, str], listeners: tuple[str, ...], source: str) -> None:
    """ConfigFileError naming the key and value if any listener setting asks for HTTPS."""
    admin = tuple(p.strip() for p in props.get("admin.listeners", "").split(",") if p.strip())
    for key, values in (("listeners", listeners), ("admin.listeners", admin)):
        for listener in values:
            if listener.lower().startswith("https://"):
                raise ConfigFileError(f"{source}: {key}: {listener} {HTTPS_NOT_SUPPORTED}; use http://")
    advertised = props.get("rest.advertised.listener", "").strip()
    if advertised.lower() == "https":
        raise ConfigFileError(
            f"{source}: rest.advertised.listener: {advertised} {HTTPS_NOT_SUPPORTED}; use http"
        )


def _host_port(listener: str) -> tuple[str, int]:
    rest = listener.split("://", 1)[1].rstrip("/")
    host, _, port = rest.rpartition(":")
    if not host:
        host, port = rest, "8083"
    host = host.strip("[]") or "0.0.0.0"
    try:
        return host, int(port)
    except ValueError:
        raise ConfigFileError(f"listeners: invalid port in {listener!r}") from None


def _advertised_host(host: str) -> str:
    if host in ("0.0.0.0", "::", ""):
        try:
            return socket.gethostname()
        except OSError:
            return "localhost"
    return host
