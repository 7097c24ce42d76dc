"""``connector.client.config.override.policy``: Kafka's policies and the override keys' validation."""

from __future__ import annotations

from typing import Any

import pytest
from kconnect.config.client_properties import ClientKind
from kconnect.config.override_policy import (
    OverridePolicyError,
    clients_used,
    override_policy,
    validate_client_overrides,
)

WORKER = {"bootstrap.servers": "127.0.0.1:9"}
PACKAGE = "org.apache.kafka.connect.connector.policy"


def _errors(policy_props: dict[str, str], config: dict[str, str], *, sink: bool = True) -> dict[str, Any]:
    worker = {**WORKER, **policy_props}
    infos, with_errors = validate_client_overrides(override_policy(worker), config, worker, sink=sink)
    result = {info.value.name: list(info.value.errors) for info in infos if info.value is not None}
    assert with_errors == sum(1 for errors in result.values() if errors)
    return result


def _message(policy: str, key: str) -> str:
    return f"The '{policy}' policy does not allow '{key}' to be overridden in the connector configuration."


@pytest.mark.parametrize(
    ("name", "policy"),
    [
        (None, "All"),
        ("All", "All"),
        ("NoneConnectorClientConfigOverridePolicy", "None"),
        (f"{PACKAGE}.PrincipalConnectorClientConfigOverridePolicy", "Principal"),
        (" Allowlist ", "Allowlist"),
    ],
)
def test_a_policy_is_named_by_alias_simple_or_full_class_name(name: str | None, policy: str) -> None:
    props = {} if name is None else {"connector.client.config.override.policy": name}
    assert override_policy(props).name == policy


def test_an_unknown_policy_or_a_duplicated_allowlist_stops_the_worker() -> None:
    with pytest.raises(OverridePolicyError, match="no ConnectorClientConfigOverridePolicy matches 'none'"):
        override_policy({"connector.client.config.override.policy": "none"})
    with pytest.raises(OverridePolicyError) as duplicated:
        override_policy(
            {
                "connector.client.config.override.policy": "Allowlist",
                "connector.client.config.override.allowlist": "linger.ms, linger.ms",
            }
        )
    assert str(duplicated.value) == (
        "Configuration 'connector.client.config.override.allowlist' values must not be duplicated."
    )


def test_the_none_policy_refuses_every_override_with_kafkas_message() -> None:
    config = {"topics": "t", "consumer.override.max.poll.records": "10", "consumer.override.client.id": "x"}
    assert _errors({"connector.client.config.override.policy": "None"}, config) == {
        "consumer.override.max.poll.records": [_message("None", "max.poll.records")],
        "consumer.override.client.id": [_message("None", "client.id")],
    }


def test_the_principal_policy_allows_only_the_sasl_keys() -> None:
    config = {
        "consumer.override.security.protocol": "SASL_PLAINTEXT",
        "consumer.override.sasl.mechanism": "PLAIN",
        "consumer.override.sasl.jaas.config": (
            'org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="p";'
        ),
        "consumer.override.fetch.min.bytes": "10",
    }
    errors = _errors({"connector.client.config.override.policy": "Principal"}, config)
    assert errors["consumer.override.fetch.min.bytes"] == [_message("Principal", "fetch.min.bytes")]
    assert [name for name, found in errors.items() if found] == ["consumer.override.fetch.min.bytes"]


def test_the_allowlist_policy_allows_the_listed_keys_and_none_by_default() -> None:
    config = {"consumer.override.max.poll.records": "10", "consumer.override.group.id": "other"}
    allowlist = {
        "connector.client.config.override.policy": "Allowlist",
        "connector.client.config.override.allowlist": "max.poll.records",
    }
    assert _errors(allowlist, config) == {
        "consumer.override.max.poll.records": [],
        "consumer.override.group.id": [_message("Allowlist", "group.id")],
    }
    empty = _errors({"connector.client.config.override.policy": "Allowlist"}, config)
    assert empty["consumer.override.max.poll.records"] == [_message("Allowlist", "max.poll.records")]


def test_an_allowed_override_kconnect_cannot_honour_is_an_error_of_its_key() -> None:
    config = {
        "consumer.override.interceptor.classes": "com.example.Interceptor",
        "consumer.override.no.such.key": "1",
        "consumer.override.max.poll.records": "ten",
        "consumer.override.security.protocol": "SASL_SSL",
    }
    errors = _errors({}, config)
    assert (
        "interceptor.classes is not supported by kconnect"
        in errors["consumer.override.interceptor.classes"][0]
    )
    assert errors["consumer.override.no.such.key"] == ["no.such.key is not a Kafka consumer configuration"]
    assert errors["consumer.override.max.poll.records"] == [
        "Invalid value ten for configuration max.poll.records: Not a number of type INT"
    ]
    # A SASL protocol without a JAAS line: reported against the missing key, under the connector's prefix.
    assert "is required with security.protocol SASL_SSL" in errors["consumer.override.sasl.jaas.config"][0]


def test_only_the_clients_a_connector_uses_are_validated_as_in_kafka() -> None:
    assert clients_used({}, sink=True) == (ClientKind.CONSUMER,)
    dlq = {"errors.deadletterqueue.topic.name": "dlq"}
    assert set(clients_used(dlq, sink=True)) == set(ClientKind)
    assert clients_used({}, sink=False) == (ClientKind.PRODUCER,)
    assert set(clients_used({"topic.creation.default.partitions": "1"}, sink=False)) == {
        ClientKind.PRODUCER,
        ClientKind.ADMIN,
    }
    none = {"connector.client.config.override.policy": "None"}
    assert _errors(none, {"producer.override.linger.ms": "5"}, sink=True) == {}, "a sink without a DLQ"


def test_an_override_entry_carries_kafkas_definition_under_the_prefix() -> None:
    worker = {**WORKER}
    infos, _ = validate_client_overrides(
        override_policy(worker), {"producer.override.sasl.jaas.config": "x"}, worker, sink=False
    )
    [info] = infos
    assert info.definition is not None
    assert (info.definition.name, info.definition.type) == ("producer.override.sasl.jaas.config", "PASSWORD")
    assert info.value is not None and info.value.value == "[hidden]"
