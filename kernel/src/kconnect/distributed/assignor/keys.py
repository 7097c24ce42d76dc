"""Connectors and tasks as sets of keys: what a round compares, without hashing ConnectorTaskIds.

A ConnectorTaskId is a frozen dataclass, so hashing or building one runs Python code. A round that
compares 100,000 tasks compares their ``(connector, task)`` tuples instead, hashed and ordered in C
as ConnectorTaskId's own order, and builds ConnectorTaskIds only for what it hands out anew.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from itertools import chain, repeat
from operator import attrgetter

from kconnect.distributed.protocol import EMPTY, ConnectorsAndTasks
from kconnect.model import ConnectorTaskId

TaskKey = tuple[str, int]
"""A task as ``(connector, task)``."""

task_key: Callable[[ConnectorTaskId], TaskKey] = attrgetter("connector", "task")
"""The key of one task."""


def task_keys(tasks: Iterable[ConnectorTaskId]) -> list[TaskKey]:
    """The keys of `tasks`, in their order."""
    return list(map(task_key, tasks))


def task_ids(keys: Iterable[TaskKey]) -> tuple[ConnectorTaskId, ...]:
    """ConnectorTaskIds of `keys`, in their order.

    Each is what ``ConnectorTaskId(connector, task)`` builds, built in C (``tuple.__new__``) without
    a Python call per id: the round in which a group forms builds one for every configured task.
    """
    return tuple(map(_NEW_ID, repeat(ConnectorTaskId), keys))


_NEW_ID: Callable[[type[ConnectorTaskId], TaskKey], ConnectorTaskId] = tuple.__new__


@dataclass(frozen=True)
class Keys:
    """A set of connectors and tasks by key, for membership tests that do not hash ConnectorTaskIds."""

    connectors: AbstractSet[str]
    tasks: AbstractSet[TaskKey]

    @classmethod
    def of(cls, work: ConnectorsAndTasks) -> Keys:
        """The keys of `work`."""
        return cls(frozenset(work.connectors), frozenset(map(task_key, work.tasks)))

    def __bool__(self) -> bool:
        return bool(self.connectors or self.tasks)

    def minus(self, other: Keys) -> Keys:
        """What of this set `other` does not hold."""
        return Keys(self.connectors - other.connectors, self.tasks - other.tasks)

    def plus(self, other: Keys) -> Keys:
        """What this set or `other` holds."""
        return Keys(self.connectors | other.connectors, self.tasks | other.tasks)

    def within(self, work: ConnectorsAndTasks, keys: Sequence[TaskKey] | None = None) -> ConnectorsAndTasks:
        """What of `work` is in this set, in `work`'s order; `keys` are its tasks' keys when known."""
        if not self:
            return EMPTY
        keep_c, keep_t = self.connectors, self.tasks
        keys = task_keys(work.tasks) if keys is None else keys
        return ConnectorsAndTasks(
            tuple(c for c in work.connectors if c in keep_c),
            tuple(t for t, key in zip(work.tasks, keys, strict=True) if key in keep_t),
        )

    def outside(self, work: ConnectorsAndTasks, keys: Sequence[TaskKey] | None = None) -> ConnectorsAndTasks:
        """What of `work` is not in this set, in `work`'s order; `keys` are its tasks' keys when known."""
        if not self:
            return work
        gone_c, gone_t = self.connectors, self.tasks
        keys = task_keys(work.tasks) if keys is None else keys
        return ConnectorsAndTasks(
            tuple(c for c in work.connectors if c not in gone_c),
            tuple(t for t, key in zip(work.tasks, keys, strict=True) if key not in gone_t),
        )

    def sorted(self) -> ConnectorsAndTasks:
        """This set as ConnectorsAndTasks, sorted."""
        return ConnectorsAndTasks(tuple(sorted(self.connectors)), task_ids(sorted(self.tasks)))


NO_KEYS = Keys(frozenset(), frozenset())
"""The empty set of keys."""


def concat(works: Iterable[ConnectorsAndTasks]) -> ConnectorsAndTasks:
    """Works known to be disjoint, one after the other (the one work itself when the others are empty)."""
    works = [w for w in works if not w.is_empty()]
    if len(works) <= 1:
        return works[0] if works else EMPTY
    return ConnectorsAndTasks(
        tuple(chain.from_iterable(w.connectors for w in works)),
        tuple(chain.from_iterable(w.tasks for w in works)),
    )


def union(works: Iterable[ConnectorsAndTasks]) -> ConnectorsAndTasks:
    """Works one after the other, each item once where first seen (a fold of `plus`, in one pass)."""
    connectors: dict[str, None] = {}
    tasks: dict[TaskKey, ConnectorTaskId] = {}
    for work in works:
        connectors.update(dict.fromkeys(work.connectors))
        for task in work.tasks:
            tasks.setdefault(task_key(task), task)
    return ConnectorsAndTasks(tuple(connectors), tuple(tasks.values()))
