"""``connector.client.config.override.policy``: Kafka's policies and the override keys' validation."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from kconnect.config.client_properties import ClientKind
from kconnect.config.override_policy import (
    OverridePolicyError,
    clients_used,
    override_policy,
    validate_client_overrides,
)
from kconnect.worker_config import ConfigFileError, WorkerConfig

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


def test_an_unknown_policy_stops_the_worker_with_kafkas_message() -> None:
    with pytest.raises(OverridePolicyError) as unknown:
        override_policy({"connector.client.config.override.policy": "none"})
    assert str(unknown.value) == (
        "connector.client.config.override.policy: "
        f"Failed to find any class that implements interface {PACKAGE}.ConnectorClientConfigOverridePolicy "
        "and which name matches none"
    )


@pytest.mark.parametrize(
    ("allowlist", "message"),
    [
        ("linger.ms, linger.ms", "Configuration '{key}' values must not be duplicated."),
        ("linger.ms,,acks", "Configuration '{key}' values must not be empty."),
        ("linger.ms,", "Configuration '{key}' values must not be empty."),
        ("linger.ms, ,", "Configuration '{key}' values must not be duplicated."),
    ],
)
def test_an_allowlist_kafka_refuses_stops_the_worker_with_kafkas_message(
    allowlist: str, message: str
) -> None:
    key = "connector.client.config.override.allowlist"
    props = {**WORKER, "connector.client.config.override.policy": "Allowlist", key: allowlist}
    with pytest.raises(OverridePolicyError) as refused:
        override_policy(props)
    assert str(refused.value) == message.format(key=key)
    with pytest.raises(ConfigFileError) as at_start:
        WorkerConfig.from_props(props, "worker.properties")
    assert str(at_start.value) == f"worker.properties: {message.format(key=key)}"


def test_the_allowlist_is_read_only_by_the_allowlist_policy() -> None:
    props = {"connector.client.config.override.allowlist": "a,a"}
    assert override_policy(props).name == "All"
    assert override_policy({**props, "connector.client.config.override.policy": "None"}).name == "None"


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


def test_the_allowlist_holds_exact_names_not_prefixes_or_patterns() -> None:
    allowlist = {
        "connector.client.config.override.policy": "Allowlist",
        "connector.client.config.override.allowlist": "sasl., fetch.*, consumer.override.max.poll.records",
    }
    config = {
        "consumer.override.sasl.mechanism": "PLAIN",
        "consumer.override.fetch.min.bytes": "10",
        "consumer.override.max.poll.records": "10",
    }
    assert _errors(allowlist, config) == {
        "consumer.override.sasl.mechanism": [_message("Allowlist", "sasl.mechanism")],
        "consumer.override.fetch.min.bytes": [_message("Allowlist", "fetch.min.bytes")],
        "consumer.override.max.poll.records": [_message("Allowlist", "max.poll.records")],
    }


@pytest.mark.parametrize(
    ("props", "lines"),
    [
        (
            {},
            [
                (
                    logging.INFO,
                    "Setting up All Policy for ConnectorClientConfigOverride. "
                    "This will allow all client configurations to be overridden",
                )
            ],
        ),
        (
            {"connector.client.config.override.policy": "None"},
            [
                (
                    logging.INFO,
                    "Setting up None Policy for ConnectorClientConfigOverride. "
                    "This will disallow any client configuration to be overridden",
                )
            ],
        ),
        (
            {
                "connector.client.config.override.policy": "Allowlist",
                "connector.client.config.override.allowlist": "max.poll.records, sasl.jaas.config",
            },
            [
                (
                    logging.INFO,
                    "Setting up Allowlist policy for ConnectorClientConfigOverride. This will allow the "
                    "following client configurations to be overridden. [max.poll.records, sasl.jaas.config]",
                )
            ],
        ),
        (
            {"connector.client.config.override.policy": "Principal"},
            [
                (
                    logging.WARNING,
                    "The Principal ConnectorClientConfigOverridePolicy is deprecated, use the Allowlist "
                    "policy instead. To replicate the Principal policy behavior, set the "
                    "connector.client.config.override.allowlist configuration to "
                    '"security.protocol,sasl.mechanism,sasl.jaas.config"',
                ),
                (
                    logging.INFO,
                    "Setting up Principal policy for ConnectorClientConfigOverride. "
                    "This will allow `sasl` client configuration to be overridden.",
                ),
            ],
        ),
    ],
)
def test_the_worker_logs_kafkas_policy_set_up_lines_at_start(
    props: dict[str, str], lines: list[tuple[int, str]], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="kconnect.config.override_policy")
    WorkerConfig.from_props({**WORKER, **props})
    logged = [
        (r.levelno, r.getMessage()) for r in caplog.records if r.name == "kconnect.config.override_policy"
    ]
    assert logged == lines


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
