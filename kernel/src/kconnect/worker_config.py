"""Worker configuration: Java Kafka Connect's worker properties, read unchanged.

`load_properties` reads a ``.properties`` file (Java syntax, via `javaproperties`) or a JSON
file; `WorkerConfig` gives typed access to the keys the kernel uses and keeps every other key
(``producer.*``, ``consumer.*``, ``spark.*``, converter settings) for whoever needs it. Once
checked, the keys kconnect accepts without effect and the keys nothing reads are logged
(`kconnect.config.unused_keys`).
"""

from __future__ import annotations

import json
import logging
import socket
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import javaproperties

from kconnect.config.client_properties import worker_client_problems
from kconnect.config.configdef import ConfigException
from kconnect.config.connector_keys import NAME_CONFIG
from kconnect.config.extension_keys import check_extension_worker_keys
from kconnect.config.offset_flush_keys import check_offset_flush_keys
from kconnect.config.override_policy import OverridePolicyError, log_override_policy, override_policy
from kconnect.config.unused_keys import log_worker_keys
from kconnect.config.worker_keys import ExactlyOnceSourceSupport, check_distributed_keys, check_worker_keys
from kconnect.config.worker_settings import (
    CONNECT_PROTOCOL_CONFIG,
    HEARTBEAT_INTERVAL_MS_CONFIG,
    REBALANCE_TIMEOUT_MS_CONFIG,
    SCHEDULED_REBALANCE_MAX_DELAY_MS_CONFIG,
    SESSION_TIMEOUT_MS_CONFIG,
    TOPIC_CREATION_ENABLE_CONFIG,
    WorkerSettings,
    worker_flag,
    worker_number,
    worker_text,
)
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
            if "name" in data and NAME_CONFIG not in config:
                config[NAME_CONFIG] = data["name"]
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


@contextmanager
def _naming(source: str) -> Iterator[None]:
    """A worker setting's ConfigException (``<key>: <reason>``) as a ConfigFileError naming `source`."""
    try:
        yield
    except ConfigException as bad:
        raise ConfigFileError(f"{source}: {bad}") from None


def topic_creation_enabled(props: Mapping[str, str], source: str = "<worker config>") -> bool:
    """The worker's ``topic.creation.enable`` (default true): may source connectors create their topics.

    Read by connector validation; a task reads `WorkerSettings.topic_creation_enable`. ConfigFileError
    with Kafka's text when the value is not a boolean.
    """
    with _naming(source):
        return worker_flag(props, TOPIC_CREATION_ENABLE_CONFIG)


def _raise_first(source: str, errors: list[str]) -> None:
    if errors:
        raise ConfigFileError(f"{source}: {errors[0]}")


@dataclass(frozen=True)
class WorkerConfig:
    """Typed view of a worker's properties (Kafka's StandaloneConfig / WorkerConfig keys).

    The keys tasks read are `settings` (`kconnect.config.worker_settings`), read once.
    """

    props: Mapping[str, str]
    source: str = "<worker config>"
    listeners: tuple[str, ...] = (DEFAULT_LISTENER,)
    offset_storage_file: str | None = None
    config_storage_file: str | None = None
    worker_id: str = field(default="")

    @classmethod
    def from_props(cls, props: Mapping[str, str], source: str = "<worker config>") -> WorkerConfig:
        """Build from raw properties; ConfigFileError names `source`, the key and the reason.

        A worker file is read with `kconnect.worker_providers.read_worker_config`, which resolves
        its config-provider references first.
        """
        listeners = tuple(
            part.strip() for part in props.get("listeners", DEFAULT_LISTENER).split(",") if part.strip()
        ) or (DEFAULT_LISTENER,)
        for listener in listeners:
            if not listener.lower().startswith(("http://", "https://")):
                raise ConfigFileError(
                    f"{source}: listeners: invalid listener {listener!r}: expected http://host:port "
                    "or https://host:port"
                )
        _refuse_https_admin_listeners(props, source)
        _raise_first(
            source,
            check_worker_keys(props) + check_extension_worker_keys(props) + check_offset_flush_keys(props),
        )
        _advertised_scheme(props, listeners, source)
        check_client_config(props, source)
        log_worker_keys(props)
        if "plugin.path" in props:
            log.info(
                "plugin.path %s: its Java plugins are found by kconnect-java, when installed",
                props["plugin.path"],
            )
        host, port = _host_port(listeners[0])
        config = cls(
            props=dict(props),
            source=source,
            listeners=listeners,
            offset_storage_file=props.get("offset.storage.file.filename") or None,
            config_storage_file=props.get("config.storage.file.filename") or None,
            worker_id=f"{_advertised_host(host)}:{port}",
        )
        _ = config.settings  # read once, now: a bad value stops the worker rather than its tasks
        return config

    @cached_property
    def settings(self) -> WorkerSettings:
        """The keys tasks read, typed (each TaskSpec carries them); ConfigFileError names a bad one."""
        with _naming(self.source):
            return WorkerSettings.from_props(self.props)

    @property
    def bootstrap_servers(self) -> str:
        """``bootstrap.servers`` (`settings`)."""
        return self.settings.bootstrap_servers

    @property
    def task_shutdown_graceful_timeout_ms(self) -> int:
        """``task.shutdown.graceful.timeout.ms`` (`settings`)."""
        return self.settings.task_shutdown_graceful_timeout_ms

    @property
    def topic_creation_enable(self) -> bool:
        """``topic.creation.enable`` (`settings`)."""
        return self.settings.topic_creation_enable

    def with_prefix(self, prefix: str) -> dict[str, str]:
        """Keys starting with `prefix`, with the prefix stripped (``producer.``, ``spark.``...)."""
        return {k[len(prefix) :]: v for k, v in self.props.items() if k.startswith(prefix)}

    def group_config(self) -> GroupConfig:
        """The distributed group keys (``group.id`` is then required); ConfigFileError when one is bad."""
        return GroupConfig.from_props(self.props, self.source)

    def rest_host_port(self) -> tuple[str, int]:
        """Host and port of the first listener."""
        return _host_port(self.listeners[0])

    def rest_listeners(self) -> tuple[RestListener, ...]:
        """Every listener of ``listeners``, in order, for the REST server to bind."""
        return tuple(RestListener(_scheme(listener), *_host_port(listener)) for listener in self.listeners)

    def advertised_url(self) -> str:
        """The URL other workers reach this one at, ending in ``/`` as Kafka's.

        The scheme is ``rest.advertised.listener``, else ``http`` if an http listener is configured,
        else ``https`` (Kafka's RestServer); host and port are ``rest.advertised.host.name`` and
        ``rest.advertised.port``, else those of the first listener of that scheme (the first
        listener if none has it), with the machine's host name for a wildcard host.
        """
        scheme = _advertised_scheme(self.props, self.listeners, self.source)
        listener = next((item for item in self.rest_listeners() if item.scheme == scheme), None)
        host, port = (listener.host, listener.port) if listener is not None else self.rest_host_port()
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
    heartbeat_interval_ms: int = worker_number({}, HEARTBEAT_INTERVAL_MS_CONFIG)
    session_timeout_ms: int = worker_number({}, SESSION_TIMEOUT_MS_CONFIG)
    rebalance_timeout_ms: int = worker_number({}, REBALANCE_TIMEOUT_MS_CONFIG)
    scheduled_rebalance_max_delay_ms: int = worker_number({}, SCHEDULED_REBALANCE_MAX_DELAY_MS_CONFIG)
    connect_protocol: str = worker_text({}, CONNECT_PROTOCOL_CONFIG)
    exactly_once_source_support: ExactlyOnceSourceSupport = ExactlyOnceSourceSupport.DISABLED
    """``exactly.once.source.support``: the runtime asks ``.enabled`` and ``.uses_transactional_leader``."""

    @classmethod
    def from_props(cls, props: Mapping[str, str], source: str = "<worker config>") -> GroupConfig:
        """Read and check the group keys; ConfigFileError names `source`, the key and Kafka's reason."""
        group_id = props.get("group.id", "").strip()
        if not group_id:
            raise ConfigFileError(
                f'{source}: group.id: Missing required configuration "group.id" which has no default value.'
            )
        _raise_first(source, check_distributed_keys(props))
        with _naming(source):
            return cls._checked(props, group_id, source)

    @classmethod
    def _checked(cls, props: Mapping[str, str], group_id: str, source: str) -> GroupConfig:
        delay = worker_number(props, SCHEDULED_REBALANCE_MAX_DELAY_MS_CONFIG)
        if delay < 0:
            raise ConfigFileError(
                f"{source}: scheduled.rebalance.max.delay.ms: Invalid value {delay} for configuration "
                "scheduled.rebalance.max.delay.ms: Value must be at least 0"
            )
        heartbeat = worker_number(props, HEARTBEAT_INTERVAL_MS_CONFIG)
        if heartbeat < 1:
            raise ConfigFileError(
                f"{source}: heartbeat.interval.ms: Invalid value {heartbeat} for configuration "
                "heartbeat.interval.ms: Value must be at least 1"
            )
        protocol = worker_text(props, CONNECT_PROTOCOL_CONFIG).strip()
        if protocol.lower() not in CONNECT_PROTOCOLS:
            raise ConfigFileError(
                f"{source}: connect.protocol: Invalid value {protocol} for configuration connect.protocol: "
                f"Invalid Connect protocol compatibility (one of {', '.join(CONNECT_PROTOCOLS)})"
            )
        return cls(
            group_id=group_id,
            heartbeat_interval_ms=heartbeat,
            session_timeout_ms=worker_number(props, SESSION_TIMEOUT_MS_CONFIG),
            rebalance_timeout_ms=worker_number(props, REBALANCE_TIMEOUT_MS_CONFIG),
            scheduled_rebalance_max_delay_ms=delay,
            connect_protocol=protocol.lower(),
            exactly_once_source_support=ExactlyOnceSourceSupport.from_props(props),
        )


@dataclass(frozen=True)
class RestListener:
    """One listener of ``listeners``: scheme (``http`` or ``https``, lower case), host and port."""

    scheme: str
    host: str
    port: int


ADMIN_HTTPS_NOT_SUPPORTED = (
    "is not supported (kconnect serves the admin endpoints on the listeners of 'listeners', "
    "which may be https://)"
)
"""Why an ``https`` admin listener is refused: kconnect serves no separate admin listeners."""


def _refuse_https_admin_listeners(props: Mapping[str, str], source: str) -> None:
    """ConfigFileError naming the value if ``admin.listeners`` asks for HTTPS."""
    for listener in (p.strip() for p in props.get("admin.listeners", "").split(",") if p.strip()):
        if listener.lower().startswith("https://"):
            raise ConfigFileError(f"{source}: admin.listeners: {listener} {ADMIN_HTTPS_NOT_SUPPORTED}")


def _scheme(listener: str) -> str:
    return listener.split("://", 1)[0].lower()


def _advertised_scheme(props: Mapping[str, str], listeners: tuple[str, ...], source: str) -> str:
    """``rest.advertised.listener`` (http or https, any case), else Kafka's choice from the listeners."""
    advertised = props.get("rest.advertised.listener", "").strip()
    if advertised:
        if advertised.lower() not in ("http", "https"):
            raise ConfigFileError(
                f"{source}: rest.advertised.listener: Invalid value {advertised}: expected http or https"
            )
        return advertised.lower()
    schemes = {_scheme(listener) for listener in listeners}
    return "https" if "http" not in schemes and "https" in schemes else "http"


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


def check_client_config(props: Mapping[str, str], source: str = "<worker config>") -> None:
    """ConfigFileError listing every Kafka client key of the worker kconnect refuses (``producer.*``,
    ``consumer.*``, ``admin.*``, top-level ``security.protocol``, ``sasl.*``, ``ssl.*``...) and a bad
    ``connector.client.config.override.policy`` or ``connector.client.config.override.allowlist``
    (docs/security.md); logs the policy's set-up lines as Kafka does."""
    problems = [f"{source}: {key}: {reason}" for key, reason in worker_client_problems(props).items()]
    try:
        policy = override_policy(props)
    except OverridePolicyError as bad:
        problems.append(f"{source}: {bad}")
    if problems:
        raise ConfigFileError("\n".join(problems))
    log_override_policy(policy)
