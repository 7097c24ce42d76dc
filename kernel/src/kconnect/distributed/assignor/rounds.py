"""One rebalance round: `assign`, the eager protocol's round-robin and the cooperative protocols' rules."""

from __future__ import annotations

import gc
import math
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from itertools import chain

from kconnect.distributed.protocol import (
    CONFIG_MISMATCH,
    EMPTY,
    NO_ERROR,
    Assignment,
    ConnectorsAndTasks,
    WorkerState,
)
from kconnect.model import ConnectorTaskId

from .changes import Changes, Running
from .keys import NO_KEYS, Keys, concat, union
from .loads import WorkerLoad, assign_round_robin, balancing_revocations
from .lost import LostWork, give_back, urls_after
from .state import AssignedKeys, AssignorState, ConfiguredKeys, ConfiguredWork


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
    CONFIG_MISMATCH and the state is kept: members read the config topic and rejoin. Python's cyclic
    garbage collector is paused while a round runs (`_collector_paused`).
    """
    max_offset = max(m.config_offset for m in members.values())
    leader_url = members[leader_id].url
    if configured.offset < max_offset:
        failed = Assignment(version, CONFIG_MISMATCH, leader_id, leader_url, max_offset)
        return RoundResult({m: failed for m in members}, {}, state)
    with _collector_paused():
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


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for one round, when it is on.

    A round at 110,000 connectors and tasks builds sets and tuples of every task (and an id per task in the
    round a group forms): the collector would run some 150 times in it, and up to twice over the
    whole heap, while the group waits, to find nothing, since a round makes no reference cycles.
    What it would have looked at is collected after the round, as usual.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


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


def _backoff_ms(attempts: int, max_delay_ms: int) -> int:
    """Kafka's ExponentialBackoff(1, 40, max, no jitter) used between successive revoking rounds."""
    if max_delay_ms == 0:
        return 0
    exp_max = math.log(max_delay_ms) / math.log(40) if max_delay_ms > 1 else 0.0
    return int(min(40 ** min(attempts, exp_max), max_delay_ms))


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
    connectors and tasks (issue 24); ConnectorTaskIds, tuples, are hashed and compared in C, and
    the configured work's set is built only when the config changed.
    """
    configured_keys = ConfiguredKeys.of(configured, state.configured_keys)
    now_running = Running.of(running)
    active, duplicated = now_running.active, now_running.duplicated
    configured_only = False
    if state.previous_generation == last_completed_generation:
        previous = state.previous_keys()
        configured_only = state.previous_within(configured_keys)
    else:
        previous = NO_KEYS
    revocation = state.previous_revocation
    if not active.connectors.isdisjoint(revocation.connectors) or not active.tasks.isdisjoint(
        revocation.tasks
    ):
        previous = active  # a revocation did not take effect; start again from what runs
        configured_only = False
    changes = Changes.of(previous, active, configured_keys, configured_only=configured_only)
    deleted = changes.deleted
    duplicated_only = duplicated.minus(deleted)
    stopping = deleted.plus(duplicated)
    to_revoke = {
        m: concat((deleted.within(work), duplicated_only.within(work))) for m, work in running.items()
    }
    loads = [WorkerLoad(m, urls[m], stopping.outside(work)) for m, work in running.items()]

    lost = give_back(changes.lost, loads, state)
    lost_state = LostWork(state, now_ms, max_delay_ms)
    reassign = lost_state.handle(lost, loads)
    s = lost_state.state
    if s.delay_ms == 0:
        total_connectors = len(configured.task_counts)
        total_tasks = sum(configured.task_counts.values())
        balancing = balancing_revocations(total_connectors, total_tasks, loads)
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

    to_assign = concat((changes.created, reassign))
    assign_round_robin(loads, to_assign.connectors, lambda load: load.connectors)
    assign_round_robin(loads, to_assign.tasks, lambda load: load.tasks)

    owners = {load.worker: load.work() for load in loads}
    added = {load.worker: load.added(owners[load.worker]) for load in loads}
    revoked = {m: work for m, work in to_revoke.items() if not work.is_empty()}
    all_revoked = union(revoked.values())
    if changes.all_created:
        # Nothing was lost, so what was added is what was created: everything configured.
        added_keys = Keys(configured_keys.connectors, configured_keys.tasks)
    else:
        added_keys = Keys(
            set(chain.from_iterable(w.connectors for w in added.values())),
            set(chain.from_iterable(w.tasks for w in added.values())),
        )
    # Owners are disjoint and hold nothing revoked; lost work still held is remembered after them.
    held = added_keys.outside(lost) if not lost.is_empty() else lost
    assignment = concat((*owners.values(), held))
    next_state = replace(
        s,
        previous_assignment=assignment,
        previous_revocation=all_revoked,
        previous_generation=generation,
        previous_members=frozenset(running),
        previous_urls=urls_after(state, {urls[m]: work for m, work in owners.items()}, lost),
        configured_keys=configured_keys,
        assigned_keys=AssignedKeys(
            assignment,
            _assignment_keys(previous if changes.all_running else active, all_revoked, added_keys, held),
            # What ran was what was assigned, less what is deleted, and nothing else is added or held.
            configured_keys if changes.all_running else None,
        ),
    )
    return {m: added[m] for m in running}, revoked, owners, next_state


def _assignment_keys(ran: Keys, revoked: ConnectorsAndTasks, added: Keys, held: ConnectorsAndTasks) -> Keys:
    """The keys of the assignment a round leaves, from sets the round has, not keyed task by task.

    The owners run what ran and was not revoked (work is revoked only from a worker running it, a
    duplicate from every worker running it) and what they were added; held lost work comes after.
    `ran` is what runs, or the previous assignment's keys when they are the same: kept, as they are
    when nothing changed, they spare the collector a new set of 100,000 keys after every round.
    Likewise `added` when nothing ran (the group forms: the configured work's keys).
    """
    if revoked.is_empty() and held.is_empty():
        if not added:
            return ran
        if not ran:
            return added
    connectors, tasks = set(ran.connectors), set(ran.tasks)
    connectors.difference_update(revoked.connectors)
    tasks.difference_update(revoked.tasks)
    connectors.update(added.connectors, held.connectors)
    tasks.update(added.tasks, held.tasks)
    return Keys(connectors, tasks)


def _revoke(
    to_revoke: dict[str, ConnectorsAndTasks], loads: list[WorkerLoad], more: Mapping[str, ConnectorsAndTasks]
) -> None:
    for load in loads:
        if load.worker in more:
            taken = more[load.worker]
            to_revoke[load.worker] = concat((to_revoke[load.worker], taken))
            load.drop_first(len(taken.connectors), len(taken.tasks))
