"""Connector configs, target states and task configs in one JSON file (``config.storage.file.filename``).

Beyond Java's standalone worker, which forgets everything at exit: with this key set, a connector
created through REST, or paused or stopped, is still there and in the same target state after a
restart. Writes are atomic (`kconnect.storage.atomic_file`). The file looks like::

    {"connectors": {"my-source": {"config": {...}, "target_state": "PAUSED", "tasks": [{...}]}}}
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from kconnect.model import TargetState
from kconnect.storage.atomic_file import read_json, write_json
from kconnect.storage.base import ClusterConfigState, StoreError
from kconnect.storage.memory import MemoryConfigBackingStore

WHAT = "connector configs (config.storage.file.filename)"


class FileConfigBackingStore(MemoryConfigBackingStore):
    """Configs kept in memory and written through to `path` on every change."""

    def __init__(self, path: str | Path) -> None:
        super().__init__()
        self.path = Path(path)

    async def start(self) -> None:
        """Load the file (a missing file is empty); StoreError naming the file if it is corrupt."""
        self._state = await asyncio.to_thread(load_configs, self.path)

    async def _persist(self, state: ClusterConfigState) -> None:
        await asyncio.to_thread(write_json, self.path, dump_configs(state))


def dump_configs(state: ClusterConfigState) -> dict[str, Any]:
    """The file's JSON content for a snapshot."""
    return {
        "connectors": {
            name: {
                "config": dict(config),
                "target_state": state.target_state(name).value,
                "tasks": [dict(t) for t in state.task_configs.get(name, ())],
            }
            for name, config in state.connector_configs.items()
        }
    }


def load_configs(path: Path) -> ClusterConfigState:
    """Read and check a configs file."""
    content = read_json(path, WHAT)
    if content is None:
        return ClusterConfigState()
    connectors = content.get("connectors") if isinstance(content, dict) else None
    if not isinstance(connectors, dict):
        raise StoreError(f'{path}: the {WHAT} file is corrupt: expected {{"connectors": {{...}}}}')
    configs: dict[str, dict[str, str]] = {}
    targets: dict[str, TargetState] = {}
    tasks: dict[str, tuple[dict[str, str], ...]] = {}
    for name, entry in connectors.items():
        try:
            configs[name] = _string_map(entry["config"])
            targets[name] = TargetState(entry.get("target_state", "STARTED"))
            task_list = tuple(_string_map(t) for t in entry.get("tasks", []))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise StoreError(f"{path}: the {WHAT} file is corrupt: connector {name!r}: {exc!r}") from exc
        if task_list:
            tasks[name] = task_list
    return ClusterConfigState(configs, targets, tasks)


def _string_map(value: Any) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise TypeError("expected an object of strings")
    return {str(k): v for k, v in value.items()}
