"""Client settings from Kafka's property names: Connect's producer defaults and the delivery policy."""

from __future__ import annotations

import re

import pytest
from kconnect.kafka.clients import (
    CONNECT_DELIVERY_TIMEOUT_MS,
    DeliveryPolicy,
    create_producer,
    delivery_policy,
    producer_kwargs,
)

WORKER = {"bootstrap.servers": "127.0.0.1:9"}


def test_connect_retries_a_retriable_error_without_end_by_default() -> None:
    policy = delivery_policy(WORKER, {})
    assert policy == DeliveryPolicy(CONNECT_DELIVERY_TIMEOUT_MS, 2**31 - 1)
    assert producer_kwargs(WORKER, {})["request_timeout_ms"] == 30_000, "Java's default, not aiokafka's 40 s"


def test_connector_overrides_win_over_worker_producer_keys() -> None:
    worker = {**WORKER, "producer.delivery.timeout.ms": "60000", "producer.request.timeout.ms": "5000"}
    policy = delivery_policy(worker, {"producer.override.delivery.timeout.ms": "9000"})
    assert policy.delivery_timeout_ms == 9000
    assert policy.batch_ttl_s == 9.0


def test_retries_zero_fails_a_batch_on_its_first_error() -> None:
    assert delivery_policy({**WORKER, "producer.retries": "0"}, {}).batch_ttl_s == 0.0


@pytest.mark.parametrize(
    ("props", "message"),
    [
        (
            {"producer.delivery.timeout.ms": "1000", "producer.request.timeout.ms": "3000"},
            "delivery.timeout.ms should be equal to or larger than linger.ms + request.timeout.ms",
        ),
        ({"producer.retries": "many"}, "producer setting retries: invalid value 'many'"),
        (
            {"producer.max.in.flight.requests.per.connection": "0"},
            "max.in.flight.requests.per.connection: value 0 must be at least 1",
        ),
    ],
)
def test_a_value_javas_producer_refuses_is_refused_naming_it(props: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        delivery_policy({**WORKER, **props}, {})


async def test_the_producer_keeps_a_batch_for_the_delivery_timeout_not_one_request() -> None:
    """aiokafka gives up on a batch after request_timeout_ms; the producer kconnect makes must not."""
    producer = create_producer({**WORKER, "producer.delivery.timeout.ms": "45000"}, {})
    assert producer._message_accumulator._batch_ttl == 45.0  # type: ignore[attr-defined]
