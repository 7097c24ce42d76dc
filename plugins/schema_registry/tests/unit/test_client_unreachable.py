"""A registry nobody answers at is a RetriableError (the task loops retry it), whatever HTTP library
confluent-kafka's client uses (httpx2 when installed, else httpx)."""

from __future__ import annotations

import socket

import pytest
from kconnect.errors import RetriableError
from kconnect_schema_registry.client import RegistryClient, SchemaText
from kconnect_schema_registry.config import RegistrySettings, serde_config_def


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def client() -> RegistryClient:
    props = {"schema.registry.url": f"http://127.0.0.1:{closed_port()}", "max.retries": "0"}
    return RegistryClient(RegistrySettings.from_parsed(serde_config_def().parse(props), props))


def test_a_refused_connection_reading_a_schema_is_retriable() -> None:
    registry = client()
    with pytest.raises(RetriableError, match=r"unreachable while reading schema id 7.*ConnectError"):
        registry.schema_by_id(7)
    registry.close()


def test_a_refused_connection_registering_a_schema_is_retriable_and_names_the_subject() -> None:
    registry = client()
    with pytest.raises(RetriableError, match=r"registering a schema under subject 'orders-value'"):
        registry.id_for("orders-value", SchemaText('"string"', "AVRO"))
    registry.close()
