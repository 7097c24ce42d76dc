"""A Protobuf schema as the converter holds it: its file, its message, and a message class built once.

`ProtobufSchema` is the parsed schema type of the Protobuf `SchemaFormat`: the `FileDescriptorProto`
of the registered file (and of the files it references), the full name of the message the values
are written with, and, built lazily, a private descriptor pool, the message descriptor and its
message class. Well-known imports (``google/protobuf/*``, ``google/type/*``, Confluent's
``confluent/meta.proto`` and ``confluent/type/decimal.proto``) come from the ``*_pb2`` modules of
protobuf, googleapis-common-protos and confluent-kafka, as Confluent's registry resolves them
without references.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from confluent_kafka.schema_registry.confluent import meta_pb2
from confluent_kafka.schema_registry.confluent.type import decimal_pb2 as confluent_decimal_pb2
from google.protobuf import (
    any_pb2,
    api_pb2,
    descriptor_pb2,
    descriptor_pool,
    duration_pb2,
    empty_pb2,
    field_mask_pb2,
    message_factory,
    source_context_pb2,
    struct_pb2,
    timestamp_pb2,
    type_pb2,
    wrappers_pb2,
)
from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor
from google.protobuf.message import Message
from google.type import (
    calendar_period_pb2,
    color_pb2,
    date_pb2,
    datetime_pb2,
    dayofweek_pb2,
    decimal_pb2,
    expr_pb2,
    fraction_pb2,
    interval_pb2,
    latlng_pb2,
    localized_text_pb2,
    money_pb2,
    month_pb2,
    phone_number_pb2,
    postal_address_pb2,
    quaternion_pb2,
    timeofday_pb2,
)
from kconnect.errors import DataError

from kconnect_schema_registry.wire import encode_message_indexes

#: The modules defining each file Confluent's registry knows without a reference, by file name.
_KNOWN_MODULES: Mapping[str, ModuleType] = {
    module.DESCRIPTOR.name: module
    for module in (
        meta_pb2, confluent_decimal_pb2,
        any_pb2, api_pb2, descriptor_pb2, duration_pb2, empty_pb2, field_mask_pb2,
        source_context_pb2, struct_pb2, timestamp_pb2, type_pb2, wrappers_pb2,
        calendar_period_pb2, color_pb2, date_pb2, datetime_pb2, dayofweek_pb2, decimal_pb2, expr_pb2,
        fraction_pb2, interval_pb2, latlng_pb2, localized_text_pb2, money_pb2, month_pb2,
        phone_number_pb2, postal_address_pb2, quaternion_pb2, timeofday_pb2,
    )
}  # fmt: skip


def is_known_file(name: str) -> bool:
    """Whether `name` is a file the registry resolves without a reference (a well-known type)."""
    return name in _KNOWN_MODULES


def known_file(name: str) -> descriptor_pb2.FileDescriptorProto:
    """The `FileDescriptorProto` of the well-known file `name` (``google/protobuf/timestamp.proto``)."""
    module = _KNOWN_MODULES[name]
    proto = descriptor_pb2.FileDescriptorProto()
    module.DESCRIPTOR.CopyToProto(proto)
    return proto


def meta_extension(name: str) -> Any:
    """Confluent's ``confluent.<name>`` option extension (``field_meta``, ``message_meta``...)."""
    return getattr(meta_pb2, name)


def message_type_of(field: FieldDescriptor) -> Descriptor:
    """The message type of a message-typed field; DataError for any other field."""
    if field.message_type is None:
        raise DataError(f"Field {field.full_name} is not a message field")
    return field.message_type


def enum_type_of(field: FieldDescriptor) -> EnumDescriptor:
    """The enum type of an enum field; DataError for any other field."""
    if field.enum_type is None:
        raise DataError(f"Field {field.full_name} is not an enum field")
    return field.enum_type


def _known_serialized(name: str) -> bytes:
    return bytes(_KNOWN_MODULES[name].DESCRIPTOR.serialized_pb)


@dataclass(eq=False)
class ProtobufSchema:
    """One Protobuf message type of a registered file, with everything needed to read and write it.

    `file` is the registered file; `dependencies` the files it imports that are not well-known
    (referenced schemas), by name. `name` is the message's full name. The descriptor pool and the
    message class are built on first use and kept; `codecs` caches value encoders and decoders per
    Connect schema, so no schema work is done per record.
    """

    file: descriptor_pb2.FileDescriptorProto
    name: str
    dependencies: Mapping[str, descriptor_pb2.FileDescriptorProto] = field(default_factory=dict)
    codecs: dict[Any, Any] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _descriptor: Descriptor | None = field(default=None, repr=False)
    _message_class: type[Message] | None = field(default=None, repr=False)
    _indexes: bytes | None = field(default=None, repr=False)

    @property
    def descriptor(self) -> Descriptor:
        """The message descriptor, from a pool holding this file and its imports."""
        if self._descriptor is None:
            with self._lock:
                if self._descriptor is None:
                    self._descriptor = self._build_pool().FindMessageTypeByName(self.name)
        return self._descriptor

    @property
    def message_class(self) -> type[Message]:
        """The Python message class of the message type."""
        if self._message_class is None:
            self._message_class = message_factory.GetMessageClass(self.descriptor)
        return self._message_class

    @property
    def message_indexes(self) -> bytes:
        """The message indexes of the message in its file, as written before each payload."""
        if self._indexes is None:
            self._indexes = encode_message_indexes(message_indexes(self.file, self.name))
        return self._indexes

    def _build_pool(self) -> descriptor_pool.DescriptorPool:
        pool = descriptor_pool.DescriptorPool()
        added: set[str] = set()

        def add(proto: descriptor_pb2.FileDescriptorProto) -> None:
            for dependency in proto.dependency:
                if dependency in added:
                    continue
                if dependency in self.dependencies:
                    add(self.dependencies[dependency])
                elif is_known_file(dependency):
                    add_known(dependency)
                else:
                    raise DataError(f"Protobuf schema {self.name}: cannot resolve import {dependency!r}")
            added.add(proto.name)
            pool.AddSerializedFile(proto.SerializeToString())

        def add_known(name: str) -> None:
            proto = known_file(name)
            for dependency in proto.dependency:
                if dependency not in added:
                    add_known(dependency)
            added.add(name)
            pool.AddSerializedFile(_known_serialized(name))

        try:
            add(self.file)
        except TypeError as e:  # upb's error for a file it cannot build
            raise DataError(f"Invalid Protobuf schema {self.name}: {e}") from e
        return pool


def message_indexes(file: descriptor_pb2.FileDescriptorProto, full_name: str) -> list[int]:
    """The path of indexes to message `full_name` in `file` (top-level index, then nested ones)."""
    package = file.package
    relative = full_name[len(package) + 1 :] if package and full_name.startswith(package + ".") else full_name
    parts = relative.split(".")
    indexes: list[int] = []
    messages = file.message_type
    for part in parts:
        for index, message in enumerate(messages):
            if message.name == part:
                indexes.append(index)
                messages = message.nested_type
                break
        else:
            raise DataError(f"No message {full_name} in Protobuf file {file.name or '(unnamed)'}")
    return indexes


def message_name_at(file: descriptor_pb2.FileDescriptorProto, indexes: list[int]) -> str:
    """The full name of the message at `indexes` in `file` (the inverse of `message_indexes`)."""
    names = [file.package] if file.package else []
    messages = file.message_type
    for index in indexes:
        if not 0 <= index < len(messages):
            raise DataError(f"Invalid Protobuf message indexes {indexes} for file {file.name or '(unnamed)'}")
        names.append(messages[index].name)
        messages = messages[index].nested_type
    if not indexes:
        raise DataError("Empty Protobuf message indexes")
    return ".".join(names)
