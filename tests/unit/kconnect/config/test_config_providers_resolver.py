"""The ``${provider:[path:]key}`` resolver (Kafka's ConfigTransformer): table-driven, with fake providers."""

from __future__ import annotations

from collections.abc import Collection, Mapping

import pytest
from kconnect.config import ConfigException
from kconnect.config.providers import ConfigData, ConfigProvider
from kconnect.config.providers_resolver import (
    has_variable,
    keys_with_variables,
    reverse_transform,
    transform,
    variables,
)


class DictProvider:
    """Answers from a dict of paths; records each call."""

    def __init__(self, paths: Mapping[str, Mapping[str, str]], ttl: int | None = None) -> None:
        self.paths = paths
        self.ttl = ttl
        self.calls: list[tuple[str, frozenset[str] | None]] = []

    def configure(self, configs: Mapping[str, str]) -> None:
        pass

    def get(self, path: str, keys: Collection[str] | None = None) -> ConfigData:
        self.calls.append((path, None if keys is None else frozenset(keys)))
        if path == "/broken":
            raise ConfigException(f"Could not read properties from file {path}")
        data = self.paths.get(path, {})
        wanted = data if keys is None else {k: v for k, v in data.items() if k in keys}
        return ConfigData(dict(wanted), self.ttl)

    def close(self) -> None:
        pass


FILE = {"/s/db.properties": {"user": "admin", "password": "s3cret", "a:b": "colon"}}
ENV = {"": {"HOME": "/home/k", "EMPTY": ""}}


def providers() -> dict[str, ConfigProvider]:
    return {"file": DictProvider(FILE), "env": DictProvider(ENV)}


@pytest.mark.parametrize(
    ("raw", "resolved"),
    [
        ("${file:/s/db.properties:password}", "s3cret"),
        ("${env:HOME}", "/home/k"),
        ("${env:EMPTY}", ""),
        ("jdbc://${file:/s/db.properties:user}@host/${env:HOME}", "jdbc://admin@host//home/k"),
        # Kafka's pattern: the path ends at the first colon that is followed by a key without '}'.
        ("${file:/s/db.properties:a:b}", "colon"),
        # Left exactly as written, as in Kafka: an unknown provider, a missing key, a missing file.
        ("${vault:/x:y}", "${vault:/x:y}"),
        ("${file:/s/db.properties:nope}", "${file:/s/db.properties:nope}"),
        ("${file:/missing:user}", "${file:/missing:user}"),
        ("${env:NOPE} and ${env:HOME}", "${env:NOPE} and /home/k"),
        ("no reference", "no reference"),
        ("$${env:HOME}", "$/home/k"),
        ("${}", "${}"),
    ],
)
def test_references_are_replaced_or_left_as_kafka_does(raw: str, resolved: str) -> None:
    assert transform(providers(), {"k": raw}).data == {"k": resolved}


def test_each_provider_is_asked_once_per_path_for_the_keys_referenced_there() -> None:
    file = DictProvider(FILE)
    config = {
        "a": "${file:/s/db.properties:user}",
        "b": "${file:/s/db.properties:password}/${file:/s/db.properties:user}",
        "c": None,
    }
    result = transform({"file": file}, config)
    assert file.calls == [("/s/db.properties", frozenset({"user", "password"}))]
    assert result.data == {"a": "admin", "b": "s3cret/admin", "c": None}


def test_ttls_are_reported_by_path_when_not_negative() -> None:
    config = {"a": "${file:/s/db.properties:user}", "b": "${env:HOME}"}
    assert transform({"file": DictProvider(FILE, ttl=500), "env": DictProvider(ENV)}, config).ttls == {
        "/s/db.properties": 500
    }
    assert transform({"file": DictProvider(FILE, ttl=-1)}, config).ttls == {}


def test_a_provider_error_propagates() -> None:
    with pytest.raises(ConfigException, match="Could not read properties from file /broken"):
        transform(providers(), {"a": "${file:/broken:x}"})


def test_variables_and_has_variable() -> None:
    assert [(v.provider, v.path, v.key) for v in variables("${env:HOME}-${file:/p:k}")] == [
        ("env", "", "HOME"),
        ("file", "/p", "k"),
    ]
    assert has_variable("x${env:A}y") and not has_variable("${env}") and not has_variable(None)
    assert keys_with_variables({"a": "${env:A}", "b": "plain", "c": None}) == {"a"}


def test_reverse_transform_puts_the_connectors_references_back_into_task_configs() -> None:
    raw = {"file": "${directory:/run/secrets:path}", "password": "${env:PW}", "topic": "t"}
    generated = [
        {"file": "/data/out.txt", "topic": "t", "task.class": "x.Task"},
        {"password": "resolved", "other": "resolved"},
    ]
    assert reverse_transform(raw, generated) == [
        {"file": "${directory:/run/secrets:path}", "topic": "t", "task.class": "x.Task"},
        {"password": "${env:PW}", "other": "resolved"},
    ]
