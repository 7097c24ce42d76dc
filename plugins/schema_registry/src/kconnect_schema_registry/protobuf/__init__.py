"""Confluent's ProtobufConverter (``io.confluent.connect.protobuf.ProtobufConverter``) for kconnect."""

from kconnect_schema_registry.protobuf.converter import ProtobufConverter, ProtobufFormat

__all__ = ["ProtobufConverter", "ProtobufFormat"]
