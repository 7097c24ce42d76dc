"""What a round starts from: the configured work, and what the leader remembers between rounds."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from itertools import chain, repeat

from kconnect.distributed.protocol import EMPTY, ConnectorsAndTasks
from kconnect.model import ConnectorTaskId
from kconnect.storage.base import ClusterConfigState

from .keys import Keys


@dataclass(frozen=True)
class ConfiguredWork:
    """What should run according to the leader's config snapshot: task counts per connector, at an offset."""

    offset: int
    task_counts: Mapping[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, state: ClusterConfigState, offset: int) -> ConfiguredWork:
        """From a config store snapshot read up to config topic `offset`."""
        return cls(offset, {name: state.task_count(name) for name in state.connectors()})

    def work(self) -> ConnectorsAndTasks:
        """Every configured connector and task, sorted."""
        return sorted_work(self.task_counts)


def sorted_work(counts: Mapping[str, int]) -> ConnectorsAndTasks:
    """The connectors of `counts` and their tasks, sorted."""
    connectors = sorted(counts)
    sizes = list(map(counts.__getitem__, connectors))
    return ConnectorsAndTasks(tuple(connectors), _ids(connectors, sizes))


def _ids(connectors: Iterable[str], sizes: Iterable[int]) -> tuple[ConnectorTaskId, ...]:
    """The ids of tasks 0 to size - 1 of each connector, in order."""
    sizes = list(sizes)
    # zip builds the pairs in C: a generator would run a Python step per task.
    names = chain.from_iterable(map(repeat, connectors, sizes))
    return ConnectorTaskId.many(zip(names, chain.from_iterable(map(range, sizes)), strict=True))


@dataclass(frozen=True)
class ConfiguredKeys:
    """The configured work's keys, built once per config snapshot and reused while it holds."""

    config: ConfiguredWork
    """A copy of the config the keys are of: what a later round's config must equal."""
    connectors: frozenset[str]

    @classmethod
    def of(cls, configured: ConfiguredWork, cached: ConfiguredKeys | None) -> ConfiguredKeys:
        """`cached` if it is of the same config (offset and task counts), else anew.

        Every round calls this: comparing the counts costs a pass over the connectors.
        """
        if cached is not None and cached.config.offset == configured.offset:
            if cached.config.task_counts == configured.task_counts:
                return cached
        counts = dict(configured.task_counts)
        return cls(ConfiguredWork(configured.offset, counts), frozenset(counts))

    @cached_property
    def tasks(self) -> frozenset[ConnectorTaskId]:
        """Every configured task: an id per task, built by the first round that compares them."""
        counts = self.config.task_counts
        return frozenset(_ids(counts.keys(), counts.values()))

    def work(self) -> ConnectorsAndTasks:
        """Every configured connector and task, sorted, as the config's `work()`.

        The round in which the group forms hands out all of it, then needs `tasks`: the ids it
        hands out become `tasks` when it was not built yet, rather than a second id per task.
        """
        work = sorted_work(self.config.task_counts)
        if "tasks" not in self.__dict__:
            self.__dict__["tasks"] = frozenset(work.tasks)  # what the cached property would store
        return work


@dataclass(frozen=True)
class AssignorState:
    """What the leader remembers between rounds (the fields of Kafka's IncrementalCooperativeAssignor)."""

    previous_assignment: ConnectorsAndTasks = EMPTY
    previous_revocation: ConnectorsAndTasks = EMPTY
    previous_generation: int = -1
    previous_members: frozenset[str] = frozenset()
    previous_urls: Mapping[str, ConnectorsAndTasks] = field(default_factory=dict)
    """What each worker, known by its REST URL, held after the previous round."""
    revoked_in_previous: bool = False
    successive_revoking_rebalances: int = 0
    candidate_workers: tuple[str, ...] = ()
    scheduled_rebalance_ms: int = 0
    """When held lost work is reassigned (epoch ms); 0 when nothing is held."""
    delay_ms: int = 0
    configured_keys: ConfiguredKeys | None = field(default=None, compare=False, repr=False)
    """A cache, not part of the state's value: the configured work's keys as the last round built them."""
    assigned_keys: AssignedKeys | None = field(default=None, compare=False, repr=False)
    """A cache, not part of the state's value: the keys of `previous_assignment`."""

    def previous_keys(self) -> Keys:
        """The keys of `previous_assignment`: those the round that made it left, else built anew."""
        cached = self.assigned_keys
        if cached is not None and cached.assignment is self.previous_assignment:
            return cached.keys
        return Keys.of(self.previous_assignment)

    def previous_within(self, configured: ConfiguredKeys) -> bool:
        """Whether `previous_assignment` is known to hold only work `configured` holds."""
        cached = self.assigned_keys
        return (
            cached is not None
            and cached.assignment is self.previous_assignment
            and cached.within is configured
        )


@dataclass(frozen=True)
class AssignedKeys:
    """The keys of an assignment, kept beside it so the next round does not key 100,000 tasks again."""

    assignment: ConnectorsAndTasks
    """The assignment they are the keys of: a state given another one (`replace`) keys that one."""
    keys: Keys
    within: ConfiguredKeys | None = None
    """Configured work known to hold the whole assignment (the round that made it found every member
    running what it had assigned: it kept, added and held only configured work)."""
