"""Where the herder keeps what must outlive a request: connector configs, statuses and source offsets.

Each store is a Protocol in `base` (Kafka's names: ConfigBackingStore, StatusBackingStore,
OffsetBackingStore) with a memory twin (`memory`) and, for standalone workers, file twins
(`file_offsets`, `file_configs`) whose writes are atomic: a crash never leaves a half-written file.
Distributed workers use the Kafka twins (`kafka_configs`, `kafka_status`, `kafka_offsets`), each a
`kafka_store.KafkaBackedStore` on an internal topic read through a `kafka_log.KafkaBasedLog`; `topics`
creates and checks those topics (through `kconnect.kafka`: storage never imports `kconnect.runtime`),
`config_records` and `record_formats` hold their records' bytes (see ``docs/distributed.md``).
"""

from .base import (
    ClusterConfigState,
    ConfigBackingStore,
    OffsetBackingStore,
    StatusBackingStore,
    StoreError,
    StoreUnavailableError,
)
from .file_configs import FileConfigBackingStore
from .file_offsets import FileOffsetBackingStore
from .kafka_configs import KafkaConfigBackingStore
from .kafka_offsets import KafkaOffsetBackingStore
from .kafka_status import KafkaStatusBackingStore
from .memory import MemoryConfigBackingStore, MemoryOffsetBackingStore, MemoryStatusBackingStore
from .topics import InternalTopicError

__all__ = [
    "ClusterConfigState",
    "ConfigBackingStore",
    "FileConfigBackingStore",
    "FileOffsetBackingStore",
    "InternalTopicError",
    "KafkaConfigBackingStore",
    "KafkaOffsetBackingStore",
    "KafkaStatusBackingStore",
    "MemoryConfigBackingStore",
    "MemoryOffsetBackingStore",
    "MemoryStatusBackingStore",
    "OffsetBackingStore",
    "StatusBackingStore",
    "StoreError",
    "StoreUnavailableError",
]
