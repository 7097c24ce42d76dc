"""Source offsets in one JSON file (``offset.storage.file.filename``), for standalone workers.

The file maps connector name to JSON-serialized partition to offset::

    {"my-source": {"{\"filename\":\"/tmp/in.txt\"}": {"position": 42}}}

Every committed batch rewrites the file atomically (`kconnect.storage.atomic_file`), so a crash
loses nothing already committed and never leaves a half-written file. The format is kconnect's
own: Java's serialized-map file cannot be read.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from kconnect.storage.atomic_file import read_json, write_json
from kconnect.storage.base import StoreError
from kconnect.storage.memory import MemoryOffsetBackingStore, OffsetTable

WHAT = "offsets (offset.storage.file.filename)"


class FileOffsetBackingStore(MemoryOffsetBackingStore):
    """Offsets kept in memory and written through to `path` on every commit."""

    def __init__(self, path: str | Path) -> None:
        super().__init__()
        self.path = Path(path)

    async def start(self) -> None:
        """Load the file (a missing file is empty); StoreError naming the file if it is corrupt."""
        self._table = await asyncio.to_thread(load_offsets, self.path)

    async def _persist(self, table: OffsetTable) -> None:
        await asyncio.to_thread(write_json, self.path, table)


def load_offsets(path: Path) -> OffsetTable:
    """Read and check an offsets file."""
    content = read_json(path, WHAT)
    if content is None:
        return {}
    if not isinstance(content, dict) or not all(
        isinstance(offsets, dict) and all(isinstance(o, dict) for o in offsets.values())
        for offsets in content.values()
    ):
        raise StoreError(f"{path}: the {WHAT} file is corrupt: expected {{connector: {{partition: offset}}}}")
    return {str(name): dict(offsets) for name, offsets in content.items()}
