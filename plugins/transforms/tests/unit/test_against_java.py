"""Kafka's own transformations and predicates, run by the Java oracle, against kconnect's.

Every case of `tests/java_oracle/cases.json` must give what Kafka 4.3.1 gave (recorded in
`java_expected.json`): the same records, the same errors with the same texts, the same config
validation messages and the same config keys.
"""

from __future__ import annotations

from typing import Any

import pytest
from kconnect.data.java_text import to_float32

from plugins.transforms.tests.unit import oracle

# Where a text holds a Java object's toString, only the start is compared: records print all
# their fields, and InsertField's insertion spec prints as a Java identity hash. The whole-value
# cast to string of a Timestamp is refused by the JsonConverter on both sides, in each one's words.
PREFIX_ONLY = {
    "timestamprouter-default": "Timestamp missing on record: ",
    "insertfield-static-no-value": (
        "Invalid value null for configuration static.value: No value specified for static field: "
    ),
    "cast-whole-value-string": "Invalid type for Timestamp, expected ",
}


# Casts to float32: Java writes a Float's own digits (JDK 17's Float.toString, which is not always
# the shortest), kconnect writes a schemaless float as a double; the 32-bit values must agree.
FLOAT32_VALUES = {"cast-numbers-map-float32", "cast-numbers-struct-float32"}


def _as_float32(value: Any) -> Any:
    if isinstance(value, float):
        return to_float32(value)
    if isinstance(value, dict):
        return {k: _as_float32(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_as_float32(v) for v in value]
    return value


def _same(actual: Any, expected: Any, case_id: str) -> None:
    if case_id in FLOAT32_VALUES:
        actual, expected = _as_float32(actual), _as_float32(expected)
    prefix = PREFIX_ONLY.get(case_id)
    if prefix is not None and isinstance(expected, dict) and "message" in expected:
        assert actual.get("error") == expected["error"]
        assert actual["message"].startswith(prefix) and expected["message"].startswith(prefix)
        return
    assert actual == expected


@pytest.mark.parametrize("case", oracle.CASES["transforms"], ids=lambda c: c["id"])
def test_transformation_matches_kafka(case: dict[str, Any]) -> None:
    expected = oracle.EXPECTED["transforms"][case["id"]]
    actual = oracle.run_transform(case)
    if "configure_error" in expected:
        assert actual == expected
        return
    assert "outputs" in actual, actual
    for got, want in zip(actual["outputs"], expected["outputs"], strict=True):
        _same(got, want, case["id"])


@pytest.mark.parametrize("case", oracle.CASES["predicates"], ids=lambda c: c["id"])
def test_predicate_matches_kafka(case: dict[str, Any]) -> None:
    assert oracle.run_predicate(case) == oracle.EXPECTED["predicates"][case["id"]]


@pytest.mark.parametrize("case", oracle.CASES["validations"], ids=lambda c: c["id"])
def test_config_validation_matches_kafka(case: dict[str, Any]) -> None:
    actual = oracle.run_validation(case)
    expected = oracle.EXPECTED["validations"][case["id"]]
    assert actual["validate"] == expected["validate"]
    if expected["configure_error"] is None:
        assert actual["configure_error"] is None
    else:
        _same(actual["configure_error"], expected["configure_error"], case["id"])


@pytest.mark.parametrize("java_name", oracle.CASES["config_defs"])
def test_config_keys_match_kafka(java_name: str) -> None:
    assert oracle.describe(java_name) == oracle.EXPECTED["config_defs"][java_name]
