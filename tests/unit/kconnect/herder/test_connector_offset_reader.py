"""A source connector's own offset reader reads the worker's offset store from the connector's thread."""

from __future__ import annotations

import asyncio
import functools

from kconnect.runtime.task_context import LoopOffsetReader
from kconnect.storage.memory import MemoryOffsetBackingStore


async def test_the_reader_answers_from_the_store_in_a_connector_thread() -> None:
    store = MemoryOffsetBackingStore()
    await store.start()
    await store.set("files", [({"filename": "a"}, {"position": 7})])
    await store.set("other", [({"filename": "b"}, {"position": 9})])
    reader = LoopOffsetReader(functools.partial(store.get, "files"), asyncio.get_running_loop())

    read = await asyncio.to_thread(reader.offsets, [{"filename": "a"}, {"filename": "b"}])

    assert read == [({"filename": "a"}, {"position": 7}), ({"filename": "b"}, None)]
    assert await asyncio.to_thread(reader.offset, {"filename": "a"}) == {"position": 7}
