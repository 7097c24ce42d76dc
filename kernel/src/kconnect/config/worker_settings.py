"""The worker keys a task and the worker read with a default: one `ConfigDef`, read once.

`worker_config_def` declares each key's name, type, default and doc, Kafka's name and default
(``bootstrap.servers``, ``offset.flush.interval.ms``...) or kconnect's (``offset.flush.records``);
`WorkerSettings` holds their typed values, read once when the worker starts
(`kconnect.worker_config.WorkerConfig.settings`), and travels to each task in its
`kconnect.executor.TaskSpec`, so no task loop parses a worker property. The raw properties ride
along in `WorkerSettings.props` for what is handed on unchanged: the clients' ``producer.*``,
``consumer.*`` and ``admin.*`` keys, the converters' settings, ``spark.*``.

Values are read as the worker always read them: a number that is unset or blank takes its
default, a boolean is Kafka's, a string is kept as written.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Final

from .configdef import ConfigDef, ConfigException, ConfigType, Importance, parse_type
from .offset_flush_keys import OFFSET_FLUSH_RECORDS_CONFIG, OFFSET_FLUSH_RECORDS_DEFAULT
from .worker_keys import (
    EXACTLY_ONCE_SOURCE_SUPPORT_CONFIG,
    EXACTLY_ONCE_SOURCE_SUPPORT_DOC,
    ExactlyOnceSourceSupport,
)

BOOTSTRAP_SERVERS_CONFIG: Final = "bootstrap.servers"
GROUP_ID_CONFIG: Final = "group.id"
OFFSET_STORAGE_TOPIC_CONFIG: Final = "offset.storage.topic"
OFFSET_FLUSH_INTERVAL_MS_CONFIG: Final = "offset.flush.interval.ms"
OFFSET_FLUSH_TIMEOUT_MS_CONFIG: Final = "offset.flush.timeout.ms"
TASK_SHUTDOWN_GRACEFUL_TIMEOUT_MS_CONFIG: Final = "task.shutdown.graceful.timeout.ms"
TOPIC_CREATION_ENABLE_CONFIG: Final = "topic.creation.enable"
HEARTBEAT_INTERVAL_MS_CONFIG: Final = "heartbeat.interval.ms"
SESSION_TIMEOUT_MS_CONFIG: Final = "session.timeout.ms"
REBALANCE_TIMEOUT_MS_CONFIG: Final = "rebalance.timeout.ms"
SCHEDULED_REBALANCE_MAX_DELAY_MS_CONFIG: Final = "scheduled.rebalance.max.delay.ms"
CONNECT_PROTOCOL_CONFIG: Final = "connect.protocol"

# name, type, default, importance, doc (Kafka 4.3's names, types and defaults; the docs are ours)
_KeyRow = tuple[str, ConfigType, object, Importance, str]

# fmt: off
_KEYS: Final[tuple[_KeyRow, ...]] = (
    (BOOTSTRAP_SERVERS_CONFIG, ConfigType.STRING, "localhost:9092", Importance.HIGH,
     "The Kafka brokers (host:port, comma-separated) of the worker's and its tasks' clients, handed to "
     "them as written."),
    (GROUP_ID_CONFIG, ConfigType.STRING, None, Importance.HIGH,
     "The Connect cluster a distributed worker joins; unset on a standalone worker."),
    (OFFSET_STORAGE_TOPIC_CONFIG, ConfigType.STRING, None, Importance.HIGH,
     "The topic a distributed worker keeps source offsets in."),
    (OFFSET_FLUSH_INTERVAL_MS_CONFIG, ConfigType.LONG, 60000, Importance.LOW,
     "How often, in milliseconds, a task commits its offsets."),
    (OFFSET_FLUSH_TIMEOUT_MS_CONFIG, ConfigType.LONG, 5000, Importance.LOW,
     "How long, in milliseconds, a source task waits for its in-flight records before a commit gives up "
     "and tries again at the next one."),
    (OFFSET_FLUSH_RECORDS_CONFIG, ConfigType.LONG, OFFSET_FLUSH_RECORDS_DEFAULT, Importance.LOW,
     "A source task also commits its offsets once this many records were acknowledged since its last "
     "commit, so a crash replays about that many at most; 0 turns it off. A kconnect extension."),
    (TASK_SHUTDOWN_GRACEFUL_TIMEOUT_MS_CONFIG, ConfigType.LONG, 5000, Importance.LOW,
     "How long, in milliseconds, a task may take to stop before it is stopped by force."),
    (TOPIC_CREATION_ENABLE_CONFIG, ConfigType.BOOLEAN, True, Importance.LOW,
     "Whether source connectors may create their topics with their topic.creation.* settings."),
    (EXACTLY_ONCE_SOURCE_SUPPORT_CONFIG, ConfigType.STRING, ExactlyOnceSourceSupport.DISABLED.value,
     Importance.HIGH, EXACTLY_ONCE_SOURCE_SUPPORT_DOC),
    # The group keys of a distributed worker (`kconnect.worker_config.GroupConfig`).
    (HEARTBEAT_INTERVAL_MS_CONFIG, ConfigType.INT, 3000, Importance.HIGH,
     "How often, in milliseconds, a distributed worker tells the group it is alive."),
    (SESSION_TIMEOUT_MS_CONFIG, ConfigType.INT, 10000, Importance.HIGH,
     "How long, in milliseconds, the group waits for a worker's heartbeat before it rebalances without it."),
    (REBALANCE_TIMEOUT_MS_CONFIG, ConfigType.INT, 60000, Importance.HIGH,
     "How long, in milliseconds, each worker may take to rejoin the group once a rebalance started."),
    (SCHEDULED_REBALANCE_MAX_DELAY_MS_CONFIG, ConfigType.INT, 300000, Importance.MEDIUM,
     "How long, in milliseconds, the leader keeps a departed worker's connectors and tasks for its return "
     "before it gives them to the others."),
    (CONNECT_PROTOCOL_CONFIG, ConfigType.STRING, "sessioned", Importance.LOW,
     "The group protocol a distributed worker speaks: eager, compatible or sessioned."),
)
# fmt: on


@cache
def worker_config_def() -> ConfigDef:
    """The worker keys read with a default (built once; the def is not changed after)."""
    config_def = ConfigDef()
    for name, config_type, default, importance, doc in _KEYS:
        config_def.define(name, type=config_type, importance=importance, documentation=doc, default=default)
    return config_def


def worker_setting(props: Mapping[str, str], name: str) -> object:
    """Worker key `name`'s value in `props`, or its declared default.

    ConfigException (``<key>: <reason>``) for a number or boolean that is not one.
    """
    key = worker_config_def().config_keys[name]
    raw = props.get(name)
    if key.type in (ConfigType.INT, ConfigType.LONG):
        if raw is None or not raw.strip():
            return key.default
        try:
            return int(raw.strip())
        except ValueError:
            message = f"{name}: invalid value {raw!r}: not a number of type {key.type.value}"
            raise ConfigException(message, name=name, value=raw) from None
    if raw is None:
        return key.default
    if key.type is ConfigType.BOOLEAN:
        try:
            return parse_type(name, raw, key.type)
        except ConfigException as bad:
            raise ConfigException(f"{name}: {bad}", name=name, value=raw) from None
    return raw


def worker_number(props: Mapping[str, str], name: str) -> int:
    """A number key's value (`worker_setting`); its default with empty `props`."""
    value = worker_setting(props, name)
    assert isinstance(value, int)
    return value


def worker_flag(props: Mapping[str, str], name: str) -> bool:
    """A boolean key's value (`worker_setting`)."""
    return worker_setting(props, name) is True


def worker_text(props: Mapping[str, str], name: str) -> str:
    """A string key's value as written (`worker_setting`); empty when unset without a default."""
    value = worker_setting(props, name)
    return "" if value is None else str(value)


@dataclass(frozen=True)
class WorkerSettings:
    """The worker's settings as a task and the worker read them; picklable, it travels in each TaskSpec.

    `props` are the raw worker properties, for what is handed on unchanged (client, converter and
    ``spark.*`` keys); every other field is typed, its default from `worker_config_def`.
    """

    props: Mapping[str, str]
    bootstrap_servers: str
    group_id: str
    """Stripped; empty on a standalone worker."""
    offset_storage_topic: str
    """Stripped; empty when unset."""
    offset_flush_interval_ms: int
    offset_flush_timeout_ms: int
    offset_flush_records: int
    """0: commits on the interval only."""
    task_shutdown_graceful_timeout_ms: int
    topic_creation_enable: bool
    exactly_once_source_support: ExactlyOnceSourceSupport
    """DISABLED on a standalone worker, which does not read the key (a distributed worker refuses a
    bad value at its start, `kconnect.config.worker_keys.check_distributed_keys`)."""

    @classmethod
    def from_props(cls, props: Mapping[str, str]) -> WorkerSettings:
        """Read every setting; ConfigException (``<key>: <reason>``) for a value of the wrong type.

        Called once per worker (`WorkerConfig.settings`), and by tests that build a TaskSpec.
        """
        group_id = worker_text(props, GROUP_ID_CONFIG).strip()
        return cls(
            props=dict(props),
            bootstrap_servers=worker_text(props, BOOTSTRAP_SERVERS_CONFIG),
            group_id=group_id,
            offset_storage_topic=worker_text(props, OFFSET_STORAGE_TOPIC_CONFIG).strip(),
            offset_flush_interval_ms=worker_number(props, OFFSET_FLUSH_INTERVAL_MS_CONFIG),
            offset_flush_timeout_ms=worker_number(props, OFFSET_FLUSH_TIMEOUT_MS_CONFIG),
            offset_flush_records=worker_number(props, OFFSET_FLUSH_RECORDS_CONFIG),
            task_shutdown_graceful_timeout_ms=worker_number(props, TASK_SHUTDOWN_GRACEFUL_TIMEOUT_MS_CONFIG),
            topic_creation_enable=worker_flag(props, TOPIC_CREATION_ENABLE_CONFIG),
            exactly_once_source_support=_exactly_once_source_support(props, group_id),
        )


def _exactly_once_source_support(props: Mapping[str, str], group_id: str) -> ExactlyOnceSourceSupport:
    if not group_id:
        return ExactlyOnceSourceSupport.DISABLED
    try:
        return ExactlyOnceSourceSupport.from_props(props)
    except ValueError:
        return ExactlyOnceSourceSupport.DISABLED
