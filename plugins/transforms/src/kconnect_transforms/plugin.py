"""The ``transforms`` plugin: registers Kafka's transformations and predicates with kconnect.

Each class answers to its Java class name (``org.apache.kafka.connect.transforms.Cast$Value``),
and so, through the plugin host's dotted tails, to ``Cast$Value``; its Python class name
(``CastValue``) is an alias too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kconnect.hookspecs import hookimpl

from kconnect_transforms.cast import CastKey, CastValue
from kconnect_transforms.extract_field import ExtractFieldKey, ExtractFieldValue
from kconnect_transforms.filter import Filter
from kconnect_transforms.flatten import FlattenKey, FlattenValue
from kconnect_transforms.headers import DropHeaders, HeaderFromKey, HeaderFromValue, InsertHeader
from kconnect_transforms.hoist_field import HoistFieldKey, HoistFieldValue
from kconnect_transforms.insert_field import InsertFieldKey, InsertFieldValue
from kconnect_transforms.mask_field import MaskFieldKey, MaskFieldValue
from kconnect_transforms.predicates import HasHeaderKey, RecordIsTombstone, TopicNameMatches
from kconnect_transforms.regex_router import RegexRouter
from kconnect_transforms.replace_field import ReplaceFieldKey, ReplaceFieldValue
from kconnect_transforms.set_schema_metadata import SetSchemaMetadataKey, SetSchemaMetadataValue
from kconnect_transforms.timestamp_converter import TimestampConverterKey, TimestampConverterValue
from kconnect_transforms.timestamp_router import TimestampRouter
from kconnect_transforms.value_to_key import ValueToKey

if TYPE_CHECKING:
    from kconnect.plugin_host import PluginRegistry

TRANSFORMATIONS = (
    CastKey,
    CastValue,
    DropHeaders,
    ExtractFieldKey,
    ExtractFieldValue,
    Filter,
    FlattenKey,
    FlattenValue,
    HeaderFromKey,
    HeaderFromValue,
    HoistFieldKey,
    HoistFieldValue,
    InsertFieldKey,
    InsertFieldValue,
    InsertHeader,
    MaskFieldKey,
    MaskFieldValue,
    RegexRouter,
    ReplaceFieldKey,
    ReplaceFieldValue,
    SetSchemaMetadataKey,
    SetSchemaMetadataValue,
    TimestampConverterKey,
    TimestampConverterValue,
    TimestampRouter,
    ValueToKey,
)

PREDICATES = (HasHeaderKey, RecordIsTombstone, TopicNameMatches)


@hookimpl
def register_transforms(registry: PluginRegistry) -> None:
    """Register Kafka's transformations, each also found by its Python class name."""
    for cls in TRANSFORMATIONS:
        registry.add(cls, aliases=(cls.__name__,))


@hookimpl
def register_predicates(registry: PluginRegistry) -> None:
    """Register Kafka's predicates, each also found by its class name."""
    for cls in PREDICATES:
        registry.add(cls, aliases=(cls.__name__,))
