"""What a round finds before it assigns: what the members run, and what changed since the last round."""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from itertools import chain
from typing import TypeVar

from kconnect.distributed.protocol import ConnectorsAndTasks

from .keys import Keys, TaskKey, task_ids, task_keys
from .state import ConfiguredKeys

T = TypeVar("T")


@dataclass(frozen=True)
class Running:
    """What the members run, by key: each member's task keys, everything, what runs on more than one."""

    task_keys: Mapping[str, list[TaskKey]]
    """Each member's task keys in its order, built once per round for every later test."""
    active: Keys
    duplicated: Keys

    @classmethod
    def of(cls, running: Mapping[str, ConnectorsAndTasks]) -> Running:
        """From each member's reported work."""
        keys = {m: task_keys(work.tasks) for m, work in running.items()}
        connectors = list(chain.from_iterable(w.connectors for w in running.values()))
        tasks = list(chain.from_iterable(keys.values()))
        active = Keys(set(connectors), set(tasks))
        duplicated = Keys(_repeated(connectors, active.connectors), _repeated(tasks, active.tasks))
        return cls(keys, active, duplicated)


def _repeated(items: list[T], distinct: AbstractSet[T]) -> set[T]:
    """The items that occur more than once; `distinct`, their set, tells by its size whether to look."""
    if len(distinct) == len(items):
        return set()
    seen: set[T] = set()
    repeated: set[T] = set()
    for item in items:
        (repeated if item in seen else seen).add(item)
    return repeated


@dataclass(frozen=True)
class Changes:
    """What changed since the previous round: deleted, lost (its worker left), created (both sorted)."""

    deleted: Keys
    lost: ConnectorsAndTasks
    created: ConnectorsAndTasks

    @classmethod
    def of(cls, previous: Keys, active: Keys, configured: ConfiguredKeys) -> Changes:
        """From what the previous round assigned, what runs now, and what is configured."""
        counts, configured_t = configured.task_counts, configured.tasks
        deleted = Keys(previous.connectors - counts.keys(), previous.tasks - configured_t)
        lost = previous.minus(active).minus(deleted)
        created_c = counts.keys() - previous.connectors - active.connectors
        created_t = configured_t - previous.tasks - active.tasks
        # Walk the created connectors' tasks in order rather than sort what may be every task.
        created = ConnectorsAndTasks(
            tuple(sorted(created_c)),
            task_ids(
                (c, i)
                for c in sorted({c for c, _ in created_t})
                for i in range(counts[c])
                if (c, i) in created_t
            ),
        )
        return cls(deleted, lost.sorted(), created)
