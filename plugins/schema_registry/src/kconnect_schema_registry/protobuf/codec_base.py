"""What the Protobuf value encoders and decoders share: message classes and field lookups."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from kconnect.errors import DataError

Convert = Callable[[Any], Any]


def message_class(descriptor: Descriptor) -> type[Message]:
    """The Python message class of `descriptor`."""
    from google.protobuf import message_factory

    return message_factory.GetMessageClass(descriptor)


def is_map_entry(field: FieldDescriptor) -> bool:
    """Whether `field` is a real ``map<>`` field (its entry message has ``map_entry``)."""
    return field.message_type is not None and field.message_type.GetOptions().map_entry


def field_by_name(message: Descriptor, name: str) -> FieldDescriptor:
    """The field `name` of `message`; DataError naming both when there is none."""
    found = message.fields_by_name.get(name)
    if found is None:
        raise DataError(f"Cannot find field with name {name} in Protobuf message {message.full_name}")
    return found
