"""The internal topics: created at start-up when missing, refused when unfit (Kafka's TopicAdmin).

`ensure_topic` runs before a Kafka-backed store reads its topic. A missing topic is created with
the configured partitions and replication factor and ``cleanup.policy=compact``. An existing topic
must be compacted only (``cleanup.policy=compact``, Kafka's ``verifyTopicCleanupPolicyOnlyCompact``),
and the config topic must have one partition; otherwise the worker refuses to start with an
`InternalTopicError` whose one-line message (Kafka's text) names the topic, the property and the fix.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType
from aiokafka.errors import KafkaError, for_code

from kconnect.errors import ConnectError
from kconnect.kafka.clients import internal_kwargs

log = logging.getLogger(__name__)

_NO_ERROR, _TOPIC_EXISTS = 0, 36
_NOT_YET_KNOWN = {3, 5}  # UNKNOWN_TOPIC_OR_PARTITION, LEADER_NOT_AVAILABLE: metadata behind a creation
_NOT_PERMITTED = {29, 31}  # TOPIC_AUTHORIZATION_FAILED, CLUSTER_AUTHORIZATION_FAILED
_METADATA_RETRIES, _METADATA_BACKOFF_S = 100, 0.1
T = TypeVar("T")


class InternalTopicError(ConnectError):
    """An internal topic cannot be created or is unfit (wrong partitions, not compacted); names the topic."""


@dataclass(frozen=True)
class TopicSpec:
    """One internal topic as the worker config describes it."""

    name: str
    config_key: str
    """The worker property naming the topic (``config.storage.topic``...), for messages."""
    purpose: str
    """What the topic holds, in Kafka's words ("connector configurations"...)."""
    partitions: int
    replication_factor: int
    """-1: the broker's ``default.replication.factor``."""
    single_partition: bool = False


async def ensure_topic(worker_props: Mapping[str, str], spec: TopicSpec) -> bool:
    """Create the topic if missing, else check it; True if it was created.

    Raises InternalTopicError naming the topic when it cannot be created, is not compacted, or
    (the config topic) has more than one partition.
    """
    admin = AIOKafkaAdminClient(**internal_kwargs(worker_props))
    try:
        await admin.start()
        created = await _create(admin, spec)
        if not created:
            await _verify_cleanup_policy(admin, spec)
        if spec.single_partition:
            await _verify_single_partition(admin, spec)
    except KafkaError as exc:
        raise InternalTopicError(
            f"Topic '{spec.name}' ({spec.config_key}) cannot be checked: {exc!r}"
        ) from exc
    finally:
        await admin.close()
    return created


async def _create(admin: AIOKafkaAdminClient, spec: TopicSpec) -> bool:
    broker_default = spec.partitions == -1 or spec.replication_factor == -1
    topic = NewTopic(
        spec.name,
        spec.partitions,
        spec.replication_factor,
        # aiokafka wants replica assignments exactly when a count is left to the broker; none is fine.
        replica_assignments={} if broker_default else None,
        topic_configs={"cleanup.policy": "compact"},
    )
    response = await admin.create_topics([topic])
    for _name, code, message in response.topic_errors:
        if code == _NO_ERROR:
            log.info(
                "Created topic '%s' (%s) with %s partitions, replication factor %s, cleanup.policy=compact",
                spec.name, spec.config_key, spec.partitions, spec.replication_factor,
            )  # fmt: skip
            return True
        if code == _TOPIC_EXISTS:
            return False
        if code in _NOT_PERMITTED:
            log.warning("Not allowed to create topic '%s'; assuming it exists: %s", spec.name, message)
            return False
        raise InternalTopicError(
            f"Unable to create topic '{spec.name}' ({spec.config_key}, {spec.partitions} partitions, "
            f"replication factor {spec.replication_factor}): {for_code(code).__name__}: {message}"
        )
    return False


async def _cleanup_policies(admin: AIOKafkaAdminClient, spec: TopicSpec) -> set[str] | None:
    """The topic's cleanup policies; None while the broker does not know the topic yet."""
    responses = await admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, spec.name, None)])
    policies: set[str] = set()
    for response in responses:
        for code, _message, _type, _name, entries in response.resources:
            if code in _NOT_YET_KNOWN:
                return None
            for entry in entries if code == _NO_ERROR else ():
                if entry[0] == "cleanup.policy" and entry[1] is not None:
                    policies = {p.strip().lower() for p in entry[1].split(",") if p.strip()}
    return policies


async def _known(spec: TopicSpec, describe: Callable[[], Awaitable[T | None]]) -> T:
    """`describe()`'s answer once the broker knows the topic (its metadata may lag a creation)."""
    for _ in range(_METADATA_RETRIES):
        answer = await describe()
        if answer is not None:
            return answer
        log.debug("Topic '%s' not described yet; retrying", spec.name)
        await asyncio.sleep(_METADATA_BACKOFF_S)
    raise InternalTopicError(
        f"Topic '{spec.name}' ({spec.config_key}) exists but the broker did not describe it within "
        f"{_METADATA_RETRIES * _METADATA_BACKOFF_S:g} s"
    )


async def _verify_cleanup_policy(admin: AIOKafkaAdminClient, spec: TopicSpec) -> None:
    policies = await _known(spec, lambda: _cleanup_policies(admin, spec))
    if not policies:
        log.info(
            "Unable to verify that the cleanup policy of topic '%s' is 'compact' (cannot describe it)",
            spec.name,
        )
        return
    if policies != {"compact"}:
        found = ",".join(sorted(policies))
        raise InternalTopicError(
            f"Topic '{spec.name}' supplied via the '{spec.config_key}' property is required to have "
            f"'cleanup.policy=compact' to guarantee consistency and durability of {spec.purpose}, but found "
            f"the topic currently has 'cleanup.policy={found}'. Continuing would likely result in eventually "
            f"losing {spec.purpose} and problems restarting this Connect cluster in the future. Change the "
            f"'{spec.config_key}' property in the Connect worker configurations to use a topic with "
            "'cleanup.policy=compact'."
        )


async def _partition_count(admin: AIOKafkaAdminClient, spec: TopicSpec) -> int | None:
    """The topic's partition count; None while the broker does not know the topic yet."""
    for topic in await admin.describe_topics([spec.name]):
        if topic["topic"] != spec.name or topic["error_code"] in _NOT_YET_KNOWN:
            continue
        if topic["error_code"] != _NO_ERROR:
            return 0  # not allowed to describe it: nothing to check, as in Kafka
        return len(topic["partitions"]) or None
    return None


async def _verify_single_partition(admin: AIOKafkaAdminClient, spec: TopicSpec) -> None:
    count = await _known(spec, lambda: _partition_count(admin, spec))
    if count > 1:
        raise InternalTopicError(
            f"Topic '{spec.name}' supplied via the '{spec.config_key}' property is required to have a single "
            f"partition in order to guarantee consistency of connector configurations, but found {count} "
            "partitions."
        )
