"""Fixtures shared by the registry converters' tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from confluent_kafka.schema_registry import SchemaRegistryClient


@pytest.fixture
def registry(schema_registry: Any) -> Iterator[SchemaRegistryClient]:
    """confluent-kafka's registry client (the oracle's) on the session registry."""
    client = SchemaRegistryClient({"url": schema_registry.url})
    yield client
    client.close()
