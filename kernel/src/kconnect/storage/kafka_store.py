"""What the three Kafka-backed stores share: one internal topic, checked at start, read through a log.

`KafkaConfigBackingStore`, `KafkaStatusBackingStore` and `KafkaOffsetBackingStore` each keep their
own table of what they read and their own writes; this base owns the rest: the topic as the worker
config describes it (created or checked by `topics.ensure_topic` at `start`), the
`kafka_log.KafkaBasedLog` that reads it into the store's `_on_record`, and stopping and reading to
the end.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

from kconnect.storage.kafka_log import KafkaBasedLog
from kconnect.storage.topics import TopicSpec, ensure_topic
from kconnect.worker_config import InternalTopicConfig


class KafkaBackedStore(ABC):
    """A store on one internal topic: its spec, its log, and starting, stopping and reading it."""

    def __init__(
        self,
        worker_props: Mapping[str, str],
        topic: InternalTopicConfig,
        purpose: str,
        client_id: str,
        *,
        single_partition: bool = False,
        read_committed: bool = False,
    ) -> None:
        """The store of `topic` (from the worker config); nothing connects until `start`.

        `purpose` says what the topic holds, in Kafka's words, in its error messages; `client_id`
        names the log's clients; `single_partition` (the config topic) requires one partition;
        `read_committed` reads only what committed transactions wrote.
        """
        self._worker_props = worker_props
        partitions = 1 if single_partition else topic.partitions
        self._spec = TopicSpec(
            topic.name, topic.key, purpose, partitions, topic.replication_factor, single_partition
        )
        self._log = KafkaBasedLog(
            topic.name,
            worker_props,
            self._on_record,
            client_id=client_id,
            what=purpose,
            read_committed=read_committed,
        )

    @property
    def topic(self) -> str:
        """The topic's name."""
        return self._spec.name

    async def start(self) -> None:
        """Create or check the topic (InternalTopicError when unfit), then read it to the end."""
        await ensure_topic(self._worker_props, self._spec)
        await self._log.start()

    async def stop(self) -> None:
        """Stop reading and close the clients (records already handed to the log are still sent)."""
        await self._log.stop()

    async def read_to_end(self) -> None:
        """Return once every record written before the call is read into this store."""
        await self._log.read_to_end()

    @abstractmethod
    def _on_record(self, record: Any) -> None:
        """Fold one record of the topic into the store; the log's reader calls it in log order."""
