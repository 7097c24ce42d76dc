"""Incremental cooperative assignment (KIP-415) as Kafka's IncrementalCooperativeAssignor does it.

A small simulated cluster runs rounds the way members do: each member reports what it runs, the
leader's `assign` answers, each member stops what was revoked and starts what was added.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import pytest
from kconnect.distributed.assignor import AssignorState, ConfiguredWork, RoundResult, assign
from kconnect.distributed.protocol import CONFIG_MISMATCH, Assignment, ConnectorsAndTasks, WorkerState
from kconnect.model import ConnectorTaskId as T
from kconnect.storage.base import ClusterConfigState

MAX_DELAY = 300_000
TWO_BY_THREE = ConfiguredWork(5, {"a": 3, "b": 3})


@dataclass
class Cluster:
    """Members and what each runs, plus the leader's state; `round()` is one rebalance."""

    configured: ConfiguredWork
    running: dict[str, ConnectorsAndTasks] = field(default_factory=dict)
    urls: dict[str, str] = field(default_factory=dict)
    state: AssignorState = field(default_factory=AssignorState)
    generation: int = 0
    max_delay: int = MAX_DELAY
    last: RoundResult | None = None

    def join(self, *members: str, url: str | None = None) -> None:
        """Members join running nothing; each answers REST at `url` or else at one of its own."""
        for m in members:
            self.running[m] = ConnectorsAndTasks()
            self.urls[m] = url or f"http://{m}:8083"

    def leave(self, member: str) -> None:
        del self.running[member]
        del self.urls[member]

    def round(self, now: int = 0) -> dict[str, Assignment]:
        members = {
            m: WorkerState(self.urls[m], self.configured.offset, Assignment(1, 0, "", "", 0, work))
            for m, work in self.running.items()
        }
        self.generation += 1
        self.last = assign(
            leader_id=min(members),
            version=1,
            members=members,
            configured=self.configured,
            state=self.state,
            last_completed_generation=self.generation - 1,
            generation=self.generation,
            now_ms=now,
            max_delay_ms=self.max_delay,
        )
        self.state = self.last.state
        for m, a in self.last.assignments.items():
            assert not set(a.assigned.tasks) & set(self.running[m].tasks), "told to start what it runs"
            self.running[m] = self.running[m].minus(a.revoked).plus(a.assigned)
        return dict(self.last.assignments)

    def settle(self, now: int = 0) -> list[dict[str, Assignment]]:
        """Rounds until nothing is revoked (members that had revocations rejoin at once, as Kafka's do)."""
        rounds = [self.round(now)]
        while any(not a.revoked.is_empty() for a in rounds[-1].values()):
            rounds.append(self.round(now))
            assert len(rounds) < 6, "assignment does not converge"
        return rounds

    def tasks(self, member: str) -> set[T]:
        return set(self.running[member].tasks)

    def all_work(self) -> tuple[list[str], list[T]]:
        return (
            sorted(c for w in self.running.values() for c in w.connectors),
            sorted(t for w in self.running.values() for t in w.tasks),
        )


def everything(configured: ConfiguredWork) -> tuple[list[str], list[T]]:
    work = configured.work()
    return list(work.connectors), list(work.tasks)


def counts(cluster: Cluster) -> list[tuple[int, int]]:
    return sorted((len(w.connectors), len(w.tasks)) for w in cluster.running.values())


@pytest.mark.parametrize(
    ("members", "task_counts", "expected"),
    [
        (["w1", "w2", "w3"], {"a": 3, "b": 3}, [(0, 2), (1, 2), (1, 2)]),
        (["w1", "w2"], {"a": 3, "b": 3}, [(1, 3), (1, 3)]),
        (["w1", "w2", "w3", "w4"], {"a": 1, "b": 1, "c": 1}, [(0, 0), (1, 1), (1, 1), (1, 1)]),
        (["w1"], {"a": 4}, [(1, 4)]),
        (["w1", "w2", "w3"], {}, [(0, 0), (0, 0), (0, 0)]),
    ],
)
def test_a_new_group_gets_every_connector_and_task_once_balanced(
    members: list[str], task_counts: Mapping[str, int], expected: list[tuple[int, int]]
) -> None:
    cluster = Cluster(ConfiguredWork(1, task_counts))
    cluster.join(*members)
    first = cluster.round()
    assert all(a.revoked.is_empty() and a.delay_ms == 0 for a in first.values())
    assert cluster.all_work() == everything(cluster.configured)
    assert counts(cluster) == expected


def test_the_tasks_of_one_connector_are_spread_over_the_workers() -> None:
    cluster = Cluster(TWO_BY_THREE)
    cluster.join("w1", "w2", "w3")
    cluster.round()
    for connector in ("a", "b"):
        holders = [m for m in cluster.running if any(t.connector == connector for t in cluster.tasks(m))]
        assert sorted(holders) == ["w1", "w2", "w3"], connector


def test_a_joining_worker_takes_a_share_and_only_the_moved_work_is_revoked() -> None:
    cluster = Cluster(TWO_BY_THREE)
    cluster.join("w1", "w2", "w3")
    cluster.round()
    before = {m: cluster.tasks(m) for m in cluster.running}
    cluster.join("w4")
    revoking, assigning = cluster.settle()
    revoked = {t for a in revoking.values() for t in a.revoked.tasks}
    assert len(revoked) == 1 and all(a.assigned.is_empty() for a in revoking.values())
    assert set(assigning["w4"].assigned.tasks) == revoked
    for m in ("w1", "w2", "w3"):
        assert before[m] - cluster.tasks(m) <= revoked  # everything else stays where it ran
        assert assigning[m].assigned.is_empty()
    assert cluster.all_work() == everything(TWO_BY_THREE)
    assert counts(cluster) == [(0, 1), (0, 1), (1, 2), (1, 2)]


def test_two_joining_workers_each_take_a_share() -> None:
    cluster = Cluster(ConfiguredWork(1, {"a": 6}))
    cluster.join("w1")
    cluster.round()
    cluster.join("w2", "w3")
    cluster.settle()
    assert counts(cluster) == [(0, 2), (0, 2), (1, 2)]
    assert cluster.all_work() == everything(cluster.configured)


def test_a_departed_workers_work_waits_for_the_delay_then_goes_to_the_others() -> None:
    cluster = Cluster(TWO_BY_THREE)
    cluster.join("w1", "w2", "w3")
    cluster.round()
    gone = cluster.running["w3"]
    kept = {m: cluster.tasks(m) for m in ("w1", "w2")}
    cluster.leave("w3")

    held = cluster.round(now=1_000)
    assert {a.delay_ms for a in held.values()} == {MAX_DELAY}
    assert all(a.assigned.is_empty() and a.revoked.is_empty() for a in held.values())

    still_held = cluster.round(now=1_000 + MAX_DELAY - 5_000)
    assert {a.delay_ms for a in still_held.values()} == {5_000}
    assert all(a.assigned.is_empty() for a in still_held.values())

    after = cluster.round(now=1_000 + MAX_DELAY)
    assert {a.delay_ms for a in after.values()} == {0}
    reassigned = after["w1"].assigned.plus(after["w2"].assigned)
    assert sorted(reassigned.tasks) == sorted(gone.tasks) and sorted(reassigned.connectors) == sorted(
        gone.connectors
    )
    for m in ("w1", "w2"):
        assert kept[m] <= cluster.tasks(m) and after[m].revoked.is_empty()
    assert cluster.all_work() == everything(TWO_BY_THREE)
    assert counts(cluster) == [(1, 3), (1, 3)]


def test_a_worker_that_comes_back_within_the_delay_gets_the_held_work() -> None:
    cluster = Cluster(TWO_BY_THREE)
    cluster.join("w1", "w2", "w3")
    cluster.round()
    gone = cluster.running["w3"]
    cluster.leave("w3")
    cluster.round(now=0)
    cluster.join("w3-again")  # a restarted worker joins with a new member id and nothing running
    waiting = cluster.round(now=10_000)
    assert waiting["w3-again"].assigned.is_empty() and waiting["w3-again"].delay_ms == MAX_DELAY - 10_000
    back = cluster.round(now=MAX_DELAY)
    assert back["w3-again"].assigned == gone
    assert all(a.revoked.is_empty() for a in back.values())


def test_a_worker_back_under_a_new_member_id_at_its_old_url_gets_its_work_in_the_round_it_rejoins() -> None:
    cluster = Cluster(TWO_BY_THREE)
    cluster.join("w1", "w2", "w3")
    cluster.round()
    gone, url = cluster.running["w3"], cluster.urls["w3"]
    cluster.leave("w3")  # expelled: its session ran out
    held = cluster.round(now=1_000)
    assert all(a.assigned.is_empty() for a in held.values())
    cluster.join("w3-new-id", url=url)
    back = cluster.round(now=2_000)
    assert back["w3-new-id"].assigned == gone
    assert {a.delay_ms for a in back.values()} == {0}
    assert all(a.revoked.is_empty() for a in back.values())
    assert cluster.all_work() == everything(TWO_BY_THREE)


def test_a_whole_group_expelled_together_gets_its_work_back_in_one_round() -> None:
    """A broker frozen past the session expels every member; the leader's process keeps its state."""
    cluster = Cluster(TWO_BY_THREE)
    cluster.join("w1", "w2")
    cluster.round()
    before = {cluster.urls[m]: cluster.running[m] for m in ("w1", "w2")}
    for m in ("w1", "w2"):
        cluster.leave(m)
    cluster.join("w1-new-id", url="http://w1:8083")
    cluster.join("w2-new-id", url="http://w2:8083")
    back = cluster.round(now=1_000)
    assert {a.delay_ms for a in back.values()} == {0}
    assert {cluster.urls[m]: cluster.running[m] for m in back} == before
    assert all(a.revoked.is_empty() for a in back.values())


def test_with_no_delay_a_departed_workers_work_is_reassigned_at_once() -> None:
    cluster = Cluster(TWO_BY_THREE, max_delay=0)
    cluster.join("w1", "w2", "w3")
    cluster.round()
    cluster.leave("w2")
    cluster.round()
    assert cluster.all_work() == everything(TWO_BY_THREE)


def test_a_deleted_connector_and_its_tasks_are_revoked_from_whoever_runs_them() -> None:
    cluster = Cluster(TWO_BY_THREE)
    cluster.join("w1", "w2")
    cluster.round()
    cluster.configured = ConfiguredWork(6, {"a": 3})
    result = cluster.round()
    revoked = result["w1"].revoked.plus(result["w2"].revoked)
    assert sorted(revoked.connectors) == ["b"] and sorted(revoked.tasks) == [T("b", 0), T("b", 1), T("b", 2)]
    assert cluster.all_work() == everything(cluster.configured)


def test_work_running_on_two_workers_is_revoked_from_both_then_assigned_once() -> None:
    cluster = Cluster(ConfiguredWork(1, {"a": 2}))
    cluster.join("w1", "w2")
    cluster.round()
    holder = next(m for m in cluster.running if T("a", 0) in cluster.tasks(m))
    other = "w2" if holder == "w1" else "w1"
    cluster.running[other] = cluster.running[other].plus(ConnectorsAndTasks(tasks=(T("a", 0),)))
    result = cluster.round()
    assert T("a", 0) in result["w1"].revoked.tasks and T("a", 0) in result["w2"].revoked.tasks
    cluster.settle()
    assert cluster.all_work() == everything(cluster.configured)


def test_a_new_connector_goes_to_the_least_loaded_worker_without_revocations() -> None:
    cluster = Cluster(ConfiguredWork(1, {"a": 2}))
    cluster.join("w1", "w2", "w3")
    cluster.round()
    cluster.configured = ConfiguredWork(2, {"a": 2, "b": 1})
    result = cluster.round()
    assert all(a.revoked.is_empty() for a in result.values())
    idle = [m for m, a in result.items() if T("b", 0) in a.assigned.tasks]
    assert len(idle) == 1 and len(cluster.tasks(idle[0])) == 1
    assert counts(cluster) == [(0, 1), (1, 1), (1, 1)]


def test_a_leader_behind_a_member_answers_config_mismatch_to_everyone_and_keeps_its_state() -> None:
    state = AssignorState(previous_generation=3)
    members = {"w1": WorkerState("http://w1:8083", 4), "w2": WorkerState("http://w2:8083", 9)}
    result = assign(
        leader_id="w1",
        version=2,
        members=members,
        configured=ConfiguredWork(4, {"a": 1}),
        state=state,
        last_completed_generation=3,
        generation=4,
        now_ms=0,
        max_delay_ms=MAX_DELAY,
    )
    assert {m: (a.error, a.config_offset, a.leader_url) for m, a in result.assignments.items()} == {
        "w1": (CONFIG_MISMATCH, 9, "http://w1:8083"),
        "w2": (CONFIG_MISMATCH, 9, "http://w1:8083"),
    }
    assert result.state == state


def test_every_assignment_names_the_leader_its_url_the_offset_and_the_protocol_version() -> None:
    members = {"w1": WorkerState("http://w1:8083", 5), "w2": WorkerState("http://w2:8083", 3)}
    result = assign(
        leader_id="w2",
        version=2,
        members=members,
        configured=TWO_BY_THREE,
        state=AssignorState(),
        last_completed_generation=-1,
        generation=1,
        now_ms=0,
        max_delay_ms=MAX_DELAY,
    )
    assert {(a.version, a.leader, a.leader_url, a.config_offset) for a in result.assignments.values()} == {
        (2, "w2", "http://w2:8083", 5)
    }
    assert {m: sorted(o.tasks) for m, o in result.owners.items()} == {
        m: sorted(a.assigned.tasks) for m, a in result.assignments.items()
    }


def test_eager_assigns_everything_round_robin_over_sorted_members_as_kafka() -> None:
    members = {m: WorkerState(f"http://{m}:8083", 5) for m in ("w2", "w1")}
    result = assign(
        leader_id="w1",
        version=0,
        members=members,
        configured=TWO_BY_THREE,
        state=AssignorState(),
        last_completed_generation=-1,
        generation=1,
        now_ms=0,
        max_delay_ms=MAX_DELAY,
    )
    assert result.assignments["w1"].assigned == ConnectorsAndTasks(("a",), (T("a", 0), T("a", 2), T("b", 1)))
    assert result.assignments["w2"].assigned == ConnectorsAndTasks(("b",), (T("a", 1), T("b", 0), T("b", 2)))
    assert all(a.version == 0 and a.revoked.is_empty() for a in result.assignments.values())


def test_configured_work_reads_a_config_snapshot() -> None:
    snapshot = ClusterConfigState(
        connector_configs={"b": {}, "a": {}}, task_configs={"a": [{}, {}], "b": [{}]}
    )
    work = ConfiguredWork.of(snapshot, 17)
    assert work.offset == 17
    assert work.work() == ConnectorsAndTasks(("a", "b"), (T("a", 0), T("a", 1), T("b", 0)))
