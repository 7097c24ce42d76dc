"""The ``converters`` plugin: registers Kafka's converters and header converters with kconnect."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kconnect.hookspecs import hookimpl

from kconnect_converters.bytearray_converter import ByteArrayConverter
from kconnect_converters.header_converter import SimpleHeaderConverter
from kconnect_converters.json_converter import JsonConverter
from kconnect_converters.number_converters import (
    BooleanConverter,
    DoubleConverter,
    FloatConverter,
    IntegerConverter,
    LongConverter,
    ShortConverter,
)
from kconnect_converters.string_converter import StringConverter

if TYPE_CHECKING:
    from kconnect.plugin_host import PluginRegistry

# Every converter here is also a header converter, as in Kafka.
CONVERTERS = (
    JsonConverter,
    StringConverter,
    ByteArrayConverter,
    ShortConverter,
    IntegerConverter,
    LongConverter,
    FloatConverter,
    DoubleConverter,
    BooleanConverter,
)


@hookimpl
def register_converters(registry: PluginRegistry) -> None:
    """Register the key/value converters, each also found by its short name (``JsonConverter``)."""
    for cls in CONVERTERS:
        registry.add(cls, aliases=(cls.__name__,))


@hookimpl
def register_header_converters(registry: PluginRegistry) -> None:
    """Register SimpleHeaderConverter (Kafka's default) and the converters that also convert headers."""
    registry.add(SimpleHeaderConverter, aliases=("SimpleHeaderConverter",))
    for cls in CONVERTERS:
        registry.add(cls, aliases=(cls.__name__,))
