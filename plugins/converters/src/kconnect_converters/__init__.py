"""Kafka Connect's converters for kconnect, byte-compatible with Kafka's own.

Installed as a kconnect plugin through the entry point ``converters``; name them in a worker or
connector config as Kafka does (``value.converter=org.apache.kafka.connect.json.JsonConverter``)
or by short alias (``JsonConverter``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kconnect.config.configdef import ConfigDef, ConfigType, Importance
from kconnect.config.validators import ValidString

__version__ = "0.1.0"

CONVERTER_TYPE_CONFIG = "converter.type"


def converter_config_def() -> ConfigDef:
    """A ConfigDef holding ``converter.type`` (key, value or header), the base of every converter's."""
    return ConfigDef().define(
        CONVERTER_TYPE_CONFIG,
        type=ConfigType.STRING,
        importance=Importance.LOW,
        documentation="How this converter will be used.",
        validator=ValidString.in_("key", "value", "header"),
    )


def converter_type(configs: Mapping[str, Any], is_key: bool | None) -> str:
    """``key`` or ``value`` per `is_key`; for a header converter (None) the given type, else ``header``."""
    if is_key is not None:
        return "key" if is_key else "value"
    return str(configs.get(CONVERTER_TYPE_CONFIG, "header"))
