"""Each worker's load while a round is computed, and Kafka's rules for balancing loads."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from kconnect.distributed.protocol import ConnectorsAndTasks

T = TypeVar("T")


class WorkerLoad:
    """One worker's work while a round is computed (Kafka's WorkerLoad); mutable, local to a round.

    The lists start with what the worker runs and keeps; what the round gives it is appended, so
    what it is told to start is the tail past `kept_connectors` / `kept_tasks`.
    """

    def __init__(self, worker: str, url: str, kept: ConnectorsAndTasks) -> None:
        self.worker, self.url = worker, url
        self.connectors = list(kept.connectors)
        self.tasks = list(kept.tasks)
        self.kept_connectors, self.kept_tasks = len(self.connectors), len(self.tasks)

    def add(self, work: ConnectorsAndTasks) -> None:
        """Give the worker `work` (it is told to start it)."""
        self.connectors.extend(work.connectors)
        self.tasks.extend(work.tasks)

    def drop_first(self, connectors: int, tasks: int) -> None:
        """Stop the first items (those revoked for balance, which `excess` takes from the front)."""
        del self.connectors[:connectors]
        del self.tasks[:tasks]
        self.kept_connectors = max(0, self.kept_connectors - connectors)
        self.kept_tasks = max(0, self.kept_tasks - tasks)

    def work(self) -> ConnectorsAndTasks:
        """Everything the worker runs after the round."""
        return ConnectorsAndTasks(tuple(self.connectors), tuple(self.tasks))

    def added(self, work: ConnectorsAndTasks) -> ConnectorsAndTasks:
        """What the worker is told to start; `work` is its `work()`, which it is when it kept nothing."""
        if self.kept_connectors == 0 and self.kept_tasks == 0:
            return work
        return ConnectorsAndTasks(
            tuple(self.connectors[self.kept_connectors :]), tuple(self.tasks[self.kept_tasks :])
        )

    def is_empty(self) -> bool:
        """Whether the worker runs nothing."""
        return not self.connectors and not self.tasks


def balancing_revocations(
    connectors: int, tasks: int, loads: list[WorkerLoad]
) -> dict[str, ConnectorsAndTasks]:
    """Kafka's performLoadBalancingRevocations: what to take from workers holding more than their share.

    `connectors` and `tasks` are how many are configured.
    """
    if all(load.is_empty() for load in loads) or (connectors == 0 and tasks == 0):
        return {}
    over_c = excess(connectors, [(load.worker, load.connectors) for load in loads])
    over_t = excess(tasks, [(load.worker, load.tasks) for load in loads])
    return {
        w: ConnectorsAndTasks(tuple(over_c.get(w, ())), tuple(over_t.get(w, ())))
        for w in dict.fromkeys((*over_c, *over_t))
    }


def excess(total: int, allocations: list[tuple[str, list[T]]]) -> dict[str, list[T]]:
    """Kafka's loadBalancingRevocations for one kind of work: the first items past each worker's share."""
    workers = len(allocations)
    minimum, extras = divmod(total, workers)
    at_min = sum(1 for _, held in allocations if len(held) == minimum)
    at_extra = sum(1 for _, held in allocations if len(held) == minimum + 1)
    if at_extra == extras and at_min + at_extra == workers:
        return {}
    result: dict[str, list[T]] = {}
    given_extra = 0
    for worker, held in allocations:
        if len(held) <= minimum:
            continue
        if given_extra < extras:
            given_extra += 1
            if len(held) == minimum + 1:
                continue
            allowed = minimum + 1
        else:
            allowed = minimum
        result[worker] = held[: len(held) - allowed]
    return result


def assign_round_robin(
    loads: list[WorkerLoad], items: Sequence[T], held: Callable[[WorkerLoad], list[T]]
) -> None:
    """Kafka's assignConnectors/assignTasks: fill the least loaded workers first, level by level.

    Workers are sorted by load once; each pass gives one item to every worker at the lowest level,
    a prefix of that order that grows as the level reaches the next workers' load.
    """
    loads.sort(key=lambda load: (len(held(load)), load.worker))
    sizes = [len(held(load)) for load in loads]
    lists: list[list[T]] = []
    level, given = sizes[0], 0
    while given < len(items):
        while len(lists) < len(loads) and sizes[len(lists)] <= level:
            lists.append(held(loads[len(lists)]))
        for target, item in zip(lists, items[given : given + len(lists)], strict=False):
            target.append(item)
        given += len(lists)
        level += 1
