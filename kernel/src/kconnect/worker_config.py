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

    def group_config(self) -> GroupConfig:
        """The distributed group keys (``group.id`` is then required); ConfigFileError when one is bad."""
        return GroupConfig.from_props(self.props, self.source)

    def rest_host_port(self) -> tuple[str, int]:
        """Host and port of the first listener, for the REST server to bind."""
        return _host_port(self.listeners[0])

    def advertised_url(self) -> str:
        """The URL other workers reach this one at (Kafka's ``rest.advertised.listener``,
        ``rest.advertised.host.name``, ``rest.advertised.port``; by default the first listener, with
        the machine's host name for a wildcard host), ending in ``/`` as Kafka's."""
        host, port = self.rest_host_port()
        scheme = self.props.get("rest.advertised.listener", "").strip().lower() or "http"
        advertised_host = self.props.get("rest.advertised.host.name", "").strip() or _advertised_host(host)
        advertised_port = _int(self.props, "rest.advertised.port", port, self.source)
        if ":" in advertised_host and not advertised_host.startswith("["):
            advertised_host = f"[{advertised_host}]"
        return f"{scheme}://{advertised_host}:{advertised_port}/"

    def config_storage(self) -> InternalTopicConfig:
        """``config.storage.topic`` and its replication factor (distributed mode); one partition always."""
        return _internal_topic(self.props, "config.storage", None, self.source)

    def offset_storage(self) -> InternalTopicConfig:
        """``offset.storage.topic``, its ``.partitions`` (default 25) and replication factor."""
        return _internal_topic(self.props, "offset.storage", 25, self.source)

    def status_storage(self) -> InternalTopicConfig:
        """``status.storage.topic``, its ``.partitions`` (default 5) and replication factor."""
        return _internal_topic(self.props, "status.storage", 5, self.source)


CONNECT_PROTOCOLS = ("eager", "compatible", "sessioned")
"""Accepted ``connect.protocol`` values (Kafka's ConnectProtocolCompatibility), oldest first."""


@dataclass(frozen=True)
class GroupConfig:
    """A distributed worker's group keys (Kafka's DistributedConfig), with Kafka's defaults."""

    group_id: str
    heartbeat_interval_ms: int = 3000
    session_timeout_ms: int = 10000
    rebalance_timeout_ms: int = 60000
    scheduled_rebalance_max_delay_ms: int = 300000
    connect_protocol: str = "sessioned"

    @classmethod
    def from_props(cls, props: Mapping[str, str], source: str = "<worker config>") -> GroupConfig:
        """Read and check the group keys; ConfigFileError names `source`, the key and Kafka's reason."""
        group_id = props.get("group.id", "").strip()
        if not group_id:
            raise ConfigFileError(
                f'{source}: group.id: Missing required configuration "group.id" which has no default value.'
            )
        delay = _int(props, "scheduled.rebalance.max.delay.ms", 300000, source)
        if delay < 0:
            raise ConfigFileError(
                f"{source}: scheduled.rebalance.max.delay.ms: Invalid value {delay} for configuration "
                "scheduled.rebalance.max.delay.ms: Value must be at least 0"
            )
        heartbeat = _int(props, "heartbeat.interval.ms", 3000, source)
        if heartbeat < 1:
            raise ConfigFileError(
                f"{source}: heartbeat.interval.ms: Invalid value {heartbeat} for configuration "
                "heartbeat.interval.ms: Value must be at least 1"
            )
        protocol = props.get("connect.protocol", "sessioned").strip()
        if protocol.lower() not in CONNECT_PROTOCOLS:
            raise ConfigFileError(
                f"{source}: connect.protocol: Invalid value {protocol} for configuration connect.protocol: "
                f"Invalid Connect protocol compatibility (one of {', '.join(CONNECT_PROTOCOLS)})"
            )
        return cls(
            group_id=group_id,
            heartbeat_interval_ms=heartbeat,
            session_timeout_ms=_int(props, "session.timeout.ms", 10000, source),
            rebalance_timeout_ms=_int(props, "rebalance.timeout.ms", 60000, source),
            scheduled_rebalance_max_delay_ms=delay,
            connect_protocol=protocol.lower(),
        )


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
    """Host and port of ``scheme://host:port``: an empty host is every interface (Kafka's
    ``http://:8083``), a missing port 8083, an IPv6 literal in brackets."""
    rest = listener.split("://", 1)[1].rstrip("/")
    if rest.startswith("["):
        host, _, tail = rest[1:].partition("]")
        port = tail[1:] if tail.startswith(":") else "8083"
    elif ":" in rest:
        host, _, port = rest.rpartition(":")
    else:
        host, port = rest, "8083"
    host = host or "0.0.0.0"
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


@dataclass(frozen=True)
class InternalTopicConfig:
    """A distributed worker's internal topic: ``<prefix>.topic``, ``.partitions``, ``.replication.factor``."""

    key: str
    """The property naming the topic (``config.storage.topic``...), for messages."""
    name: str
    partitions: int
    """-1: the broker's default."""
    replication_factor: int
    """-1: the broker's default (Kafka's default is 3)."""


def _internal_topic(
    props: Mapping[str, str], prefix: str, default_partitions: int | None, source: str
) -> InternalTopicConfig:
    """ConfigFileError with Kafka's text when the topic is missing or a count is not positive or -1."""
    key = f"{prefix}.topic"
    name = props.get(key, "").strip()
    if not name:
        raise ConfigFileError(
            f'{source}: {key}: Missing required configuration "{key}" which has no default value.'
        )
    partitions = 1
    if default_partitions is not None:
        partitions = _int(props, f"{prefix}.partitions", default_partitions, source)
        if partitions != -1 and partitions < 1:
            raise ConfigFileError(
                f"{source}: {prefix}.partitions: Invalid value {partitions} for configuration {prefix}"
                ".partitions: Number of partitions must be positive, or -1 to use the broker's default"
            )
    factor = _int(props, f"{prefix}.replication.factor", 3, source)
    if factor != -1 and not 1 <= factor <= 32767:
        raise ConfigFileError(
            f"{source}: {prefix}.replication.factor: Invalid value {factor} for configuration {prefix}"
            ".replication.factor: Replication factor must be positive and not larger than the number "
            "of brokers in the Kafka cluster, or -1 to use the broker's default"
        )
    return InternalTopicConfig(key, name, partitions, factor)
