"""Which worker keys some part of kconnect reads: the rest are logged as Kafka's clients log them.

A worker key is known when `kconnect.config.worker_settings` declares it (the keys read with a
default), when it is one of Kafka 4.3's other worker keys (``DistributedConfig`` and
``StandaloneConfig``) that are not client properties, a property of all three Kafka clients (the
worker hands those to its own clients, `kconnect.config.client_properties.internal_client_props`),
one of kconnect's own keys (the bundled executor's and REST extension's included), or starts with a
prefix whose keys go to a component that checks them itself (``producer.``, ``key.converter.``,
``config.providers.``, ``listeners.https.``, ``spark.``...). `unknown_worker_keys` gives the others;
`kconnect.config.unused_keys` logs them at worker start.

Kafka's internal topic settings (``config.storage.<topic config>``, KIP-605) and metrics context
(``metrics.context.*``) are not read by kconnect, so they are not known here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from kconnect.config.client_properties import PROPERTIES, ClientKind
from kconnect.config.worker_settings import worker_config_def

#: Kafka 4.3's worker keys (DistributedConfig and StandaloneConfig) that are not client properties,
#: with the three the group member shares with the consumer, but for those `worker_config_def` declares.
KAFKA_WORKER_KEYS: Final = frozenset(
    {
        "access.control.allow.methods",
        "access.control.allow.origin",
        "admin.listeners",
        "config.storage.replication.factor",
        "config.storage.topic",
        "connector.client.config.override.allowlist",
        "connector.client.config.override.policy",
        "header.converter",
        "header.converter.plugin.version",
        "inter.worker.key.generation.algorithm",
        "inter.worker.key.size",
        "inter.worker.key.ttl.ms",
        "inter.worker.signature.algorithm",
        "inter.worker.verification.algorithms",
        "key.converter",
        "key.converter.plugin.version",
        "listeners",
        "offset.storage.file.filename",
        "offset.storage.partitions",
        "offset.storage.replication.factor",
        "plugin.discovery",
        "plugin.path",
        "response.http.headers.config",
        "rest.advertised.host.name",
        "rest.advertised.listener",
        "rest.advertised.port",
        "rest.extension.classes",
        "ssl.client.auth",
        "status.storage.partitions",
        "status.storage.replication.factor",
        "status.storage.topic",
        "topic.tracking.allow.reset",
        "topic.tracking.enable",
        "value.converter",
        "value.converter.plugin.version",
        "worker.sync.timeout.ms",
        "worker.unsync.backoff.ms",
    }
)

#: kconnect's own worker keys (but for those `worker_config_def` declares): the config file of a
#: standalone worker, the bundled Spark executor's and basic-auth REST extension's keys.
KCONNECT_WORKER_KEYS: Final = frozenset(
    {
        "config.storage.file.filename",
        "executor",
        "rest.basic.auth.credentials.file",
        "rest.basic.auth.exempt.paths",
        "task.stall.timeout.ms",
    }
)

#: Prefixes whose keys go to a component that checks them itself.
WORKER_KEY_PREFIXES: Final = (
    "producer.",
    "consumer.",
    "admin.",
    "key.converter.",
    "value.converter.",
    "header.converter.",
    "config.providers.",
    "listeners.https.",
    "admin.listeners.https.",
    "executor.",
    "spark.",
)


def is_known_worker_key(key: str) -> bool:
    """Whether some part of kconnect reads worker key `key`."""
    named = key in worker_config_def().config_keys or key in KAFKA_WORKER_KEYS or key in KCONNECT_WORKER_KEYS
    if named or key.startswith(WORKER_KEY_PREFIXES):
        return True
    prop = PROPERTIES.get(key)
    return prop is not None and len(prop.kinds) == len(ClientKind)


def unknown_worker_keys(props: Mapping[str, str]) -> list[str]:
    """The keys of a worker config that no part of kconnect reads, sorted."""
    return sorted(key for key in props if not is_known_worker_key(key))
