"""Topic creation by source connectors (KIP-158): group matching, the groups' keys and the admin calls.

The admin calls run against a fake admin client here (pure bookkeeping); the real broker is in
tests/integration/test_topic_creation.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest
from aiokafka.admin import NewTopic
from aiokafka.errors import KafkaConnectionError
from kconnect.config import ConfigException
from kconnect.config.topic_creation import TopicCreationSettings, topic_creation_groups, uses_topic_creation
from kconnect.config.worker_settings import WorkerSettings
from kconnect.errors import BadRequestError, ConnectError
from kconnect.herder.validation import ConnectorValidator
from kconnect.kafka.clients import admin_kwargs
from kconnect.kafka.topic_admin import TopicAdmin
from kconnect.plugin_host import PluginHost
from kconnect.runtime import topic_creation as runtime
from kconnect.runtime.batch_sender import SendAbandoned
from kconnect.runtime.topic_creation import TopicCreation, TopicCreationGroup, find_first_group
from kconnect.worker_config import ConfigFileError, WorkerConfig, topic_creation_enabled

BASE = {
    "topic.creation.default.replication.factor": "1",
    "topic.creation.default.partitions": "1",
}
MISSING_RF = (
    'Missing required configuration "topic.creation.default.replication.factor" which has no default value.'
)
MISSING_PARTITIONS = (
    'Missing required configuration "topic.creation.default.partitions" which has no default value.'
)
BAD_PARTITIONS = (
    "Invalid value 0 for configuration partitions: Number of partitions must be positive, or -1 to use the "
    "broker's default"
)
TWO_GROUPS = {
    **BASE,
    "topic.creation.groups": "compacted,wide",
    "topic.creation.compacted.include": "state-.*,config",
    "topic.creation.compacted.exclude": "state-tmp-.*",
    "topic.creation.compacted.cleanup.policy": "compact",
    "topic.creation.wide.include": ".*-events",
    "topic.creation.wide.partitions": "6",
    "topic.creation.wide.retention.ms": "3600000",
    "topic.creation.default.retention.ms": "60000",
}


def _groups(props: Mapping[str, str]) -> tuple[list[TopicCreationGroup], TopicCreationSettings]:
    settings = topic_creation_groups(props)
    return [TopicCreationGroup.of(group) for group in settings[:-1]], settings[-1]


# --- group matching ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("topic", "group"),
    [
        ("state-users", "compacted"),
        ("config", "compacted"),
        ("configs", "default"),  # include matches whole names only, as Java's matches()
        ("state-tmp-1", "default"),  # exclude wins over include
        ("click-events", "wide"),
        ("state-events", "compacted"),  # the first group listed that matches
        ("logs", "default"),
    ],
)
def test_a_topic_gets_the_first_group_it_matches_else_the_default(topic: str, group: str) -> None:
    groups, default = _groups(TWO_GROUPS)
    assert find_first_group(groups, default, topic).name == group


def test_a_group_without_include_takes_no_topic() -> None:
    groups, default = _groups(
        {**BASE, "topic.creation.groups": "idle", "topic.creation.idle.partitions": "3"}
    )
    assert find_first_group(groups, default, "anything").name == "default"


# --- the groups' settings --------------------------------------------------------------------------------


def test_groups_are_listed_in_order_with_the_default_last_and_inherit_its_counts() -> None:
    compact = {"cleanup.policy": "compact"}
    assert topic_creation_groups(TWO_GROUPS) == [
        TopicCreationSettings("compacted", ("state-.*", "config"), ("state-tmp-.*",), 1, 1, compact),
        TopicCreationSettings("wide", (".*-events",), (), 1, 6, {"retention.ms": "3600000"}),
        TopicCreationSettings("default", (".*",), (), 1, 1, {"retention.ms": "60000"}),
    ]  # fmt: skip


def test_default_listed_in_groups_and_the_default_groups_regexes_are_ignored() -> None:
    props = {**BASE, "topic.creation.groups": "default", "topic.creation.default.include": "x"}
    assert topic_creation_groups(props) == [TopicCreationSettings("default", (".*",), (), 1, 1, {})]


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"topic.creation.groups": "a"},
         MISSING_RF),
        ({**BASE, "topic.creation.default.partitions": "0"}, BAD_PARTITIONS),
        ({**BASE, "topic.creation.groups": "a", "topic.creation.a.replication.factor": "-2"},
         "Invalid value -2 for configuration replication.factor: Replication factor must be positive and not "
         "larger than the number of brokers in the Kafka cluster, or -1 to use the broker's default"),
        ({**BASE, "topic.creation.default.partitions": "many"},
         "Invalid value many for configuration topic.creation.default.partitions: Not a number of type INT"),
    ],
)  # fmt: skip
def test_a_bad_group_config_fails_with_kafkas_text(props: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigException) as failure:
        topic_creation_groups(props)
    assert failure.value.message == message


def test_any_topic_creation_key_means_the_connector_uses_topic_creation() -> None:
    assert uses_topic_creation({"topic.creation.groups": ""})
    assert not uses_topic_creation({"topic": "t", "topics.creation": "x"})


# --- validate answers -----------------------------------------------------------------------------------

SOURCE = {"connector.class": "FileStreamSource", "name": "src", "topic": "t", "file": "/tmp/in.txt"}


@pytest.fixture(scope="module")
def host() -> PluginHost:
    return PluginHost.load()


def _validate(host: PluginHost, config: Mapping[str, str], worker: Mapping[str, str] | None = None) -> Any:
    return asyncio.run(ConnectorValidator(host, worker or {}).validate(config)).to_json()


def _configs(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["definition"]["name"]: c for c in body["configs"] if c["definition"]}


def _errors(body: dict[str, Any]) -> dict[str, list[str]]:
    return {name: c["value"]["errors"] for name, c in _configs(body).items() if c["value"]["errors"]}


def test_a_source_without_topic_creation_keys_validates_as_in_kafka(host: PluginHost) -> None:
    body = _validate(host, SOURCE)
    assert not [name for name in _configs(body) if name.startswith("topic.creation.default")]
    assert body["error_count"] == 0


def test_the_default_counts_are_required_once_a_topic_creation_key_is_set(host: PluginHost) -> None:
    body = _validate(host, {**SOURCE, "topic.creation.groups": ""})
    assert _errors(body) == {
        "topic.creation.default.replication.factor": [MISSING_RF],
        "topic.creation.default.partitions": [MISSING_PARTITIONS],
    }
    assert body["error_count"] == 2


def test_groups_keys_carry_kafkas_groups_orders_and_defaults(host: PluginHost) -> None:
    body = _validate(host, {**SOURCE, **TWO_GROUPS})
    assert body["error_count"] == 0
    assert body["groups"][-3:] == [
        "default: default",
        "Topic Creation: compacted: Topic Creation: compacted",
        "Topic Creation: wide: Topic Creation: wide",
    ]
    configs = _configs(body)
    partitions = configs["topic.creation.compacted.partitions"]
    assert {
        k: partitions["definition"][k] for k in ("type", "required", "default_value", "group", "order")
    } == {
        "type": "INT",
        "required": False,
        "default_value": "1",  # the default group's value
        "group": "Topic Creation: compacted: Topic Creation: compacted",
        "order": 3,
    }
    assert (
        partitions["definition"]["display_name"] == "Partition Count for Topics in Topic Creation: compacted"
    )
    assert configs["topic.creation.default.replication.factor"]["definition"]["type"] == "SHORT"
    assert configs["topic.creation.default.replication.factor"]["definition"]["required"] is True
    assert configs["topic.creation.wide.partitions"]["value"]["value"] == "6"
    assert configs["topic.creation.default.include"]["definition"]["default_value"] == ".*"
    assert "topic.creation.compacted.cleanup.policy" not in configs  # topic configs go to the broker as is


def test_invalid_group_values_are_errors_of_their_keys(host: PluginHost) -> None:
    config = {
        **SOURCE,
        **TWO_GROUPS,
        "topic.creation.wide.partitions": "0",
        "topic.creation.compacted.include": "state-(",
        "topic.creation.default.replication.factor": "-5",
    }
    errors = _errors(_validate(host, config))
    assert errors["topic.creation.wide.partitions"] == [BAD_PARTITIONS]
    assert errors["topic.creation.default.replication.factor"] == [
        "Invalid value -5 for configuration replication.factor: Replication factor must be positive and not "
        "larger than the number of brokers in the Kafka cluster, or -1 to use the broker's default"
    ]
    [regex_error] = errors["topic.creation.compacted.include"]
    assert regex_error.startswith(
        "Invalid value [state-(] for configuration include: Syntax error in regular expression: "
    )
    assert set(errors) == {
        "topic.creation.wide.partitions",
        "topic.creation.compacted.include",
        "topic.creation.default.replication.factor",
    }


def test_duplicate_groups_are_kafkas_error(host: PluginHost) -> None:
    errors = _errors(_validate(host, {**SOURCE, **BASE, "topic.creation.groups": "a,b,a"}))
    assert errors == {
        "topic.creation.groups": [
            "Invalid value [a, b, a] for configuration topic.creation.groups: Duplicate alias provided."
        ]
    }


def test_minus_one_leaves_the_counts_to_the_broker(host: PluginHost) -> None:
    config = {
        **SOURCE,
        "topic.creation.default.replication.factor": "-1",
        "topic.creation.default.partitions": "-1",
    }
    assert _validate(host, config)["error_count"] == 0


def test_create_refuses_a_source_config_with_bad_topic_creation_keys(host: PluginHost) -> None:
    validator = ConnectorValidator(host, {})
    with pytest.raises(BadRequestError) as failure:
        asyncio.run(validator.check({**SOURCE, "topic.creation.default.partitions": "2"}))
    assert str(failure.value).splitlines()[:2] == [
        "Connector configuration is invalid and contains the following 1 error(s):",
        MISSING_RF,
    ]


def test_a_worker_without_topic_creation_does_not_check_the_keys(host: PluginHost) -> None:
    body = _validate(host, {**SOURCE, "topic.creation.groups": "a"}, {"topic.creation.enable": "false"})
    assert body["error_count"] == 0
    assert "topic.creation.default.partitions" not in _configs(body)


def test_sinks_have_no_topic_creation_keys(host: PluginHost) -> None:
    sink = {"connector.class": "FileStreamSink", "name": "s", "topics": "t", "topic.creation.groups": "a"}
    body = _validate(host, sink)
    assert "topic.creation.default.partitions" not in _configs(body)


# --- worker key and admin client settings -----------------------------------------------------------------


def test_the_worker_key_defaults_to_true_and_takes_kafkas_booleans() -> None:
    assert topic_creation_enabled({}) is True
    assert topic_creation_enabled({"topic.creation.enable": " FALSE "}) is False
    assert WorkerConfig.from_props({"topic.creation.enable": "false"}).topic_creation_enable is False
    with pytest.raises(ConfigFileError) as failure:
        WorkerConfig.from_props({"topic.creation.enable": "yes"}, "worker.properties")
    assert str(failure.value) == (
        "worker.properties: topic.creation.enable: Invalid value yes for configuration "
        "topic.creation.enable: Expected value to be either true or false"
    )


def test_admin_settings_come_from_the_worker_then_admin_then_the_connectors_overrides() -> None:
    worker = {
        "bootstrap.servers": "b1:9092",
        "request.timeout.ms": "1000",
        "admin.retry.backoff.ms": "50",
        "admin.request.timeout.ms": "2000",
        "producer.request.timeout.ms": "9",
    }
    connector = {"admin.override.request.timeout.ms": "3000", "admin.override.client.id": "mine"}
    assert admin_kwargs(worker, connector) == {
        "bootstrap_servers": "b1:9092",
        "request_timeout_ms": 3000,
        "retry_backoff_ms": 50,
        "client_id": "mine",
    }
    assert (
        admin_kwargs(worker, {"admin.override.bootstrap.servers": "b2:9092"})["bootstrap_servers"]
        == "b2:9092"
    )


# --- the admin calls, with a fake admin client -------------------------------------------------------------


@dataclass
class _Response:
    topic_errors: list[tuple[str, int, str]]


@dataclass
class FakeAdmin:
    """Topics the cluster has; answers create with per-topic codes (0 unless `codes` says otherwise)."""

    topics: set[str] = field(default_factory=set)
    codes: dict[str, int] = field(default_factory=dict)
    created: list[NewTopic] = field(default_factory=list)
    lists: int = 0
    failures: int = 0
    open: int = 0

    async def start(self) -> None:
        if self.failures:
            self.failures -= 1
            raise KafkaConnectionError("no broker")
        self.open += 1

    async def close(self) -> None:
        self.open -= 1

    async def list_topics(self) -> list[str]:
        self.lists += 1
        return sorted(self.topics)

    async def create_topics(
        self, new_topics: list[NewTopic], timeout_ms: int | None = None, validate_only: bool = False
    ) -> _Response:
        errors = []
        for topic in new_topics:
            code = self.codes.get(topic.name, 0)
            if code == 0:
                self.created.append(topic)
                self.topics.add(topic.name)
            errors.append((topic.name, code, "" if code == 0 else f"refused {topic.name}"))
        return _Response(errors)


def _creation(admin: FakeAdmin, props: Mapping[str, str] = TWO_GROUPS, **kwargs: Any) -> TopicCreation:
    return TopicCreation(
        topic_creation_groups(props), lambda: TopicAdmin(admin), task="Source task t-0", **kwargs
    )


def test_missing_topics_are_created_with_their_groups_settings_and_existing_ones_left_alone() -> None:
    admin = FakeAdmin(topics={"config"})
    creation = _creation(admin)
    asyncio.run(creation.ensure(["state-a", "config", "click-events", "logs", "state-a"]))
    made = {t.name: (t.num_partitions, t.replication_factor, t.topic_configs) for t in admin.created}
    assert made == {
        "state-a": (1, 1, {"cleanup.policy": "compact"}),
        "click-events": (6, 1, {"retention.ms": "3600000"}),
        "logs": (1, 1, {"retention.ms": "60000"}),
    }
    assert admin.open == 0  # closed after use


def test_each_topic_is_looked_up_once_per_task_run() -> None:
    admin = FakeAdmin()
    creation = _creation(admin)
    asyncio.run(creation.ensure(["a"]))
    asyncio.run(creation.ensure(["a"]))
    asyncio.run(creation.ensure(["a", "b"]))
    assert admin.lists == 2
    assert [t.name for t in admin.created] == ["a", "b"]


def test_already_exists_counts_as_found() -> None:
    admin = FakeAdmin(codes={"a": 36})
    creation = _creation(admin)
    asyncio.run(creation.ensure(["a"]))
    asyncio.run(creation.ensure(["a"]))
    assert admin.lists == 1


def test_broker_defaults_are_sent_as_minus_one() -> None:
    admin = FakeAdmin()
    props = {"topic.creation.default.replication.factor": "-1", "topic.creation.default.partitions": "-1"}
    asyncio.run(_creation(admin, props).ensure(["a"]))
    [topic] = admin.created
    assert (topic.num_partitions, topic.replication_factor) == (-1, -1)


@pytest.mark.parametrize(
    ("code", "message"),
    [
        (29, "Task failed to create new topic (name=a, numPartitions=1, replicationFactor=1, "
             "replicasAssignments=null, configs={retention.ms=60000}). Ensure that the task is authorized to "
             "create topics or that the topic exists and restart the task"),
        (40, "Unable to create topic(s) 'a': refused a"),
        (38, "Error while attempting to create/find topic(s) 'a': InvalidReplicationFactorError: refused a"),
    ],
)  # fmt: skip
def test_a_topic_neither_created_nor_found_fails_the_task_with_kafkas_text(code: int, message: str) -> None:
    with pytest.raises(ConnectError) as failure:
        asyncio.run(_creation(FakeAdmin(codes={"a": code})).ensure(["a"]))
    assert str(failure.value) == message


def test_an_unreachable_broker_is_tried_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runtime, "RETRY_BACKOFF_S", 0.0)
    admin = FakeAdmin(failures=2)
    asyncio.run(_creation(admin).ensure(["a"]))
    assert [t.name for t in admin.created] == ["a"]


def test_a_stopping_task_stops_waiting_for_the_broker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runtime, "RETRY_BACKOFF_S", 0.0)
    with pytest.raises(SendAbandoned):
        asyncio.run(_creation(FakeAdmin(failures=100), stopping=lambda: True).ensure(["a"]))


def test_the_broker_stays_silent_past_the_retry_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runtime, "RETRY_BACKOFF_S", 0.0)
    monkeypatch.setattr(runtime, "RETRY_TIMEOUT_S", 0.0)
    with pytest.raises(ConnectError, match="Error while attempting to create/find topic\\(s\\) 'a'"):
        asyncio.run(_creation(FakeAdmin(failures=100)).ensure(["a"]))


def _worker(props: Mapping[str, str]) -> WorkerSettings:
    return WorkerSettings.from_props(props)


def test_creation_is_off_without_topic_creation_keys_or_when_the_worker_disallows_it() -> None:
    assert not TopicCreation.for_task(_worker({}), {"topic": "t"}).enabled
    assert not TopicCreation.for_task(_worker({"topic.creation.enable": "false"}), TWO_GROUPS).enabled
    assert TopicCreation.for_task(_worker({"bootstrap.servers": "localhost:1"}), TWO_GROUPS).enabled
    asyncio.run(TopicCreation.for_task(_worker({}), {"topic": "t"}).ensure(["a"]))  # no admin client needed


def test_a_task_with_bad_topic_creation_keys_does_not_start() -> None:
    with pytest.raises(ConfigException, match=r"topic\.creation\.default\.partitions"):
        TopicCreation.for_task(_worker({}), {"topic.creation.default.replication.factor": "1"})
