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
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
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
        running, urls, configured.work(), state, last_completed_generation, generation, now_ms, max_delay_ms
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


class _Load:
    """One worker's work while a round is computed (Kafka's WorkerLoad); mutable, local to a round."""

    def __init__(self, worker: str, url: str, work: ConnectorsAndTasks) -> None:
        self.worker, self.url = worker, url
        self.connectors = list(work.connectors)
        self.tasks = list(work.tasks)

    def remove(self, work: ConnectorsAndTasks) -> None:
        gone_c, gone_t = set(work.connectors), set(work.tasks)
        self.connectors = [c for c in self.connectors if c not in gone_c]
        self.tasks = [t for t in self.tasks if t not in gone_t]

    def work(self) -> ConnectorsAndTasks:
        return ConnectorsAndTasks(tuple(self.connectors), tuple(self.tasks))

    def is_empty(self) -> bool:
        return not self.connectors and not self.tasks


def _union(works: Iterable[ConnectorsAndTasks]) -> ConnectorsAndTasks:
    result = EMPTY
    for work in works:
        result = result.plus(work)
    return result


def _sorted_diff(base: ConnectorsAndTasks, *minus: ConnectorsAndTasks) -> ConnectorsAndTasks:
    connectors, tasks = set(base.connectors), set(base.tasks)
    for other in minus:
        connectors -= set(other.connectors)
        tasks -= set(other.tasks)
    return ConnectorsAndTasks(tuple(sorted(connectors)), tuple(sorted(tasks)))


def _within(work: ConnectorsAndTasks, keep: ConnectorsAndTasks) -> ConnectorsAndTasks:
    keep_c, keep_t = set(keep.connectors), set(keep.tasks)
    return ConnectorsAndTasks(
        tuple(c for c in work.connectors if c in keep_c), tuple(t for t in work.tasks if t in keep_t)
    )


def _duplicated(running: Mapping[str, ConnectorsAndTasks]) -> ConnectorsAndTasks:
    seen_c: dict[str, int] = {}
    seen_t: dict[ConnectorTaskId, int] = {}
    for work in running.values():
        for c in work.connectors:
            seen_c[c] = seen_c.get(c, 0) + 1
        for t in work.tasks:
            seen_t[t] = seen_t.get(t, 0) + 1
    return ConnectorsAndTasks(
        tuple(sorted(c for c, n in seen_c.items() if n > 1)),
        tuple(sorted(t for t, n in seen_t.items() if n > 1)),
    )


def _backoff_ms(attempts: int, max_delay_ms: int) -> int:
    """Kafka's ExponentialBackoff(1, 40, max, no jitter) used between successive revoking rounds."""
    if max_delay_ms == 0:
        return 0
    exp_max = math.log(max_delay_ms) / math.log(40) if max_delay_ms > 1 else 0.0
    return int(min(40 ** min(attempts, exp_max), max_delay_ms))


def _cooperative(
    running: Mapping[str, ConnectorsAndTasks],
    urls: Mapping[str, str],
    configured: ConnectorsAndTasks,
    state: AssignorState,
    last_completed_generation: int,
    generation: int,
    now_ms: int,
    max_delay_ms: int,
) -> tuple[
    dict[str, ConnectorsAndTasks], dict[str, ConnectorsAndTasks], dict[str, ConnectorsAndTasks], AssignorState
]:
    """Kafka's performTaskAssignment: (added per member, revoked per member, owners after, next state)."""
    previous = state.previous_assignment if state.previous_generation == last_completed_generation else EMPTY
    active = _union(running.values())
    revocation = state.previous_revocation
    if set(revocation.connectors) & set(active.connectors) or set(revocation.tasks) & set(active.tasks):
        previous = active  # a revocation did not take effect; start again from what runs
    deleted = _sorted_diff(previous, configured)
    lost = _sorted_diff(previous, active, deleted)
    created = _sorted_diff(configured, previous, active)
    current = {m: work.minus(deleted) for m, work in running.items()}
    duplicated = _duplicated(running)
    to_revoke = {m: _within(work, deleted).plus(_within(work, duplicated)) for m, work in running.items()}
    loads = [_Load(m, urls[m], work) for m, work in running.items()]
    for load in loads:
        load.remove(to_revoke[load.worker])

    lost = _give_back(lost, loads, state)
    lost_state = _LostWork(state, now_ms, max_delay_ms)
    reassign = lost_state.handle(lost, loads)
    s = lost_state.state
    if s.delay_ms == 0:
        balancing = _balancing_revocations(configured, loads)
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

    to_assign = created.plus(reassign)
    _assign_round_robin(loads, to_assign.connectors, lambda load: load.connectors)
    _assign_round_robin(loads, to_assign.tasks, lambda load: load.tasks)

    owners = {load.worker: load.work() for load in loads}
    added = {m: owners[m].minus(current[m]) for m in running}
    revoked = {m: work for m, work in to_revoke.items() if not work.is_empty()}
    all_revoked = _union(revoked.values())
    next_state = replace(
        s,
        previous_assignment=_union(owners.values()).minus(all_revoked).plus(lost),
        previous_revocation=all_revoked,
        previous_generation=generation,
        previous_members=frozenset(running),
        previous_urls=_urls_after(state, {urls[m]: work for m, work in owners.items()}, lost),
    )
    return added, revoked, owners, next_state


def _revoke(
    to_revoke: dict[str, ConnectorsAndTasks], loads: list[_Load], more: Mapping[str, ConnectorsAndTasks]
) -> None:
    for load in loads:
        if load.worker in more:
            to_revoke[load.worker] = to_revoke[load.worker].plus(more[load.worker])
            load.remove(more[load.worker])


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
        own = _within(state.previous_urls[url], lost)
        load.connectors.extend(own.connectors)
        load.tasks.extend(own.tasks)
        lost = lost.minus(own)
    return lost


def _urls_after(
    state: AssignorState, present: Mapping[str, ConnectorsAndTasks], lost: ConnectorsAndTasks
) -> dict[str, ConnectorsAndTasks]:
    """What each URL holds after this round; a departed worker's URL keeps its work while that is held."""
    departed = {url: _within(work, lost) for url, work in state.previous_urls.items() if url not in present}
    return {**{url: work for url, work in departed.items() if not work.is_empty()}, **present}


def _balancing_revocations(
    configured: ConnectorsAndTasks, loads: list[_Load]
) -> dict[str, ConnectorsAndTasks]:
    """Kafka's performLoadBalancingRevocations: what to take from workers holding more than their share."""
    if all(load.is_empty() for load in loads) or configured.is_empty():
        return {}
    connectors = _excess(len(configured.connectors), [(load.worker, load.connectors) for load in loads])
    tasks = _excess(len(configured.tasks), [(load.worker, load.tasks) for load in loads])
    return {
        w: ConnectorsAndTasks(tuple(connectors.get(w, ())), tuple(tasks.get(w, ())))
        for w in dict.fromkeys((*connectors, *tasks))
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


def _assign_round_robin(loads: list[_Load], items: Iterable[T], held: Callable[[_Load], list[T]]) -> None:
    """Kafka's assignConnectors/assignTasks: fill the least loaded workers first, level by level."""
    loads.sort(key=lambda load: (len(held(load)), load.worker))
    pending = list(items)
    first = loads[0]
    while pending:
        level = len(held(first))
        up_to = next((i for i, load in enumerate(loads) if len(held(load)) > level), len(loads))
        for load in loads[:up_to]:
            held(load).append(pending.pop(0))
            if not pending:
                break
