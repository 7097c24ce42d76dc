"""Framework connector keys whose feature kconnect does not have: their validation errors.

Kafka's distributed herder refuses ``exactly.once.support=required`` on a worker without
exactly-once source support ("This worker does not have exactly-once source support enabled.");
kconnect has none in either mode, so it refuses it in both. ``offsets.storage.topic`` (a separate
offsets topic per source connector, KIP-618) is not supported either: set, it is an error of its
key rather than a setting that silently does nothing. ``docs/differences.md`` lists both.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Final

from kconnect.config.connector_keys import EXACTLY_ONCE_SUPPORT_CONFIG, OFFSETS_TOPIC_CONFIG
from kconnect.config.validation import ConfigInfos

NO_EXACTLY_ONCE: Final = "This worker does not have exactly-once source support enabled."
NO_OFFSETS_TOPIC: Final = (
    "A separate offsets topic per connector is not supported by kconnect; remove offsets.storage.topic "
    "to use the worker's offsets topic"
)


def source_key_errors(config: Mapping[str, str | None]) -> dict[str, str]:
    """Key -> error for the keys of a source connector config that ask for what kconnect lacks."""
    errors: dict[str, str] = {}
    if (config.get(EXACTLY_ONCE_SUPPORT_CONFIG) or "").strip().lower() == "required":
        errors[EXACTLY_ONCE_SUPPORT_CONFIG] = NO_EXACTLY_ONCE
    if (config.get(OFFSETS_TOPIC_CONFIG) or "").strip():
        errors[OFFSETS_TOPIC_CONFIG] = NO_OFFSETS_TOPIC
    return errors


def with_errors(infos: ConfigInfos, errors: Mapping[str, str]) -> ConfigInfos:
    """`infos` with each error added to its key's value (a key whose value already has errors,
    e.g. an invalid ``exactly.once.support``, keeps only those, as Kafka checks valid values only)."""
    if not errors:
        return infos
    added = 0
    configs = []
    for info in infos.configs:
        value = info.value
        if value is not None and value.name in errors and not value.errors:
            value = dataclasses.replace(value, errors=(errors[value.name],))
            info = dataclasses.replace(info, value=value)
            added += 1
        configs.append(info)
    return dataclasses.replace(infos, error_count=infos.error_count + added, configs=tuple(configs))
