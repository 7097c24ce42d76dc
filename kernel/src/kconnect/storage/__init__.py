"""Where the herder keeps what must outlive a request: connector configs, statuses and source offsets.

Each store is a Protocol in `base` (Kafka's names: ConfigBackingStore, StatusBackingStore,
OffsetBackingStore) with a memory twin (`memory`) and, for standalone workers, file twins
(`file_offsets`, `file_configs`) whose writes are atomic: a crash never leaves a half-written file.
"""

from .base import (
    ClusterConfigState,
    ConfigBackingStore,
    OffsetBackingStore,
    StatusBackingStore,
    StoreError,
)
from .file_configs import FileConfigBackingStore
from .file_offsets import FileOffsetBackingStore
from .memory import MemoryConfigBackingStore, MemoryOffsetBackingStore, MemoryStatusBackingStore

__all__ = [
    "ClusterConfigState",
    "ConfigBackingStore",
    "FileConfigBackingStore",
    "FileOffsetBackingStore",
    "MemoryConfigBackingStore",
    "MemoryOffsetBackingStore",
    "MemoryStatusBackingStore",
    "OffsetBackingStore",
    "StatusBackingStore",
    "StoreError",
]
