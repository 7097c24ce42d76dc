"""The leader's assignment of connectors and tasks to workers: a pure function, Kafka's rules.

`assign` is what the group leader runs once per rebalance (`kconnect.distributed.group_member`
calls it after JoinGroup): in go the members' current work (from their metadata), what the config
snapshot says should run, the state the previous round left, and the time; out come one
`Assignment` per member and the state for the next round. Nothing here does I/O or reads a clock.

Cooperative protocols (v1/v2) follow Kafka's IncrementalCooperativeAssignor (KIP-415):

* work that stays where it runs is never revoked; a member is told only what is *new* for it and
  what it must stop;
* deleted connectors/tasks and copies running on two workers are revoked;
* a worker holding more than its share (``total // workers``, some ``+ 1``) has the excess
  revoked; the next round (the revoked members rejoin) gives it to the members with the least;
* work of a worker that left is *lost*: it is held for ``scheduled.rebalance.max.delay.ms`` (each
  member is told the remaining delay and rejoins after it), so a worker that comes back in time
  gets it again; after the delay it goes to members that joined empty meanwhile, or else is
  spread like new work;
* except that a worker which comes back under a new member id (the broker expelled it, say after a
  broker freeze longer than the session) is known by its REST URL and gets its own lost work back
  in the round it rejoins, where Kafka would hold it for the whole delay (docs/differences.md);
* what the leader remembers lives in the leader (`AssignorState`): when the leader itself leaves,
  the next leader starts with no memory and reassigns the departed leader's work at once, as
  Kafka does;
* two rounds in a row that both revoke for balance back off exponentially (40 ms, 1.6 s, ...,
  at most the max delay), so members that keep bouncing cannot make the group revoke forever.

The eager protocol (v0) uses Kafka's EagerAssignor: everything round-robin over sorted members.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from itertools import chain
from operator import attrgetter
from typing import TypeVar

from kconnect.distributed.protocol import (
    CONFIG_MISMATCH,
    EMPTY,
    NO_ERROR,
    Assignment,
    ConnectorsAndTasks,
    WorkerState,
)
from kconnect.model import ConnectorTaskId
from kconnect.storage.base import ClusterConfigState

T = TypeVar("T")


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
        connectors = sorted(self.task_counts)
        tasks = [ConnectorTaskId(c, i) for c in connectors for i in range(self.task_counts[c])]
        return ConnectorsAndTasks(tuple(connectors), tuple(tasks))


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


@dataclass(frozen=True)
class RoundResult:
    """One round's outcome: each member's assignment, who runs what afterwards, the next round's state."""

    assignments: Mapping[str, Assignment]
    owners: Mapping[str, ConnectorsAndTasks]
    state: AssignorState


def assign(
    *,
    leader_id: str,
    version: int,
    members: Mapping[str, WorkerState],
    configured: ConfiguredWork,
    state: AssignorState,
    last_completed_generation: int,
    generation: int,
    now_ms: int,
    max_delay_ms: int,
) -> RoundResult:
    """Assign for one rebalance round of the protocol `version` (0 eager, 1/2 cooperative).

    Called by the group leader with every member's decoded metadata. When the leader's config is
    behind a member's (`configured.offset` below the highest member offset) every member gets
    CONFIG_MISMATCH and the state is kept: members read the config topic and rejoin.
    """
    max_offset = max(m.config_offset for m in members.values())
    leader_url = members[leader_id].url
    if configured.offset < max_offset:
        failed = Assignment(version, CONFIG_MISMATCH, leader_id, leader_url, max_offset)
        return RoundResult({m: failed for m in members}, {}, state)
    if version == 0:
        return _assign_eager(leader_id, leader_url, members, configured, state)
    running = {m: (s.assignment.assigned if s.assignment else EMPTY) for m, s in sorted(members.items())}
    urls = {m: s.url for m, s in members.items()}
    added, revoked, owners, next_state = _cooperative(
        running, urls, configured, state, last_completed_generation, generation, now_ms, max_delay_ms
    )
    assignments = {
        m: Assignment(
            version,
            NO_ERROR,
            leader_id,
            leader_url,
            configured.offset,
            added[m],
            revoked.get(m, EMPTY),
            next_state.delay_ms,
        )
        for m in running
    }
    return RoundResult(assignments, owners, next_state)


def _assign_eager(
    leader_id: str,
    leader_url: str,
    members: Mapping[str, WorkerState],
    configured: ConfiguredWork,
    state: AssignorState,
) -> RoundResult:
    order = sorted(members)
    connectors: dict[str, list[str]] = {m: [] for m in order}
    tasks: dict[str, list[ConnectorTaskId]] = {m: [] for m in order}
    work = configured.work()
    turn = 0
    for connector in work.connectors:
        connectors[order[turn % len(order)]].append(connector)
        turn += 1
    for task in work.tasks:
        tasks[order[turn % len(order)]].append(task)
        turn += 1
    owners = {m: ConnectorsAndTasks(tuple(connectors[m]), tuple(tasks[m])) for m in order}
    assignments = {
        m: Assignment(0, NO_ERROR, leader_id, leader_url, configured.offset, owners[m]) for m in order
    }
    return RoundResult(assignments, owners, replace(state, previous_members=frozenset(order)))


TaskKey = tuple[str, int]
"""A task as ``(connector, task)``: hashed and ordered in C, as ConnectorTaskId's own order."""

_task_key: Callable[[ConnectorTaskId], TaskKey] = attrgetter("connector", "task")


def _task_ids(keys: Iterable[TaskKey]) -> tuple[ConnectorTaskId, ...]:
    return tuple(ConnectorTaskId(connector, task) for connector, task in keys)


@dataclass(frozen=True)
class _Keys:
    """A set of connectors and tasks by key, for membership tests that do not hash ConnectorTaskIds."""

    connectors: frozenset[str] | set[str]
    tasks: frozenset[TaskKey] | set[TaskKey]

    @classmethod
    def of(cls, work: ConnectorsAndTasks) -> _Keys:
        return cls(frozenset(work.connectors), frozenset(map(_task_key, work.tasks)))

    def __bool__(self) -> bool:
        return bool(self.connectors or self.tasks)

    def within(self, work: ConnectorsAndTasks) -> ConnectorsAndTasks:
        """What of `work` is in this set, in `work`'s order."""
        if not self:
            return EMPTY
        keep_c, keep_t = self.connectors, self.tasks
        return ConnectorsAndTasks(
            tuple(c for c in work.connectors if c in keep_c),
            tuple(t for t in work.tasks if _task_key(t) in keep_t),
        )

    def outside(self, work: ConnectorsAndTasks) -> ConnectorsAndTasks:
        """What of `work` is not in this set, in `work`'s order."""
        if not self:
            return work
        gone_c, gone_t = self.connectors, self.tasks
        return ConnectorsAndTasks(
            tuple(c for c in work.connectors if c not in gone_c),
            tuple(t for t in work.tasks if _task_key(t) not in gone_t),
        )

    def sorted(self) -> ConnectorsAndTasks:
        """This set as ConnectorsAndTasks, sorted."""
        return ConnectorsAndTasks(tuple(sorted(self.connectors)), _task_ids(sorted(self.tasks)))


class _Load:
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
        self.connectors.extend(work.connectors)
        self.tasks.extend(work.tasks)

    def drop_first(self, connectors: int, tasks: int) -> None:
        """Stop the first items (those revoked for balance, which `_excess` takes from the front)."""
        del self.connectors[:connectors]
        del self.tasks[:tasks]
        self.kept_connectors = max(0, self.kept_connectors - connectors)
        self.kept_tasks = max(0, self.kept_tasks - tasks)

    def work(self) -> ConnectorsAndTasks:
        return ConnectorsAndTasks(tuple(self.connectors), tuple(self.tasks))

    def added(self) -> ConnectorsAndTasks:
        return ConnectorsAndTasks(
            tuple(self.connectors[self.kept_connectors :]), tuple(self.tasks[self.kept_tasks :])
        )

    def is_empty(self) -> bool:
        return not self.connectors and not self.tasks


def _concat(works: Iterable[ConnectorsAndTasks]) -> ConnectorsAndTasks:
    """Works known to be disjoint, one after the other."""
    works = list(works)
    return ConnectorsAndTasks(
        tuple(chain.from_iterable(w.connectors for w in works)),
        tuple(chain.from_iterable(w.tasks for w in works)),
    )


def _union(works: Iterable[ConnectorsAndTasks]) -> ConnectorsAndTasks:
    """Works one after the other, each item once where first seen (a fold of `plus`, in one pass)."""
    connectors: dict[str, None] = {}
    tasks: dict[TaskKey, ConnectorTaskId] = {}
    for work in works:
        connectors.update(dict.fromkeys(work.connectors))
        for task in work.tasks:
            tasks.setdefault(_task_key(task), task)
    return ConnectorsAndTasks(tuple(connectors), tuple(tasks.values()))


@dataclass(frozen=True)
class _Running:
    """What the members run, by key: everything, and what runs on more than one of them."""

    active: _Keys
    duplicated: _Keys

    @classmethod
    def of(cls, running: Mapping[str, ConnectorsAndTasks]) -> _Running:
        connectors = list(chain.from_iterable(w.connectors for w in running.values()))
        tasks = list(map(_task_key, chain.from_iterable(w.tasks for w in running.values())))
        active = _Keys(set(connectors), set(tasks))
        return cls(active, _Keys(_repeated(connectors, active.connectors), _repeated(tasks, active.tasks)))


def _repeated(items: list[T], distinct: AbstractSet[T]) -> set[T]:
    """The items that occur more than once; `distinct`, their set, tells by its size whether to look."""
    if len(distinct) == len(items):
        return set()
    seen: set[T] = set()
    repeated: set[T] = set()
    for item in items:
        (repeated if item in seen else seen).add(item)
    return repeated


def _backoff_ms(attempts: int, max_delay_ms: int) -> int:
    """Kafka's ExponentialBackoff(1, 40, max, no jitter) used between successive revoking rounds."""
    if max_delay_ms == 0:
        return 0
    exp_max = math.log(max_delay_ms) / math.log(40) if max_delay_ms > 1 else 0.0
    return int(min(40 ** min(attempts, exp_max), max_delay_ms))


@dataclass(frozen=True)
class _Changes:
    """What changed since the previous round, each sorted: deleted, lost (its worker left), created."""

    deleted: _Keys
    lost: ConnectorsAndTasks
    created: ConnectorsAndTasks

    @classmethod
    def of(cls, previous: _Keys, active: _Keys, configured: ConfiguredWork) -> _Changes:
        counts = configured.task_counts
        configured_t = {(c, i) for c, n in counts.items() for i in range(n)}
        deleted = _Keys(previous.connectors - counts.keys(), previous.tasks - configured_t)
        lost = _Keys(
            previous.connectors - active.connectors - deleted.connectors,
            previous.tasks - active.tasks - deleted.tasks,
        )
        created_c = counts.keys() - previous.connectors - active.connectors
        created_t = configured_t - previous.tasks - active.tasks
        # Walk the created connectors' tasks in order rather than sort what may be every task.
        created = ConnectorsAndTasks(
            tuple(sorted(created_c)),
            _task_ids(
                (c, i)
                for c in sorted({c for c, _ in created_t})
                for i in range(counts[c])
                if (c, i) in created_t
            ),
        )
        return cls(deleted, lost.sorted(), created)


def _cooperative(
    running: Mapping[str, ConnectorsAndTasks],
    urls: Mapping[str, str],
    configured: ConfiguredWork,
    state: AssignorState,
    last_completed_generation: int,
    generation: int,
    now_ms: int,
    max_delay_ms: int,
) -> tuple[
    dict[str, ConnectorsAndTasks], dict[str, ConnectorsAndTasks], dict[str, ConnectorsAndTasks], AssignorState
]:
    """Kafka's performTaskAssignment: (added per member, revoked per member, owners after, next state).

    Every step is a pass over the work or a set operation, so a round takes time linear in the
    connectors and tasks (issue 24); ConnectorTaskIds are compared by key, never hashed.
    """
    now_running = _Running.of(running)
    active, duplicated = now_running.active, now_running.duplicated
    if state.previous_generation == last_completed_generation:
        previous = _Keys.of(state.previous_assignment)
    else:
        previous = _Keys(frozenset(), frozenset())
    revocation = state.previous_revocation
    if not active.connectors.isdisjoint(revocation.connectors) or not active.tasks.isdisjoint(
        map(_task_key, revocation.tasks)
    ):
        previous = active  # a revocation did not take effect; start again from what runs
    changes = _Changes.of(previous, active, configured)
    deleted = changes.deleted
    duplicated_only = _Keys(duplicated.connectors - deleted.connectors, duplicated.tasks - deleted.tasks)
    stopping = _Keys(deleted.connectors | duplicated.connectors, deleted.tasks | duplicated.tasks)
    to_revoke = {
        m: _concat((deleted.within(work), duplicated_only.within(work))) for m, work in running.items()
    }
    loads = [_Load(m, urls[m], stopping.outside(work)) for m, work in running.items()]

    lost = _give_back(changes.lost, loads, state)
    lost_state = _LostWork(state, now_ms, max_delay_ms)
    reassign = lost_state.handle(lost, loads)
    s = lost_state.state
    if s.delay_ms == 0:
        total_connectors = len(configured.task_counts)
        total_tasks = sum(configured.task_counts.values())
        balancing = _balancing_revocations(total_connectors, total_tasks, loads)
        if s.revoked_in_previous and balancing:
            attempts = s.successive_revoking_rebalances + 1
            delay = _backoff_ms(attempts, max_delay_ms)
            s = replace(s, successive_revoking_rebalances=attempts, delay_ms=delay)
            if delay != 0:
                s = replace(s, scheduled_rebalance_ms=now_ms + delay)
            else:
                _revoke(to_revoke, loads, balancing)
        elif balancing:
            _revoke(to_revoke, loads, balancing)
            s = replace(s, revoked_in_previous=True)
        elif s.revoked_in_previous:
            s = replace(s, revoked_in_previous=False, successive_revoking_rebalances=0)
    else:
        s = replace(s, revoked_in_previous=False)

    to_assign = _concat((changes.created, reassign))
    _assign_round_robin(loads, to_assign.connectors, lambda load: load.connectors)
    _assign_round_robin(loads, to_assign.tasks, lambda load: load.tasks)

    owners = {load.worker: load.work() for load in loads}
    added = {load.worker: load.added() for load in loads}
    revoked = {m: work for m, work in to_revoke.items() if not work.is_empty()}
    all_revoked = _union(revoked.values())
    # Owners are disjoint and hold nothing revoked; lost work still held is remembered after them.
    placed = _Keys(
        set(chain.from_iterable(w.connectors for w in added.values())),
        set(map(_task_key, chain.from_iterable(w.tasks for w in added.values()))),
    )
    next_state = replace(
        s,
        previous_assignment=_concat((*owners.values(), placed.outside(lost))),
        previous_revocation=all_revoked,
        previous_generation=generation,
        previous_members=frozenset(running),
        previous_urls=_urls_after(state, {urls[m]: work for m, work in owners.items()}, lost),
    )
    return {m: added[m] for m in running}, revoked, owners, next_state


def _revoke(
    to_revoke: dict[str, ConnectorsAndTasks], loads: list[_Load], more: Mapping[str, ConnectorsAndTasks]
) -> None:
    for load in loads:
        if load.worker in more:
            taken = more[load.worker]
            to_revoke[load.worker] = _concat((to_revoke[load.worker], taken))
            load.drop_first(len(taken.connectors), len(taken.tasks))


class _LostWork:
    """Kafka's handleLostAssignments: hold a departed worker's work, then hand it out."""

    def __init__(self, state: AssignorState, now_ms: int, max_delay_ms: int) -> None:
        self.state, self.now, self.max_delay = state, now_ms, max_delay_ms

    def _reset(self) -> None:
        self.state = replace(self.state, candidate_workers=(), scheduled_rebalance_ms=0, delay_ms=0)

    def handle(self, lost: ConnectorsAndTasks, loads: list[_Load]) -> ConnectorsAndTasks:
        """Work to assign as new this round; lost work given to candidates is added to `loads` here."""
        s = self.state
        if lost.is_empty() and not s.revoked_in_previous:
            self._reset()
            return EMPTY
        members = {load.worker for load in loads}
        if s.scheduled_rebalance_ms <= 0 and members >= s.previous_members:
            return lost  # nobody left: the work was missed by a member that failed to sync; reassign
        if self.max_delay == 0:
            return lost
        if 0 < s.scheduled_rebalance_ms <= self.now:
            by_worker = {load.worker: load for load in loads}
            candidates = [by_worker[w] for w in s.candidate_workers if w in by_worker]
            for i, connector in enumerate(lost.connectors if candidates else ()):
                candidates[i % len(candidates)].connectors.append(connector)
            for i, task in enumerate(lost.tasks if candidates else ()):
                candidates[i % len(candidates)].tasks.append(task)
            self._reset()
            self.state = replace(self.state, revoked_in_previous=False)
            return EMPTY if candidates else lost
        empty = [load.worker for load in sorted(loads, key=lambda x: x.worker) if load.is_empty()]
        waiting = tuple(dict.fromkeys((*s.candidate_workers, *empty)))
        if self.now < s.scheduled_rebalance_ms:
            delay = min(s.scheduled_rebalance_ms - self.now, self.max_delay)
        else:
            delay = self.max_delay
        self.state = replace(
            s, candidate_workers=waiting, delay_ms=delay, scheduled_rebalance_ms=self.now + delay
        )
        return EMPTY


def _give_back(lost: ConnectorsAndTasks, loads: list[_Load], state: AssignorState) -> ConnectorsAndTasks:
    """Give a worker that rejoined under a new member id the lost work its URL held; return the rest.

    `loads` are keyed by member id; a member not in the previous round whose URL held work then is
    such a worker (URLs are unique in a cluster: each is where a worker answers REST calls).
    """
    if lost.is_empty():
        return lost
    for load in loads:
        url = load.url
        if load.worker in state.previous_members or url not in state.previous_urls:
            continue
        own = _Keys.of(lost).within(state.previous_urls[url])
        load.add(own)
        lost = _Keys.of(own).outside(lost)
    return lost


def _urls_after(
    state: AssignorState, present: Mapping[str, ConnectorsAndTasks], lost: ConnectorsAndTasks
) -> dict[str, ConnectorsAndTasks]:
    """What each URL holds after this round; a departed worker's URL keeps its work while that is held."""
    held = _Keys.of(lost)
    departed = {url: held.within(work) for url, work in state.previous_urls.items() if url not in present}
    return {**{url: work for url, work in departed.items() if not work.is_empty()}, **present}


def _balancing_revocations(connectors: int, tasks: int, loads: list[_Load]) -> dict[str, ConnectorsAndTasks]:
    """Kafka's performLoadBalancingRevocations: what to take from workers holding more than their share.

    `connectors` and `tasks` are how many are configured.
    """
    if all(load.is_empty() for load in loads) or (connectors == 0 and tasks == 0):
        return {}
    over_c = _excess(connectors, [(load.worker, load.connectors) for load in loads])
    over_t = _excess(tasks, [(load.worker, load.tasks) for load in loads])
    return {
        w: ConnectorsAndTasks(tuple(over_c.get(w, ())), tuple(over_t.get(w, ())))
        for w in dict.fromkeys((*over_c, *over_t))
    }


def _excess(total: int, allocations: list[tuple[str, list[T]]]) -> dict[str, list[T]]:
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


def _assign_round_robin(loads: list[_Load], items: Sequence[T], held: Callable[[_Load], list[T]]) -> None:
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
