"""Confluent's subject name strategies."""

from __future__ import annotations

import pytest
from kconnect.errors import DataError
from kconnect_schema_registry.subjects import (
    RECORD_NAME_STRATEGY,
    TOPIC_NAME_STRATEGY,
    TOPIC_RECORD_NAME_STRATEGY,
    subject_name,
)


@pytest.mark.parametrize(
    ("strategy", "is_key", "subject"),
    [
        (TOPIC_NAME_STRATEGY, False, "orders-value"),
        (TOPIC_NAME_STRATEGY, True, "orders-key"),
        ("TopicNameStrategy", False, "orders-value"),
        (RECORD_NAME_STRATEGY, False, "shop.Order"),
        (RECORD_NAME_STRATEGY, True, "shop.Order"),
        (TOPIC_RECORD_NAME_STRATEGY, False, "orders-shop.Order"),
        ("TopicRecordNameStrategy", True, "orders-shop.Order"),
    ],
)
def test_subject_per_strategy(strategy: str, is_key: bool, subject: str) -> None:
    assert subject_name(strategy, "orders", is_key, "shop.Order") == subject


def test_record_strategies_need_a_named_schema() -> None:
    with pytest.raises(DataError, match="RecordNameStrategy needs a named schema"):
        subject_name(RECORD_NAME_STRATEGY, "orders", False, None)
