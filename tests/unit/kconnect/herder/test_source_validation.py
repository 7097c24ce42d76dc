"""A source connector's exactly-once keys (KIP-618) at validate and create time, as Kafka 4.3.1 answers.

The texts are those of Kafka's DistributedHerder; `tests/integration/test_exactly_once_validate_java.py`
runs the whole matrix against a Java Kafka Connect 4.3.1 worker and a kconnect worker. Here: the
rules one by one, without a worker.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import pytest
from kconnect import hookimpl
from kconnect.config.worker_keys import ExactlyOnceSourceSupport
from kconnect.errors import BadRequestError
from kconnect.herder import source_validation as rules
from kconnect.herder.validation import ConnectorValidator
from kconnect.plugin_host import PluginHost, PluginRegistry

from tests.connectors import ANSWER_EXACTLY_ONCE, ANSWER_TRANSACTION_BOUNDARIES, ExactlyOnceAnswers

DISABLED, PREPARING, ENABLED = ExactlyOnceSourceSupport
SOURCE = {"connector.class": "ExactlyOnceAnswers", "name": "eos", "tasks.max": "1"}
EOS, BOUNDARY = "exactly.once.support", "transaction.boundary"


class _Plugin:
    @hookimpl
    def register_connectors(self, registry: PluginRegistry) -> None:
        registry.add(ExactlyOnceAnswers, aliases=["ExactlyOnceAnswers"])


@pytest.fixture(scope="module")
def host() -> PluginHost:
    return PluginHost.load(extra_plugins=[_Plugin()])


def _errors(
    host: PluginHost, worker: ExactlyOnceSourceSupport | None, config: Mapping[str, str]
) -> dict[str, Any]:
    validator = ConnectorValidator(host, {}, exactly_once=worker)
    body = asyncio.run(validator.validate({**SOURCE, **config})).to_json()
    errors = {c["value"]["name"]: c["value"]["errors"] for c in body["configs"] if c["value"]["errors"]}
    assert body["error_count"] == sum(len(found) for found in errors.values())
    return errors


UNEXPECTED = "An unexpected error occurred during validation: cannot tell"
INVALID = (
    "Invalid value sometimes for configuration exactly.once.support: "
    "String must be one of (case insensitive): REQUIRED, REQUESTED"  # Java's HashSet order
)
OFFSETS = "offsets.storage.topic"


@pytest.mark.parametrize(
    ("worker", "config", "errors"),
    [
        (ENABLED, {}, {}),
        (ENABLED, {EOS: "requested"}, {}),
        (DISABLED, {EOS: "requested"}, {}),
        (ENABLED, {EOS: "Required", ANSWER_EXACTLY_ONCE: "SUPPORTED"}, {}),
        (ENABLED, {EOS: "required", ANSWER_EXACTLY_ONCE: "UNSUPPORTED"},
         {EOS: [rules.EXACTLY_ONCE_UNSUPPORTED]}),
        (ENABLED, {EOS: "required"}, {EOS: [rules.EXACTLY_ONCE_UNKNOWN]}),
        (ENABLED, {EOS: "required", ANSWER_EXACTLY_ONCE: "raise"},
         {EOS: [f"{UNEXPECTED} exactly-once support"]}),
        (PREPARING, {EOS: "required", ANSWER_EXACTLY_ONCE: "SUPPORTED"}, {EOS: [rules.NO_EXACTLY_ONCE]}),
        (DISABLED, {EOS: "required", ANSWER_EXACTLY_ONCE: "UNSUPPORTED"},
         {EOS: [rules.NO_EXACTLY_ONCE, rules.EXACTLY_ONCE_UNSUPPORTED]}),
        (DISABLED, {EOS: "sometimes"}, {EOS: [INVALID]}),
        (DISABLED, {BOUNDARY: "connector"}, {BOUNDARY: [rules.BOUNDARIES_NONE]}),
        (DISABLED, {BOUNDARY: "connector", ANSWER_TRANSACTION_BOUNDARIES: "SUPPORTED"}, {}),
        (ENABLED, {BOUNDARY: "CONNECTOR", ANSWER_TRANSACTION_BOUNDARIES: "UNSUPPORTED"},
         {BOUNDARY: [rules.BOUNDARIES_UNSUPPORTED]}),
        (ENABLED, {BOUNDARY: "connector", ANSWER_TRANSACTION_BOUNDARIES: "raise"},
         {BOUNDARY: [f"{UNEXPECTED} transaction boundaries"]}),
        (ENABLED, {BOUNDARY: "poll", "transaction.boundary.interval.ms": "500"}, {}),
        # A connector's own offsets topic is taken at any level, as Kafka's (KIP-618); blank is refused.
        (DISABLED, {OFFSETS: "eos-offsets"}, {}),
        (ENABLED, {OFFSETS: "eos-offsets"}, {}),
        # A standalone worker checks none of them, as Kafka's StandaloneHerder.
        (None, {EOS: "required", BOUNDARY: "connector", OFFSETS: "eos-offsets"}, {}),
    ],
)  # fmt: skip
def test_exactly_once_keys_are_checked_as_kafkas_distributed_herder_does(
    host: PluginHost,
    worker: ExactlyOnceSourceSupport | None,
    config: Mapping[str, str],
    errors: dict[str, list[str]],
) -> None:
    assert _errors(host, worker, config) == errors


def test_create_refuses_required_on_a_worker_without_exactly_once_with_kafkas_message(
    host: PluginHost,
) -> None:
    validator = ConnectorValidator(host, {}, exactly_once=PREPARING)
    with pytest.raises(BadRequestError) as refused:
        asyncio.run(validator.check({**SOURCE, EOS: "required", ANSWER_EXACTLY_ONCE: "SUPPORTED"}))
    assert str(refused.value) == (
        "Connector configuration is invalid and contains the following 1 error(s):\n"
        f"{rules.NO_EXACTLY_ONCE}\n"
        "You can also find the above list of errors at the endpoint `/connector-plugins/ExactlyOnceAnswers"
        "/config/validate`"
    )
