"""A source connector's exactly-once keys (KIP-618), validated as Kafka 4.3's distributed herder does.

Called by `kconnect.herder.validation.ConnectorValidator` for every source config a distributed
worker validates, creates or updates, after the framework's keys were validated (Kafka's
``DistributedHerder.validateSourceConnectorConfig``). A standalone worker makes none of these
checks, as Kafka's ``StandaloneHerder`` (docs/reliability.md). Steps, each only when the key's own
value passed its validator:

* ``exactly.once.support=required``: an error when the worker's ``exactly.once.source.support`` is
  not ``enabled`` (``preparing`` is not enough); then the connector's `exactly_once_support` is
  asked, and anything but SUPPORTED is a second error;
* ``transaction.boundary=connector``: the connector's `can_define_transaction_boundaries` is asked
  (whatever the worker's level), and anything but SUPPORTED is an error.

A connector method that raises is an error of its key, with the exception's message. Kafka adds
nothing for ``transaction.boundary.interval.ms`` with another boundary: it is ignored.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping, Sequence
from typing import Final

from kconnect.config import ConfigInfos
from kconnect.config.connector_keys import (
    EXACTLY_ONCE_SUPPORT_CONFIG,
    TRANSACTION_BOUNDARY_CONFIG,
)
from kconnect.config.worker_keys import ExactlyOnceSourceSupport
from kconnect.connector import ConnectorTransactionBoundaries, ExactlyOnceSupport, SourceConnector

log = logging.getLogger(__name__)

NO_EXACTLY_ONCE: Final = "This worker does not have exactly-once source support enabled."
EXACTLY_ONCE_UNKNOWN: Final = (
    "The connector does not implement the API required for preflight validation of exactly-once source "
    "support. Please consult the documentation for the connector to determine whether it supports "
    'exactly-once semantics, and then consider reconfiguring the connector to use the value "requested" '
    "for this property (which will disable this preflight check and allow the connector to be created)."
)
EXACTLY_ONCE_UNSUPPORTED: Final = (
    "The connector does not support exactly-once semantics with the provided configuration."
)
BOUNDARIES_NONE: Final = (
    "This connector has returned a null value from its canDefineTransactionBoundaries method, which is not "
    "permitted. The connector will be treated as if it cannot define its own transaction boundaries, and "
    "cannot be configured with 'transaction.boundary' set to 'connector'."
)
BOUNDARIES_UNSUPPORTED: Final = (
    "The connector does not support connector-defined transaction boundaries with the given configuration. "
    "Please reconfigure it to use a different transaction boundary definition."
)
UNEXPECTED_ERROR: Final = "An unexpected error occurred during validation"


def _unexpected(error: Exception) -> str:
    """Kafka's text for a connector method that raised while it was asked."""
    message = str(error).strip()
    return (
        f"{UNEXPECTED_ERROR}: {message}"
        if message
        else f"{UNEXPECTED_ERROR}; please see the worker logs for more details."
    )


def exactly_once_errors(
    connector: SourceConnector, config: Mapping[str, str], worker: ExactlyOnceSourceSupport
) -> list[str]:
    """The errors of ``exactly.once.support=required`` on a worker at level `worker`, in Kafka's order."""
    errors = [] if worker.enabled else [NO_EXACTLY_ONCE]
    try:
        answer = connector.exactly_once_support(config)
        if answer is None:
            errors.append(EXACTLY_ONCE_UNKNOWN)
        elif answer == ExactlyOnceSupport.UNSUPPORTED:
            errors.append(EXACTLY_ONCE_UNSUPPORTED)
        elif answer != ExactlyOnceSupport.SUPPORTED:
            raise TypeError(f"Unexpected value returned from SourceConnector.exactly_once_support: {answer}")
    except Exception as error:
        log.error("Failed while validating connector support for exactly-once semantics", exc_info=True)
        errors.append(_unexpected(error))
    return errors


def transaction_boundary_errors(connector: SourceConnector, config: Mapping[str, str]) -> list[str]:
    """The error of ``transaction.boundary=connector`` for a connector that cannot define transactions."""
    try:
        answer = connector.can_define_transaction_boundaries(config)
    except Exception as error:
        log.error(
            "Failed while validating connector support for defining its own transaction boundaries",
            exc_info=True,
        )
        return [_unexpected(error)]
    if answer is None:
        return [BOUNDARIES_NONE]
    return [] if answer == ConnectorTransactionBoundaries.SUPPORTED else [BOUNDARIES_UNSUPPORTED]


def _valid_value(infos: ConfigInfos, key: str) -> str | None:
    """The validated value of `key`, lower case, or None when its validator refused it."""
    for info in infos.configs:
        if info.value is not None and info.value.name == key:
            if info.value.errors or info.value.value is None:
                return None
            return info.value.value.strip().lower()
    return None


def source_key_errors(
    connector: SourceConnector,
    config: Mapping[str, str],
    infos: ConfigInfos,
    worker: ExactlyOnceSourceSupport,
) -> dict[str, list[str]]:
    """Key -> the errors a distributed worker adds to the validated `infos` of source `config`."""
    errors: dict[str, list[str]] = {}
    if _valid_value(infos, EXACTLY_ONCE_SUPPORT_CONFIG) == "required":
        errors[EXACTLY_ONCE_SUPPORT_CONFIG] = exactly_once_errors(connector, config, worker)
    if _valid_value(infos, TRANSACTION_BOUNDARY_CONFIG) == "connector":
        errors[TRANSACTION_BOUNDARY_CONFIG] = transaction_boundary_errors(connector, config)
    return {key: found for key, found in errors.items() if found}


def with_errors(infos: ConfigInfos, errors: Mapping[str, Sequence[str]]) -> ConfigInfos:
    """`infos` with each key's `errors` appended to its value's, and counted (Kafka counts messages)."""
    if not errors:
        return infos
    added = 0
    configs = []
    for info in infos.configs:
        value = info.value
        if value is not None and errors.get(value.name):
            value = dataclasses.replace(value, errors=(*value.errors, *errors[value.name]))
            info = dataclasses.replace(info, value=value)
            added += len(errors[value.name])
        configs.append(info)
    return dataclasses.replace(infos, error_count=infos.error_count + added, configs=tuple(configs))
