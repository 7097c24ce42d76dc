"""Source offsets of a distributed worker, in a connector's own topic when it names one (KIP-618).

A source connector's ``offsets.storage.topic`` gives it an offsets topic of its own (Kafka's
``ConnectorOffsetBackingStore``). kconnect does as Kafka does:

* **reads** look in the connector's topic first; a partition with no offset there falls back to
  the worker's ``offset.storage.topic`` (so a connector given its own topic later resumes where it
  was);
* **writes** go to the connector's topic; tombstones are written to the worker's topic *first*
  (else a partition removed from the connector's topic would fall back to the stale offset still in
  the worker's), and after the connector's topic took the batch, its non-null offsets are copied to
  the worker's topic on a best-effort basis (a failure there is logged, not raised, as in Kafka);
* a connector whose topic is the worker's own, or that names none, uses the worker's store alone.

A connector's topic is created at first use with the worker's offsets topic settings (partitions,
replication factor, ``cleanup.policy=compact``), and read with the worker's clients (a connector's
client overrides do not reach these reads: docs/differences.md).

`set_in_transaction` is KIP-875's alter and reset under exactly-once source support: the
offsets are written by a transactional producer whose start fences out the producer of the same
``transactional.id`` (the connector's task 0), in one transaction, as Kafka's
``Worker.modifySourceConnectorOffsets`` does.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kconnect.config.connector_keys import OFFSETS_TOPIC_CONFIG, connector_offsets_topic
from kconnect.kafka.clients import TransactionalProducerClient, create_producer
from kconnect.storage.base import SourceOffset, SourcePartition, StoreError, partition_key
from kconnect.storage.kafka_offsets import KafkaOffsetBackingStore
from kconnect.worker_config import InternalTopicConfig

log = logging.getLogger(__name__)

Offsets = Sequence[tuple[SourcePartition, SourceOffset | None]]
#: A connector's stored config by name (None once it is deleted).
ConfigOf = Callable[[str], Mapping[str, str] | None]
#: How long a transactional offsets write may take in all (Kafka's REST request timeout, 90 s).
TRANSACTION_TIMEOUT_S = 90.0


class ConnectorOffsetStores:
    """A distributed worker's OffsetBackingStore: the worker's offsets topic, plus each connector's own.

    `config_of` gives a connector's current config (the worker's config topic as read), so each call
    routes by what the connector names now.
    """

    def __init__(
        self,
        worker_props: Mapping[str, str],
        worker_topic: InternalTopicConfig,
        config_of: ConfigOf,
        worker_store: KafkaOffsetBackingStore | None = None,
    ) -> None:
        """`worker_store` (a test's) defaults to the store of `worker_topic`."""
        self._props = worker_props
        self._worker_topic = worker_topic
        self._config_of = config_of
        self.worker = worker_store or KafkaOffsetBackingStore(worker_props, worker_topic)
        self._stores: dict[str, KafkaOffsetBackingStore] = {}
        self._starting: dict[str, asyncio.Lock] = {}
        self._copies: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        """Read the worker's offsets topic (connector topics are read at first use)."""
        await self.worker.start()

    async def stop(self) -> None:
        """Wait for copies to the worker's topic still under way, then stop every store."""
        if self._copies:
            await asyncio.gather(*self._copies, return_exceptions=True)
        for store in [*self._stores.values(), self.worker]:
            await store.stop()

    def topic(self, connector: str) -> str:
        """The topic the connector's offsets are written to."""
        return connector_offsets_topic(self._config_of(connector)) or self._worker_topic.name

    async def own_store(self, connector: str) -> KafkaOffsetBackingStore | None:
        """The store of the connector's own topic, started; None when it uses the worker's topic."""
        topic = self.topic(connector)
        if topic == self._worker_topic.name:
            return None
        store = self._stores.get(topic)
        if store is not None:
            return store
        async with self._starting.setdefault(topic, asyncio.Lock()):
            if topic not in self._stores:
                spec = InternalTopicConfig(
                    OFFSETS_TOPIC_CONFIG,
                    topic,
                    self._worker_topic.partitions,
                    self._worker_topic.replication_factor,
                )
                store = KafkaOffsetBackingStore(self._props, spec)
                await store.start()
                log.info("Reading the offsets of connector %s from its own topic %s", connector, topic)
                self._stores[topic] = store
        return self._stores[topic]

    async def get(self, connector: str, partitions: Sequence[SourcePartition]) -> list[SourceOffset | None]:
        """The connector topic's offsets, the worker topic's where it has none."""
        own = await self.own_store(connector)
        if own is None:
            return await self.worker.get(connector, partitions)
        found = await own.get(connector, partitions)
        missing = [i for i, offset in enumerate(found) if offset is None]
        if missing:
            fallback = await self.worker.get(connector, [partitions[i] for i in missing])
            for i, offset in zip(missing, fallback, strict=True):
                found[i] = offset
        return found

    async def set(self, connector: str, offsets: Offsets) -> None:
        """Tombstones to the worker's topic first, then all to the connector's, then a best-effort copy
        of the non-null offsets to the worker's (see the module's docstring)."""
        own = await self.own_store(connector)
        if own is None:
            await self.worker.set(connector, offsets)
            return
        await self._tombstones_first(connector, offsets)
        await own.set(connector, offsets)
        self._copy_to_worker(connector, offsets)

    async def set_in_transaction(
        self, connector: str, config: Mapping[str, str], offsets: Offsets, transactional_id: str
    ) -> None:
        """Write the offsets in one transaction of a producer of `transactional_id` (its start fences the
        id's earlier producer); with the connector's producer settings, as Kafka's task producers.

        Raises StoreError naming the topic and the id when the transaction could not be committed;
        then nothing of it is visible to ``read_committed`` readers.
        """
        if not offsets:
            return
        own = await self.own_store(connector)
        store = own or self.worker
        if own is not None:
            await self._tombstones_first(connector, offsets)
        producer: Any = create_producer(self._props, config, transactional_id)
        transactional: TransactionalProducerClient = producer
        try:
            await asyncio.wait_for(
                _write_transaction(transactional, store.topic, store.records(connector, offsets)),
                TRANSACTION_TIMEOUT_S,
            )
        except Exception as exc:
            raise StoreError(
                f"Could not write the offsets of connector {connector} to topic {store.topic} in a "
                f"transaction (transactional.id {transactional_id}): {exc!r}"
            ) from exc
        await store.read_to_end()
        if own is not None:
            self._copy_to_worker(connector, offsets)

    async def partitions(self, connector: str) -> list[SourcePartition]:
        """Every partition with an offset in the connector's topic or the worker's."""
        found = await self.worker.partitions(connector)
        own = await self.own_store(connector)
        if own is not None:
            seen = {partition_key(p) for p in found}
            found += [p for p in await own.partitions(connector) if partition_key(p) not in seen]
        return found

    async def remove(self, connector: str, partitions: Sequence[SourcePartition] | None = None) -> None:
        """Tombstone these partitions' offsets (every partition of the connector when None) in both topics."""
        targets = await self.partitions(connector) if partitions is None else list(partitions)
        await self.set(connector, [(p, None) for p in targets])
        own = await self.own_store(connector)
        if own is not None:
            await own.read_to_end()
        await self.worker.read_to_end()

    async def _tombstones_first(self, connector: str, offsets: Offsets) -> None:
        tombstones = [(p, o) for p, o in offsets if o is None]
        if tombstones:
            await self.worker.set(connector, tombstones)

    def _copy_to_worker(self, connector: str, offsets: Offsets) -> None:
        values = [(p, o) for p, o in offsets if o is not None]
        if not values:
            return
        copy = asyncio.ensure_future(self.worker.set(connector, values))
        self._copies.add(copy)
        copy.add_done_callback(lambda done: self._copied(connector, done))

    def _copied(self, connector: str, done: asyncio.Task[None]) -> None:
        self._copies.discard(done)
        if not done.cancelled() and done.exception() is not None:
            log.warning(
                "Failed to copy the offsets of connector %s to the worker's offsets topic %s: %s",
                connector, self._worker_topic.name, done.exception(),
            )  # fmt: skip


async def _write_transaction(
    producer: TransactionalProducerClient, topic: str, records: Sequence[tuple[bytes, bytes | None]]
) -> None:
    await producer.start()  # InitProducerId: fences the id's earlier producer, aborts what it left open
    try:
        await producer.begin_transaction()
        for key, value in records:
            await producer.send(topic, value=value, key=key)
        await producer.commit_transaction()
    finally:
        await producer.stop()
