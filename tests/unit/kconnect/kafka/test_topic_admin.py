"""The topic admin's reading of the broker's answers, over a fake admin client (pure bookkeeping).

The real broker answers in tests/integration/test_kafka_stores.py (internal topics),
test_topic_creation.py (KIP-158) and test_error_handling.py (the dead letter queue).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import pytest
from aiokafka.admin import NewTopic
from aiokafka.errors import KafkaConnectionError
from kconnect.kafka.topic_admin import ErrorCode, TopicAdmin, TopicResult, new_topic


@dataclass
class _Answer:
    topic_errors: list[tuple[Any, ...]] = field(default_factory=list)
    resources: list[tuple[Any, ...]] = field(default_factory=list)


@dataclass
class FakeClient:
    topics: list[str] = field(default_factory=list)
    created: list[tuple[Any, ...]] = field(default_factory=list)
    described: list[dict[str, Any]] = field(default_factory=list)
    configs: list[tuple[Any, ...]] = field(default_factory=list)
    refuse_start: bool = False
    calls: list[str] = field(default_factory=list)

    async def start(self) -> None:
        self.calls.append("start")
        if self.refuse_start:
            raise KafkaConnectionError("no broker")

    async def close(self) -> None:
        self.calls.append("close")

    async def list_topics(self) -> list[str]:
        return self.topics

    async def create_topics(self, new_topics: list[NewTopic], **_: Any) -> _Answer:
        return _Answer(topic_errors=self.created)

    async def describe_topics(self, topics: list[str] | None = None) -> list[dict[str, Any]]:
        return self.described

    async def describe_configs(self, config_resources: list[Any], **_: Any) -> list[_Answer]:
        return [_Answer(resources=self.configs)]


def _run(client: FakeClient, job: Any) -> Any:
    async def main() -> Any:
        async with TopicAdmin(client) as admin:
            return await job(admin)

    return asyncio.run(main())


def test_each_topic_is_answered_created_existing_or_refused_with_kafkas_names() -> None:
    # CreateTopics v0 answers carry no message; later versions do, null when there is none.
    client = FakeClient(created=[("a", 0), ("b", 36, None), ("c", 38, "refused c")])
    results = _run(client, lambda admin: admin.create([new_topic("a", 1, 1)]))
    assert results == [TopicResult("a", 0), TopicResult("b", 36), TopicResult("c", 38, "refused c")]
    assert [(r.created, r.existed) for r in results] == [(True, False), (False, True), (False, False)]
    assert results[2].error == "InvalidReplicationFactorError: refused c"
    assert ErrorCode.TOPIC_ALREADY_EXISTS == 36


def test_existing_names_only_the_listed_topics_asked_for() -> None:
    assert _run(FakeClient(topics=["a", "b"]), lambda admin: admin.existing(["b", "c"])) == {"b"}


def test_the_client_is_closed_after_use_and_when_it_cannot_connect() -> None:
    client = FakeClient()
    _run(client, lambda admin: admin.existing([]))
    assert client.calls == ["start", "close"]
    refusing = FakeClient(refuse_start=True)
    with pytest.raises(KafkaConnectionError):
        _run(refusing, lambda admin: admin.existing([]))
    assert refusing.calls == ["start", "close"]


def test_broker_defaults_are_minus_one_without_replica_assignments() -> None:
    topic = new_topic("t", -1, 3, {"cleanup.policy": "compact"})
    assert (topic.num_partitions, topic.replication_factor, topic.topic_configs) == (
        -1,
        3,
        {"cleanup.policy": "compact"},
    )
    assert new_topic("t", 2, 3).topic_configs == {}


@pytest.mark.parametrize(
    ("resources", "expected"),
    [
        ([(3, "", 2, "t", [])], None),  # not known yet: ask again
        ([(0, "", 2, "t", [("cleanup.policy", "compact", False), ("segment.ms", None, False)])],
         {"cleanup.policy": "compact"}),
        ([(29, "denied", 2, "t", [("cleanup.policy", "delete", False)])], {}),  # not allowed to read
    ],
)  # fmt: skip
def test_topic_configs(resources: list[tuple[Any, ...]], expected: dict[str, str] | None) -> None:
    assert _run(FakeClient(configs=resources), lambda admin: admin.topic_configs("t")) == expected


@pytest.mark.parametrize(
    ("described", "expected"),
    [
        ([{"topic": "t", "error_code": 5, "partitions": []}], None),  # not known yet: ask again
        ([{"topic": "t", "error_code": 0, "partitions": [{}, {}]}], 2),
        ([{"topic": "t", "error_code": 29, "partitions": []}], 0),  # not allowed to describe it
        ([{"topic": "other", "error_code": 0, "partitions": [{}]}], None),
    ],
)
def test_partition_count(described: list[dict[str, Any]], expected: int | None) -> None:
    assert _run(FakeClient(described=described), lambda admin: admin.partition_count("t")) == expected
