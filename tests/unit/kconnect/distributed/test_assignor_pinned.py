"""A seeded random cluster's every assignment, pinned: the assignor may get faster, never different.

`history` drives the simulated cluster of `test_assignor` through joins, departures held for the
delay, returns under new member ids, config changes, duplicated work and a group without delay,
and records what each round tells each member. `assignor_pinned.json` holds that record as the
assignor computed it before its rounds were made close to linear (issue 24); regenerate it only
for a deliberate change of assignments:

    python -m tests.unit.kconnect.distributed.test_assignor_pinned
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from kconnect.distributed.assignor import ConfiguredWork
from kconnect.distributed.protocol import Assignment, ConnectorsAndTasks

from tests.unit.kconnect.distributed.test_assignor import MAX_DELAY, Cluster, counts, everything

PINNED = Path(__file__).with_name("assignor_pinned.json")
SEED = 24

Round = dict[str, list[object]]


def _ids(work: ConnectorsAndTasks) -> list[list[str]]:
    return [list(work.connectors), [str(t) for t in work.tasks]]


def _record(assignments: dict[str, Assignment]) -> Round:
    """Each member's (assigned, revoked, delay), in the order the assignor gave them."""
    return {m: [*_ids(a.assigned), *_ids(a.revoked), a.delay_ms] for m, a in assignments.items()}


def _check_settled(cluster: Cluster) -> None:
    """Everything configured runs exactly once, and no worker holds two more than another."""
    assert cluster.all_work() == everything(cluster.configured)
    held = counts(cluster)
    assert max(c for c, _ in held) - min(c for c, _ in held) <= 1
    assert max(t for _, t in held) - min(t for _, t in held) <= 1


def history(seed: int = SEED) -> list[Round]:
    """Every round's assignments of one seeded run of joins, departures and config changes."""
    rng = random.Random(seed)
    rounds: list[Round] = []
    task_counts = {f"c{i:02d}": rng.randint(0, 12) for i in range(60)}
    cluster = Cluster(ConfiguredWork(1, task_counts))
    now = 0

    def one(at: int) -> None:
        rounds.append(_record(cluster.round(at)))

    def settle(at: int) -> None:
        rounds.extend(_record(r) for r in cluster.settle(at))
        _check_settled(cluster)

    cluster.join(*(f"w{i:02d}" for i in range(9)))
    settle(now)
    cluster.join("w09", "w10")
    settle(now)

    # w03 leaves; a new empty worker joins while its work is held and gets it at the delay's end.
    now += 1_000
    cluster.leave("w03")
    one(now)
    cluster.join("w11")
    one(now + 1_000)
    one(now + MAX_DELAY)
    now += MAX_DELAY
    settle(now)

    # w05 and w07 leave; w05 comes back under a new member id at its URL; w07's work waits.
    url = cluster.urls["w05"]
    cluster.leave("w05")
    cluster.leave("w07")
    one(now + 10)
    cluster.join("w05-new", url=url)
    one(now + 20)
    now += 10 + MAX_DELAY
    one(now)
    settle(now)

    # The config changes: connectors deleted, created, tasks added and removed.
    names = sorted(task_counts)
    for gone in rng.sample(names, 5):
        del task_counts[gone]
    for i in range(8):
        task_counts[f"n{i}"] = rng.randint(1, 12)
    for changed in rng.sample(sorted(task_counts), 6):
        task_counts[changed] = rng.randint(0, 12)
    cluster.configured = ConfiguredWork(2, dict(task_counts))
    settle(now)

    # A task runs on two workers.
    holder, other = sorted(cluster.running)[:2]
    extra = ConnectorsAndTasks(tasks=cluster.running[holder].tasks[:1])
    cluster.running[other] = cluster.running[other].plus(extra)
    settle(now)

    # Random steps: joins, departures, config changes, rounds as time goes on.
    for step in range(30):
        now += rng.choice([0, 1_000, MAX_DELAY // 2, MAX_DELAY])
        event = rng.choice(["join", "leave", "config", "round"])
        if event == "join":
            cluster.join(f"r{step:02d}")
        elif event == "leave" and len(cluster.running) > 2:
            cluster.leave(rng.choice(sorted(cluster.running)))
        elif event == "config":
            name = rng.choice(sorted(task_counts))
            task_counts[name] = rng.randint(0, 12)
            cluster.configured = ConfiguredWork(cluster.configured.offset + 1, dict(task_counts))
        one(now)
    now += MAX_DELAY
    settle(now)

    # Without a delay, a departed worker's work moves at once.
    cluster.max_delay = 0
    cluster.leave(sorted(cluster.running)[-1])
    settle(now)
    return rounds


def test_a_seeded_random_clusters_assignments_are_the_pinned_ones() -> None:
    pinned = json.loads(PINNED.read_text())
    rounds = history()
    assert len(rounds) == len(pinned)
    for i, (got, expected) in enumerate(zip(rounds, pinned, strict=True)):
        assert got == expected, f"round {i}"


if __name__ == "__main__":
    PINNED.write_text(json.dumps(history(), separators=(",", ":")) + "\n")
