"""The leader's assignor alone: time per rebalance round and work moved, clusters of 50 to 500 workers.

No broker and no worker: a simulated group calls `kconnect.distributed.assignor.assign` the way the
leader does (each member reports what it runs; each stops what it is told to revoke and starts what
it is assigned). Every connector has 10 tasks; 2,000 connectors are 22,000 connectors and tasks and
10,000 are 110,000, the two sizes issue 24 quotes. For each cluster of W workers, one after the other:

- ``form``: W workers with nothing running form the group; everything is new (one round);
- ``join``: a worker joins the settled group: the leader revokes its share, the next round assigns it;
- ``leave``: a worker leaves; its work is held for ``scheduled.rebalance.max.delay.ms`` (one round);
- ``delay over``: nobody came back in time: the held work is spread over the others (one round);
- ``return after the delay``: the departed worker comes back empty at its old URL: revoke, assign;
- ``new empty worker``: after another worker leaves, a new empty one joins while the work is held
  and gets it when the delay is over (the joining round and the delay's end).

A round is timed ``--repeats`` times on the same input (the assignor is a pure function) and the
median counts; an event's figure is its slowest round. *Revoked* and *assigned* count connectors
and tasks told to stop and to start: nothing is created or deleted, so every assigned one moved.

    tox -e bench -- assignor.py                       # 50, 200, 500 workers x 22,000 and 110,000
    tox -e bench -- assignor.py --against dc673ba     # and the assignor of that commit, side by side
    tox -e bench -- assignor.py --quick               # 50 workers, 22,000, 3 repeats: seconds

``--against REV`` loads ``assignor.py`` as it was at git revision REV, times it on the same inputs
and checks that it answers every round exactly as the current one does. Writes
``docs/performance/assignor.{json,md,png}`` (``--out`` elsewhere) and prints the table.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import time
import types
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from kconnect.distributed import assignor as current_assignor
from kconnect.distributed.assignor import AssignorState, ConfiguredWork, RoundResult
from kconnect.distributed.protocol import EMPTY, Assignment, ConnectorsAndTasks, WorkerState
from kconnect.model import ConnectorTaskId
from run_all import measured_commit

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "docs" / "performance"
MAX_DELAY_MS = 300_000
GOAL_MS = 100.0
EVENTS = ("form", "join", "leave", "delay over", "return after the delay", "new empty worker")

Assign = Callable[..., RoundResult]
Answers = Callable[[RoundResult], RoundResult]
"""What makes an assignor's answer comparable with the current one's."""


def reference_assignor(revision: str) -> tuple[Assign, Answers]:
    """`assign` of kconnect.distributed.assignor as it was at git `revision`.

    Before issue 24's split it is one module, ``assignor.py``; since, a package whose modules import
    each other relatively, so the revision's package loads whole under its own name. Before
    ConnectorTaskId became a tuple (ce3986a) the revision's assignor builds ids of its own
    dataclass: it loads with the revision's ``kconnect.model``, and the second function returned
    gives its answers in today's ids (applied outside the timing), to compare with the current
    assignor's.
    """
    model = _model_at(revision)
    current_model = sys.modules["kconnect.model"]
    sys.modules["kconnect.model"] = model
    try:
        assign = _load_assignor(revision)
    finally:
        sys.modules["kconnect.model"] = current_model
    return assign, (_as_given if model is current_model else _in_todays_ids)


def _as_given(result: RoundResult) -> RoundResult:
    """`result` itself: its ids are today's."""
    return result


def _model_at(revision: str) -> types.ModuleType:
    """The revision's ``kconnect.model`` when it differs from today's, else today's."""
    path = "kernel/src/kconnect/model.py"
    source = _git("show", f"{revision}:{path}")
    if source == (HERE.parent / path).read_text():
        return sys.modules["kconnect.model"]
    name = f"model_at_{revision}"
    module = types.ModuleType(name)
    sys.modules[name] = module  # dataclasses look their module up
    exec(compile(source, f"{revision}:{path}", "exec"), module.__dict__)
    return module


def _in_todays_ids(result: RoundResult) -> RoundResult:
    """`result` with every task id a ConnectorTaskId of today's kconnect.model."""

    def now(work: ConnectorsAndTasks) -> ConnectorsAndTasks:
        return ConnectorsAndTasks(
            work.connectors, tuple(ConnectorTaskId(t.connector, t.task) for t in work.tasks)
        )

    state = result.state
    return RoundResult(
        {
            m: replace(a, assigned=now(a.assigned), revoked=now(a.revoked))
            for m, a in result.assignments.items()
        },
        {m: now(work) for m, work in result.owners.items()},
        replace(
            state,
            previous_assignment=now(state.previous_assignment),
            previous_revocation=now(state.previous_revocation),
            previous_urls={url: now(work) for url, work in state.previous_urls.items()},
        ),
    )


def _load_assignor(revision: str) -> Assign:
    """`assign` of the revision's assignor module or package, importing what kconnect has loaded."""
    name = f"assignor_at_{revision}"
    path = "kernel/src/kconnect/distributed/assignor"
    if not _is_folder(revision, path):
        module = types.ModuleType(name)
        sys.modules[name] = module  # dataclasses look their module up
        exec(compile(_git("show", f"{revision}:{path}.py"), f"{revision}:{path}.py", "exec"), module.__dict__)
        assign: Assign = module.assign
        return assign
    folder = Path(tempfile.mkdtemp(prefix="assignor-")) / name
    folder.mkdir()
    for file in _git("ls-tree", "--full-tree", "--name-only", f"{revision}:{path}").split():
        (folder / file).write_text(_git("show", f"{revision}:{path}/{file}"))
    spec = importlib.util.spec_from_file_location(
        name, folder / "__init__.py", submodule_search_locations=[str(folder)]
    )
    assert spec is not None and spec.loader is not None
    package = importlib.util.module_from_spec(spec)
    sys.modules[name] = package
    spec.loader.exec_module(package)
    assign = package.assign
    return assign


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], capture_output=True, text=True, check=True, cwd=HERE).stdout


def _is_folder(revision: str, path: str) -> bool:
    """Whether `path` is a folder at `revision`."""
    found = subprocess.run(
        ["git", "cat-file", "-t", f"{revision}:{path}"], capture_output=True, text=True, cwd=HERE
    )
    return found.stdout.strip() == "tree"


@dataclass
class Timed:
    """One event's figures for one assignor."""

    rounds: int = 0
    slowest_ms: float = 0.0
    total_ms: float = 0.0
    slowest_cpu_ms: float = 0.0
    """The same round's CPU time: on a busy machine the wall clock also counts other processes' turns."""
    revoked: int = 0
    assigned: int = 0


@dataclass
class Group:
    """The simulated members, what each runs, and the leader's state between rounds."""

    configured: ConfiguredWork
    assignors: dict[str, Assign]
    repeats: int
    answers: dict[str, Answers] = field(default_factory=dict)
    """Per assignor, what makes its answers comparable (none: they are)."""
    running: dict[str, ConnectorsAndTasks] = field(default_factory=dict)
    urls: dict[str, str] = field(default_factory=dict)
    state: AssignorState = field(default_factory=AssignorState)
    generation: int = 0
    now_ms: int = 0

    def join(self, member: str, url: str) -> None:
        """A member joins running nothing."""
        self.running[member], self.urls[member] = EMPTY, url

    def leave(self, member: str) -> None:
        """A member leaves the group (its process stopped)."""
        del self.running[member], self.urls[member]

    def round(self, figures: dict[str, Timed]) -> bool:
        """One rebalance, timed for every assignor; applies the first one's answer. Whether it revoked."""
        members = {
            m: WorkerState(self.urls[m], self.configured.offset, Assignment(1, 0, "", "", 0, work))
            for m, work in self.running.items()
        }
        self.generation += 1
        kwargs: dict[str, Any] = {
            "leader_id": min(members),
            "version": 1,
            "members": members,
            "configured": self.configured,
            "state": self.state,
            "last_completed_generation": self.generation - 1,
            "generation": self.generation,
            "now_ms": self.now_ms,
            "max_delay_ms": MAX_DELAY_MS,
        }
        results: list[RoundResult] = []
        for name, assign in self.assignors.items():
            seconds, cpu_seconds = [], []
            for _ in range(self.repeats):
                gc.collect()
                started, started_cpu = time.perf_counter(), time.process_time()
                result = assign(**kwargs)
                seconds.append(time.perf_counter() - started)
                cpu_seconds.append(time.process_time() - started_cpu)
            results.append(self.answers.get(name, _as_given)(result))
            ms = statistics.median(seconds) * 1000
            f = figures[name]
            f.rounds += 1
            if ms > f.slowest_ms:
                f.slowest_ms, f.slowest_cpu_ms = ms, statistics.median(cpu_seconds) * 1000
            f.total_ms += ms
            f.revoked += sum(
                len(a.revoked.connectors) + len(a.revoked.tasks) for a in result.assignments.values()
            )
            f.assigned += sum(
                len(a.assigned.connectors) + len(a.assigned.tasks) for a in result.assignments.values()
            )
        first = results[0]
        for other, name in zip(results[1:], list(self.assignors)[1:], strict=True):
            if other.assignments != first.assignments or other.state != first.state:
                raise RuntimeError(f"generation {self.generation}: {name} assigns differently")
        self.state = first.state
        for m, a in first.assignments.items():
            self.running[m] = self.running[m].minus(a.revoked).plus(a.assigned)
        return any(not a.revoked.is_empty() for a in first.assignments.values())

    def settle(self, figures: dict[str, Timed]) -> None:
        """Rounds until one revokes nothing (members told to revoke rejoin at once)."""
        while self.round(figures):
            pass


def run_cluster(
    workers: int,
    connectors: int,
    tasks: int,
    assignors: dict[str, Assign],
    repeats: int,
    answers: dict[str, Answers],
    group_type: type[Group] = Group,
) -> dict[str, Any]:
    """The six events on one cluster: {event: {assignor: Timed as a dict}}."""
    configured = ConfiguredWork(1, {f"connector-{i:05d}": tasks for i in range(connectors)})
    group = group_type(configured, assignors, repeats, answers=answers)
    events: dict[str, dict[str, Timed]] = {e: {name: Timed() for name in assignors} for e in EVENTS}
    ignored = {name: Timed() for name in assignors}
    for i in range(workers):
        group.join(f"worker-{i:04d}", f"http://worker-{i:04d}:8083")
    group.settle(events["form"])

    group.join("worker-joining", "http://worker-joining:8083")
    group.settle(events["join"])

    departed = "worker-0001"
    group.leave(departed)
    group.now_ms += 1_000
    group.round(events["leave"])
    group.now_ms += MAX_DELAY_MS
    group.round(events["delay over"])
    group.join(f"{departed}-again", f"http://{departed}:8083")
    group.now_ms += 1_000
    group.settle(events["return after the delay"])

    group.leave("worker-0002")
    group.now_ms += 1_000
    group.round(ignored)
    group.join("worker-new", "http://worker-new:8083")
    group.now_ms += 1_000
    group.round(events["new empty worker"])
    group.now_ms += MAX_DELAY_MS
    group.settle(events["new empty worker"])
    return {event: {name: vars(t) for name, t in by.items()} for event, by in events.items()}


def table(results: list[dict[str, Any]], names: list[str]) -> str:
    """Markdown: one row per cluster and event; ms of the slowest round per assignor, moves."""
    head = "| workers | connectors + tasks | event | rounds | " + " | ".join(
        f"ms per round (CPU ms), {n}" for n in names
    )
    rows = [head + " | revoked | assigned |", "|---|---|---|---|" + "---|" * len(names) + "---|---|"]
    for r in results:
        for event, by in r["events"].items():
            first = by[names[0]]
            times = " | ".join(f"{by[n]['slowest_ms']:,.1f} ({by[n]['slowest_cpu_ms']:,.1f})" for n in names)
            rows.append(
                f"| {r['workers']} | {r['items']:,} | {event} | {first['rounds']} | {times} | "
                f"{first['revoked']:,} | {first['assigned']:,} |"
            )
    return "\n".join(rows) + "\n"


def chart(results: list[dict[str, Any]], names: list[str], path: Path) -> None:
    """One panel per assignor: the slowest round of each event per cluster, log scale, the goal marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(names), figsize=(7 * len(names), 4.6), squeeze=False, sharey=True)
    clusters = [f"{r['workers']} workers\n{r['items']:,}" for r in results]
    width = 0.8 / len(EVENTS)
    for axis, name in zip(axes[0], names, strict=True):
        for j, event in enumerate(EVENTS):
            xs = [i + (j - (len(EVENTS) - 1) / 2) * width for i in range(len(results))]
            axis.bar(xs, [r["events"][event][name]["slowest_ms"] for r in results], width, label=event)
        axis.axhline(GOAL_MS, color="black", linestyle="--", linewidth=1, label=f"goal: {GOAL_MS:.0f} ms")
        axis.set_xticks(range(len(results)), clusters, fontsize=8)
        axis.set_yscale("log")
        axis.set_ylabel("ms per round (slowest round of the event)")
        axis.set_title(f"assignor: {name}", fontsize=10)
        axis.legend(fontsize=7)
    fig.suptitle("The leader's assignor: one rebalance round, 10 tasks per connector", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> int:
    """Run every cluster, print the table, write the report."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--workers", default="50,200,500", help="worker counts, comma-separated")
    parser.add_argument("--connectors", default="2000,10000", help="connector counts, comma-separated")
    parser.add_argument("--tasks", type=int, default=10, help="tasks per connector")
    parser.add_argument("--repeats", type=int, default=5, help="timings of each round; the median counts")
    parser.add_argument("--against", metavar="REV", help="also time the assignor of this git revision")
    parser.add_argument("--quick", action="store_true", help="50 workers, 2,000 connectors, 3 repeats")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    if args.quick:
        args.workers, args.connectors, args.repeats = "50", "2000", 3
    assignors: dict[str, Assign] = {"current": current_assignor.assign}
    answers: dict[str, Answers] = {}
    if args.against:
        assignors[args.against], answers[args.against] = reference_assignor(args.against)
    names = list(assignors)
    results = []
    for connectors in (int(c) for c in args.connectors.split(",")):
        for workers in (int(w) for w in args.workers.split(",")):
            started = time.monotonic()
            events = run_cluster(workers, connectors, args.tasks, assignors, args.repeats, answers)
            items = connectors * (args.tasks + 1)
            results.append({"workers": workers, "connectors": connectors, "items": items, "events": events})
            print(
                f"{workers} workers, {items:,} connectors and tasks: {time.monotonic() - started:.0f} s",
                flush=True,
            )
    report = {
        "commit": measured_commit(),
        "measured": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "python": sys.version.split()[0],
        "tasks_per_connector": args.tasks,
        "repeats": args.repeats,
        "max_delay_ms": MAX_DELAY_MS,
        "assignors": names,
        "results": results,
    }
    text = table(results, names)
    print(text)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "assignor.json").write_text(json.dumps(report, indent=2) + "\n")
    title = "The leader's assignor: one rebalance round, 10 tasks per connector"
    (args.out / "assignor.md").write_text(
        f"### {title}\n\n*Commit {report['commit']}, {report['measured']}, Python {report['python']}, "
        f"median of {args.repeats} timings per round; an event's figure is its slowest round.*\n\n"
        f"{text}\n![{title}](assignor.png)\n"
    )
    chart(results, names, args.out / "assignor.png")
    print(f"written: {args.out / 'assignor.md'}, assignor.json, assignor.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
