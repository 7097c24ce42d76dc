"""Which consumer group a sink uses, and that the offsets API (KIP-875) acts on that group."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from kconnect.herder.offsets import AiokafkaAdmin, ConnectorOffsetsStore
from kconnect.kafka.clients import sink_group_id
from kconnect.model import ConnectorOffset
from kconnect.storage.memory import MemoryOffsetBackingStore
from kconnect.worker_config import WorkerConfig


@pytest.mark.parametrize(
    ("worker", "connector", "group"),
    [
        ({}, {}, "connect-orders"),
        ({"consumer.group.id": "all-sinks"}, {}, "all-sinks"),
        ({}, {"consumer.override.group.id": "custom"}, "custom"),
        ({"consumer.group.id": "all-sinks"}, {"consumer.override.group.id": "custom"}, "custom"),
        ({"group.id": "connect-cluster"}, {"group.id": "ignored"}, "connect-orders"),
    ],
)
def test_the_sink_group_is_picked_as_kafkas_worker_picks_it(
    worker: dict[str, str], connector: dict[str, str], group: str
) -> None:
    assert sink_group_id(worker, "orders", connector) == group


class RecordingAdmin:
    """A KafkaAdmin that keeps one group's offsets and records which group each call named."""

    def __init__(self) -> None:
        self.groups: dict[str, dict[tuple[str, int], int]] = {"custom": {("t", 0): 7}}
        self.calls: list[tuple[str, str]] = []

    async def cluster_id(self) -> str:
        return "cluster"

    async def list_offsets(self, group: str) -> dict[tuple[str, int], int]:
        self.calls.append(("list", group))
        return dict(self.groups.get(group, {}))

    async def alter_offsets(self, group: str, offsets: Mapping[tuple[str, int], int]) -> None:
        self.calls.append(("alter", group))
        self.groups.setdefault(group, {}).update(offsets)

    async def delete_group(self, group: str) -> None:
        self.calls.append(("delete", group))
        self.groups.pop(group, None)


class AcceptingSink:
    def alter_offsets(self, config: Mapping[str, str], offsets: Mapping[object, object]) -> bool:
        return True


async def test_read_alter_and_reset_act_on_the_group_the_config_names() -> None:
    admin = RecordingAdmin()
    configs_given: list[Mapping[str, str]] = []

    def admin_for(connector: Mapping[str, str]) -> RecordingAdmin:
        configs_given.append(connector)
        return admin

    store = ConnectorOffsetsStore(
        MemoryOffsetBackingStore(), admin_for, lambda name, config: sink_group_id({}, name, config)
    )
    config = {"consumer.override.group.id": "custom", "admin.override.sasl.mechanism": "SCRAM-SHA-512"}
    read = await store.read("s", True, config)
    assert [(o.partition, o.offset) for o in read.offsets] == [
        ({"kafka_topic": "t", "kafka_partition": 0}, {"kafka_offset": 7})
    ]
    change = [ConnectorOffset({"kafka_topic": "t", "kafka_partition": 0}, {"kafka_offset": 3})]
    await store.alter("s", config, AcceptingSink, True, change)
    assert admin.groups["custom"] == {("t", 0): 3}
    await store.reset_all("s", config, AcceptingSink, True)
    assert "custom" not in admin.groups
    assert {group for _call, group in admin.calls} == {"custom"}, "connect-s was never touched"
    assert configs_given and all(given == config for given in configs_given), (
        "every admin call is made with the connector's config, so its admin.override.* keys apply"
    )


def test_the_offsets_admin_applies_the_connectors_admin_overrides() -> None:
    # Kafka's Worker.adminConfigs: the worker's admin.* keys, then the connector's admin.override.*.
    worker = WorkerConfig.from_props({"bootstrap.servers": "b:9092", "admin.client.id": "worker-admin"})
    assert AiokafkaAdmin(worker)._admin_kwargs()["client_id"] == "worker-admin"
    overridden = AiokafkaAdmin(worker, {"admin.override.client.id": "orders-admin"})
    assert overridden._admin_kwargs()["client_id"] == "orders-admin"
