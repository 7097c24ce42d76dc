"""The internal topics' policy: created at start-up when missing, refused when unfit.

`ensure_topic` runs before a Kafka-backed store reads its topic. A missing topic is created with
the configured partitions and replication factor and ``cleanup.policy=compact``. An existing topic
must be compacted only (``cleanup.policy=compact``, Kafka's ``verifyTopicCleanupPolicyOnlyCompact``),
and the config topic must have one partition; otherwise the worker refuses to start with an
`InternalTopicError` whose one-line message (Kafka's text) names the topic, the property and the fix.
The admin client and the broker's answers are `kconnect.kafka.topic_admin`'s (Kafka's TopicAdmin).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from aiokafka.errors import KafkaError

from kconnect.errors import ConnectError
from kconnect.kafka.clients import internal_kwargs
from kconnect.kafka.topic_admin import NOT_AUTHORIZED, TopicAdmin, new_topic

log = logging.getLogger(__name__)

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
    try:
        async with TopicAdmin.connect(internal_kwargs(worker_props)) as admin:
            created = await _create(admin, spec)
            if not created:
                await _verify_cleanup_policy(admin, spec)
            if spec.single_partition:
                await _verify_single_partition(admin, spec)
    except KafkaError as exc:
        raise InternalTopicError(
            f"Topic '{spec.name}' ({spec.config_key}) cannot be checked: {exc!r}"
        ) from exc
    return created


async def _create(admin: TopicAdmin, spec: TopicSpec) -> bool:
    topic = new_topic(spec.name, spec.partitions, spec.replication_factor, {"cleanup.policy": "compact"})
    for result in await admin.create([topic]):
        if result.created:
            log.info(
                "Created topic '%s' (%s) with %s partitions, replication factor %s, cleanup.policy=compact",
                spec.name, spec.config_key, spec.partitions, spec.replication_factor,
            )  # fmt: skip
            return True
        if result.existed:
            return False
        if result.code in NOT_AUTHORIZED:
            log.warning("Not allowed to create topic '%s'; assuming it exists: %s", spec.name, result.message)
            return False
        raise InternalTopicError(
            f"Unable to create topic '{spec.name}' ({spec.config_key}, {spec.partitions} partitions, "
            f"replication factor {spec.replication_factor}): {result.error}"
        )
    return False


async def _cleanup_policies(admin: TopicAdmin, spec: TopicSpec) -> set[str] | None:
    """The topic's cleanup policies; None while the broker does not know the topic yet."""
    configs = await admin.topic_configs(spec.name)
    if configs is None:
        return None
    policy = configs.get("cleanup.policy", "")
    return {p.strip().lower() for p in policy.split(",") if p.strip()}


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


async def _verify_cleanup_policy(admin: TopicAdmin, spec: TopicSpec) -> None:
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


async def _verify_single_partition(admin: TopicAdmin, spec: TopicSpec) -> None:
    # 0: not allowed to describe it, nothing to check, as in Kafka.
    count = await _known(spec, lambda: admin.partition_count(spec.name))
    if count > 1:
        raise InternalTopicError(
            f"Topic '{spec.name}' supplied via the '{spec.config_key}' property is required to have a single "
            f"partition in order to guarantee consistency of connector configurations, but found {count} "
            "partitions."
        )
