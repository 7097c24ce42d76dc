"""Keys a worker, a task or a standalone worker's connector is given and does not use: logged, so none is
silently ignored.

Three kinds, three calls:

* `log_worker_keys`, called by `kconnect.worker_config.WorkerConfig.from_props` at worker start:
  each client key of the worker that kconnect accepts without effect (``producer.*``,
  ``consumer.*``, ``admin.*`` and the top-level client keys; `Support.NO_OP` in
  `kconnect.config.client_properties`), and the keys no part of kconnect reads, in the words
  Kafka 4.3's clients use (``AbstractConfig.logUnused``: one INFO line listing them);
* `log_override_keys`, called by `kconnect.kafka.clients` when a task builds a client: the
  connector's ``<client>.override.*`` keys without effect. Tasks run in Spark Python workers, whose
  log lines reach the worker's log as every task line does;
* `log_standalone_exactly_once_keys`, called by `kconnect.herder.standalone.StandaloneHerder` each
  time it starts or (re)configures a source connector: the exactly-once keys it accepts, as Kafka's
  standalone mode does, and does not act on (`standalone_exactly_once_keys`): one WARN line per
  config change.

The first two log each key once per process (per client, and per connector for overrides): a task
that restarts a hundred times, or a Python worker that hosts task after task, adds no line.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping

from kconnect.config.client_properties import (
    ClientKind,
    no_effect_props,
    worker_admin_props,
    worker_client_keys,
)
from kconnect.config.connector_keys import (
    EXACTLY_ONCE_SUPPORT_CONFIG,
    OFFSETS_TOPIC_CONFIG,
    TRANSACTION_BOUNDARY_CONFIG,
    TRANSACTION_BOUNDARY_INTERVAL_CONFIG,
)
from kconnect.config.known_worker_keys import unknown_worker_keys

log = logging.getLogger(__name__)

NO_EFFECT_MESSAGE = "The configuration '%s' (%s) is accepted but has no effect in kconnect: %s"
"""The line for a key without effect: key, where it was given (client, connector), reason."""
UNUSED_MESSAGE = "These configurations '%s' were supplied but are not used yet."
"""Kafka 4.3's ``AbstractConfig.logUnused`` line (INFO), with the keys as Java prints a set."""
STANDALONE_EXACTLY_ONCE_MESSAGE = (
    "Source connector %s sets %s, accepted but without effect on a standalone worker: standalone mode has "
    "no exactly-once source support; its tasks deliver at least once and store offsets in "
    "offset.storage.file.filename"
)
"""The WARN line of a standalone worker's source connector: its name, then ``key=value, ...``."""

_logged: set[tuple[str, str]] = set()
_lock = threading.Lock()  # task threads of one Python worker build clients concurrently


def _first_time(where: str, key: str) -> bool:
    with _lock:
        if (where, key) in _logged:
            return False
        _logged.add((where, key))
        return True


def _log_no_effect(where: str, found: Mapping[str, str]) -> None:
    for key, reason in found.items():
        if _first_time(where, key):
            log.info(NO_EFFECT_MESSAGE, key, where, reason)


def log_worker_keys(props: Mapping[str, str]) -> None:
    """Log the worker's client keys without effect and the keys nothing reads (see the module)."""
    _log_no_effect("worker", no_effect_props(ClientKind.ADMIN, worker_client_keys(props)))
    for kind in ClientKind:
        prefix = f"{kind.value}."
        own = (
            worker_admin_props(props)
            if kind is ClientKind.ADMIN
            else {k[len(prefix) :]: v for k, v in props.items() if k.startswith(prefix)}
        )
        _log_no_effect(kind.value, no_effect_props(kind, own))
    unknown = [key for key in unknown_worker_keys(props) if _first_time("unused", key)]
    if unknown:
        log.info(UNUSED_MESSAGE, "[" + ", ".join(unknown) + "]")


def log_override_keys(kind: ClientKind, connector: Mapping[str, str]) -> None:
    """Log the connector's ``<kind>.override.*`` keys without effect, once per process and connector."""
    prefix = kind.override_prefix
    overrides = {k[len(prefix) :]: v for k, v in connector.items() if k.startswith(prefix)}
    if overrides:
        where = f"{prefix.rstrip('.')} of connector {connector.get('name', '')}".rstrip()
        _log_no_effect(where, no_effect_props(kind, overrides))


def standalone_exactly_once_keys(config: Mapping[str, str]) -> dict[str, str]:
    """The keys of source `config` that a standalone worker does not act on, with their values, in this
    order: ``exactly.once.support=required``, ``transaction.boundary`` other than ``poll``,
    ``transaction.boundary.interval.ms`` and ``offsets.storage.topic`` (a blank value counts as unset)."""
    found: dict[str, str] = {}
    for key in (
        EXACTLY_ONCE_SUPPORT_CONFIG,
        TRANSACTION_BOUNDARY_CONFIG,
        TRANSACTION_BOUNDARY_INTERVAL_CONFIG,
        OFFSETS_TOPIC_CONFIG,
    ):
        value = (config.get(key) or "").strip()
        if not value:
            continue
        if key == EXACTLY_ONCE_SUPPORT_CONFIG and value.lower() != "required":
            continue
        if key == TRANSACTION_BOUNDARY_CONFIG and value.lower() == "poll":
            continue
        found[key] = value
    return found


def log_standalone_exactly_once_keys(name: str, config: Mapping[str, str]) -> None:
    """Log one WARN line naming source connector `name` and its keys a standalone worker does not act
    on, if `config` sets any (see `standalone_exactly_once_keys`); nothing otherwise."""
    found = standalone_exactly_once_keys(config)
    if found:
        keys = ", ".join(f"{key}={value}" for key, value in found.items())
        log.warning(STANDALONE_EXACTLY_ONCE_MESSAGE, name, keys)
