"""Confluent's ProtobufConverter (``io.confluent.connect.protobuf.ProtobufConverter``) for kconnect."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kconnect_schema_registry.protobuf.converter import ProtobufConverter

if TYPE_CHECKING:
    from kconnect_schema_registry.protobuf.format import ProtobufFormat

__all__ = ["ProtobufConverter", "ProtobufFormat"]


def __getattr__(name: str) -> Any:
    # The format is imported on first use: protobuf's runtime would cost every worker process
    # (which imports this package for the plugin's converter) time and memory otherwise.
    if name == "ProtobufFormat":
        from kconnect_schema_registry.protobuf.format import ProtobufFormat

        return ProtobufFormat
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
