"""What a round finds before it assigns: what the members run, and what changed since the last round."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from itertools import chain
from typing import TypeVar

from kconnect.distributed.protocol import EMPTY, ConnectorsAndTasks
from kconnect.model import ConnectorTaskId

from .keys import NO_KEYS, Keys
from .state import ConfiguredKeys

T = TypeVar("T")


@dataclass(frozen=True)
class Running:
    """What the members run: everything, and what runs on more than one member."""

    active: Keys
    duplicated: Keys

    @classmethod
    def of(cls, running: Mapping[str, ConnectorsAndTasks]) -> Running:
        """From each member's reported work."""
        connectors = list(chain.from_iterable(w.connectors for w in running.values()))
        tasks = list(chain.from_iterable(w.tasks for w in running.values()))
        active = Keys(set(connectors), set(tasks))
        duplicated = Keys(
            _repeated(connectors, len(connectors), active.connectors),
            _repeated(tasks, len(tasks), active.tasks),
        )
        return cls(active, duplicated)


def _repeated(items: Iterable[T], count: int, distinct: AbstractSet[T]) -> set[T]:
    """The items (`count` of them) that occur more than once; `distinct`, their set, says whether to look."""
    if len(distinct) == count:
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
    all_running: bool
    """Whether what runs is exactly what was assigned (then what this round assigns is configured)."""
    all_created: bool = False
    """Whether everything configured is created (nothing was assigned or runs: the group forms)."""

    @classmethod
    def of(
        cls, previous: Keys, active: Keys, configured: ConfiguredKeys, *, configured_only: bool
    ) -> Changes:
        """From what the previous round assigned, what runs now, and what is configured.

        `configured_only`: `previous` is known to hold only configured work (the previous round's
        `all_running`, the same config), so nothing is deleted. Three set differences over every
        task at most; one in a round where the config is the one the previous round assigned and
        members run what it assigned; none when the group forms (nothing assigned or running).
        """
        if not previous and not active:
            return cls(NO_KEYS, EMPTY, configured.work(), all_running=True, all_created=True)
        if configured_only:
            deleted = NO_KEYS
        else:
            deleted = Keys(previous.connectors - configured.connectors, previous.tasks - configured.tasks)
        gone = previous.minus(active)
        lost = gone.minus(deleted)
        all_running = not gone and len(previous.connectors) == len(active.connectors)
        all_running = all_running and len(previous.tasks) == len(active.tasks)
        # Nothing assigned is deleted and as much is assigned as configured: nothing is created.
        if deleted or len(previous.connectors) != len(configured.connectors):
            created_c = configured.connectors - previous.connectors - active.connectors
        else:
            created_c = frozenset()
        if deleted or len(previous.tasks) != len(configured.tasks):
            created_t = configured.tasks - previous.tasks - active.tasks
        else:
            created_t = frozenset()
        counts = configured.config.task_counts
        # Walk the created connectors' tasks in order rather than sort what may be every task.
        created = ConnectorsAndTasks(
            tuple(sorted(created_c)),
            ConnectorTaskId.many(
                (c, i)
                for c in sorted({c for c, _ in created_t})
                for i in range(counts[c])
                if (c, i) in created_t
            ),
        )
        return cls(deleted, lost.sorted(), created, all_running=all_running)
