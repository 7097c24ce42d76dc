"""Work whose worker left: held for the delay, given back to a worker that returns, then handed out."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from kconnect.distributed.protocol import EMPTY, ConnectorsAndTasks

from .keys import Keys
from .loads import WorkerLoad
from .state import AssignorState


class LostWork:
    """Kafka's handleLostAssignments: hold a departed worker's work, then hand it out."""

    def __init__(self, state: AssignorState, now_ms: int, max_delay_ms: int) -> None:
        self.state, self.now, self.max_delay = state, now_ms, max_delay_ms

    def _reset(self) -> None:
        self.state = replace(self.state, candidate_workers=(), scheduled_rebalance_ms=0, delay_ms=0)

    def handle(self, lost: ConnectorsAndTasks, loads: list[WorkerLoad]) -> ConnectorsAndTasks:
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


def give_back(lost: ConnectorsAndTasks, loads: list[WorkerLoad], state: AssignorState) -> ConnectorsAndTasks:
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
        own = Keys.of(lost).within(state.previous_urls[url])
        load.add(own)
        lost = Keys.of(own).outside(lost)
    return lost


def urls_after(
    state: AssignorState, present: Mapping[str, ConnectorsAndTasks], lost: ConnectorsAndTasks
) -> dict[str, ConnectorsAndTasks]:
    """What each URL holds after this round; a departed worker's URL keeps its work while that is held."""
    held = Keys.of(lost)
    departed = {url: held.within(work) for url, work in state.previous_urls.items() if url not in present}
    return {**{url: work for url, work in departed.items() if not work.is_empty()}, **present}
