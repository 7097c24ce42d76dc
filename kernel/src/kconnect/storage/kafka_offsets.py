"""Source offsets in the offsets topic (Kafka's KafkaOffsetBackingStore), readable by Java workers.

Keys are ``["<connector>",{source partition}]`` and values the offset's JSON, the bytes Java's
JsonConverter writes (`kconnect.kafka.offset_records`), so kconnect and Java Kafka Connect read each other's
offsets; a null value (tombstone) removes one. Reads first read the topic to the end, so they see
every offset committed before them by any worker; writes return once the broker acknowledged
every record (durable), and raise StoreError naming the topic otherwise. With
``exactly.once.source.support`` ``preparing`` or ``enabled`` the store reads ``read_committed``:
source tasks then write their offsets in their own transactions (`kconnect.runtime.exactly_once`).

Java looks an offset up by its key's exact bytes, and compaction keeps one record per exact key.
A partition written with keys in another order (a Java map's order) is still found here, by its
canonical form, and kconnect writes it again under the exact key bytes it was read with, so
updates and tombstones replace Java's records rather than adding others beside them.

A batch is not atomic across the topic's partitions (nor is it in Kafka): each record is stored
or not, and a failed `set` raises.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from kconnect.config.worker_keys import ExactlyOnceSourceSupport
from kconnect.kafka.offset_records import (
    RecordFormatError,
    offset_key,
    offset_value,
    parse_offset_key,
    parse_offset_value,
)
from kconnect.storage.base import SourceOffset, SourcePartition, partition_key
from kconnect.storage.kafka_store import KafkaBackedStore
from kconnect.worker_config import InternalTopicConfig

log = logging.getLogger(__name__)


class KafkaOffsetBackingStore(KafkaBackedStore):
    """An OffsetBackingStore on the offsets topic, shared by every worker of the cluster."""

    def __init__(self, worker_props: Mapping[str, str], topic: InternalTopicConfig) -> None:
        # Under exactly-once source support (or while preparing it) tasks write offsets in
        # transactions: an aborted or still open one must never be read as committed.
        eos = ExactlyOnceSourceSupport.from_props(worker_props) is not ExactlyOnceSourceSupport.DISABLED
        super().__init__(
            worker_props, topic, "source connector offsets", "connect-offsets", read_committed=eos
        )
        # connector -> canonical partition -> (the key's bytes as last read, offset)
        self._table: dict[str, dict[str, tuple[bytes, dict[str, Any]]]] = {}
        self._keys: dict[tuple[str, str], bytes] = {}  # every key ever read, tombstoned ones too

    async def get(self, connector: str, partitions: Sequence[SourcePartition]) -> list[SourceOffset | None]:
        """Read to the end, then the committed offsets of these partitions (None where none)."""
        await self._log.read_to_end()
        stored = self._table.get(connector, {})
        found = [stored.get(partition_key(p)) for p in partitions]
        return [None if entry is None else copy.deepcopy(entry[1]) for entry in found]

    async def set(
        self, connector: str, offsets: Sequence[tuple[SourcePartition, SourceOffset | None]]
    ) -> None:
        """Write these offsets (None: a tombstone) and wait for the broker's acknowledgement of each."""
        if not offsets:
            return
        await self._log.send_all(self.records(connector, offsets))

    def records(
        self, connector: str, offsets: Sequence[tuple[SourcePartition, SourceOffset | None]]
    ) -> list[tuple[bytes, bytes | None]]:
        """The (key, value) records that write these offsets: a partition read before keeps the exact
        key bytes it was read with, so the write replaces that record under compaction."""
        return [
            (self._keys.get((connector, partition_key(p))) or offset_key(connector, p), offset_value(o))
            for p, o in offsets
        ]

    async def partitions(self, connector: str) -> list[SourcePartition]:
        """Read to the end, then every partition of the connector with a committed offset."""
        await self._log.read_to_end()
        return [copy.deepcopy(_partition(key)) for key, _ in self._table.get(connector, {}).values()]

    async def remove(self, connector: str, partitions: Sequence[SourcePartition] | None = None) -> None:
        """Tombstone these partitions' offsets, or every partition of the connector when None."""
        targets = await self.partitions(connector) if partitions is None else list(partitions)
        await self.set(connector, [(p, None) for p in targets])
        await self._log.read_to_end()

    def _on_record(self, record: Any) -> None:
        if record.key is None:
            log.warning("Skipping offset record without a key at offset %d of %s", record.offset, self.topic)
            return
        try:
            connector, partition = parse_offset_key(record.key)
            offset = parse_offset_value(record.value)
        except RecordFormatError as exc:
            log.warning("Skipping record at offset %d of topic %s: %s", record.offset, self.topic, exc)
            return
        canonical = partition_key(partition)
        self._keys[(connector, canonical)] = bytes(record.key)
        stored = self._table.setdefault(connector, {})
        if offset is None:
            stored.pop(canonical, None)
            if not stored:
                del self._table[connector]
        else:
            stored[canonical] = (bytes(record.key), offset)


def _partition(key: bytes) -> dict[str, Any]:
    return parse_offset_key(key)[1]
