"""Connectors and tasks as sets: what a round compares, each set built in one pass in C.

A ConnectorTaskId is a ``(connector, task)`` tuple, hashed, compared and ordered in C, so a round
that compares 100,000 tasks puts the ids themselves in sets, and builds ids in bulk only for what
it hands out anew.
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from itertools import chain, filterfalse

from kconnect.distributed.protocol import EMPTY, ConnectorsAndTasks
from kconnect.model import ConnectorTaskId


@dataclass(frozen=True)
class Keys:
    """A set of connectors and tasks, for membership tests."""

    connectors: AbstractSet[str]
    tasks: AbstractSet[ConnectorTaskId]

    @classmethod
    def of(cls, work: ConnectorsAndTasks) -> Keys:
        """The set of `work`."""
        return cls(frozenset(work.connectors), frozenset(work.tasks))

    def __bool__(self) -> bool:
        return bool(self.connectors or self.tasks)

    def minus(self, other: Keys) -> Keys:
        """What of this set `other` does not hold."""
        return Keys(self.connectors - other.connectors, self.tasks - other.tasks)

    def plus(self, other: Keys) -> Keys:
        """What this set or `other` holds."""
        return Keys(self.connectors | other.connectors, self.tasks | other.tasks)

    def within(self, work: ConnectorsAndTasks) -> ConnectorsAndTasks:
        """What of `work` is in this set, in `work`'s order."""
        if not self:
            return EMPTY
        return ConnectorsAndTasks(
            tuple(filter(self.connectors.__contains__, work.connectors)),
            tuple(filter(self.tasks.__contains__, work.tasks)),
        )

    def outside(self, work: ConnectorsAndTasks) -> ConnectorsAndTasks:
        """What of `work` is not in this set, in `work`'s order."""
        if not self:
            return work
        return ConnectorsAndTasks(
            tuple(filterfalse(self.connectors.__contains__, work.connectors)),
            tuple(filterfalse(self.tasks.__contains__, work.tasks)),
        )

    def sorted(self) -> ConnectorsAndTasks:
        """This set as ConnectorsAndTasks, sorted."""
        return ConnectorsAndTasks(tuple(sorted(self.connectors)), tuple(sorted(self.tasks)))


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
    works = list(works)
    return ConnectorsAndTasks(
        tuple(dict.fromkeys(chain.from_iterable(w.connectors for w in works))),
        tuple(dict.fromkeys(chain.from_iterable(w.tasks for w in works))),
    )
