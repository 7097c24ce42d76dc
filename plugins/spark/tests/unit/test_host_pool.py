"""HostPool: placement onto hosts, and what a finished or abandoned run does to its host."""

from __future__ import annotations

from typing import Any

from kconnect.config.worker_settings import WorkerSettings
from kconnect.executor import TaskSpec
from kconnect.model import ConnectorTaskId, TargetState
from kconnect_spark.host_pool import HostPool
from kconnect_spark.host_run import HostRun
from kconnect_spark.task_run import TaskRun


def run(name: str, **connector: str) -> TaskRun:
    spec = TaskSpec(
        ConnectorTaskId(name, 0), "source", "x.Task", dict(connector), {}, WorkerSettings.from_props({})
    )
    return TaskRun(spec, TargetState.STARTED)


def pool(capacity: int = 3) -> tuple[HostPool, list[HostRun]]:
    submitted: list[HostRun] = []
    return HostPool(capacity, submitted.append, lambda r: r.token), submitted  # type: ignore[arg-type,return-value]


def test_tasks_open_one_host_per_core_then_share_and_a_dedicated_task_gets_its_own() -> None:
    hosts, submitted = pool()
    a, b, c, hot = run("a"), run("b"), run("c"), run("hot", **{"executor.dedicated.spark.task": "true"})
    for r in (a, b, c):
        hosts.place(r, spread=2)
    hosts.place(hot, spread=2)
    assert [len(h.runs) for h in submitted] == [2, 1, 1]
    assert c.host is submitted[0] and hot.host is submitted[2]
    assert submitted[2].dedicated and submitted[2].capacity == 1 and submitted[2].label == "task hot-0"


def test_a_task_placed_on_a_started_host_is_sent_to_it_at_once() -> None:
    hosts, submitted = pool()
    hosts.place(run("a"), spread=1)
    sent: list[Any] = []
    submitted[0].send_run = lambda token, launch: sent.append(token)  # type: ignore[method-assign]
    submitted[0].writer = object()  # type: ignore[assignment]
    b = run("b")
    hosts.place(b, spread=1)
    assert sent == [b.token] and len(submitted) == 1


def test_the_last_finished_task_closes_its_host_and_one_never_started_is_cancelled() -> None:
    hosts, submitted = pool()
    a, b = run("a"), run("b")
    hosts.place(a, spread=1)
    hosts.place(b, spread=1)
    assert hosts.release(a) is None and not submitted[0].closing
    assert hosts.release(b) == submitted[0].job_group, "never started: its job group is cancelled"
    assert submitted[0].closing


def test_abandoning_cancels_a_host_of_one_task_but_not_a_shared_one() -> None:
    hosts, submitted = pool()
    alone = run("alone", **{"executor.dedicated.spark.task": "true"})
    hosts.place(alone, spread=1)
    assert hosts.abandon(alone) == submitted[0].job_group
    a, b = run("a"), run("b")
    hosts.place(a, spread=1)
    hosts.place(b, spread=1)
    assert hosts.abandon(a) is None and a.job_ended.is_set(), "taken off a host that never started"
    assert submitted[1].runs == [b]


def test_a_host_that_ends_ends_every_task_on_it_with_its_error() -> None:
    hosts, submitted = pool()
    a, b = run("a"), run("b")
    hosts.place(a, spread=1)
    hosts.place(b, spread=1)
    hosts.ended(submitted[0], "Python worker exited unexpectedly")
    assert a.job_ended.is_set() and b.job_ended.is_set()
    assert a.spark_error == b.spark_error == "Python worker exited unexpectedly"
    assert hosts.hosts == [] and hosts.launched() == []


def java(name: str, task: int = 0, **connector: str) -> TaskRun:
    spec = TaskSpec(
        ConnectorTaskId(name, task),
        "source",
        "x.Task",
        dict(connector),
        {},
        WorkerSettings.from_props({}),
        runtime="java",
    )
    return TaskRun(spec, TargetState.STARTED)


def test_java_tasks_share_java_hosts_only_and_python_tasks_python_hosts_only() -> None:
    hosts, submitted = pool()
    python = [run("py-a"), run("py-b")]
    javas = [java("j", task) for task in range(4)]
    for r in (python[0], javas[0], javas[1], python[1], javas[2], javas[3]):
        hosts.place(r, spread=1)
    assert [h.runtime for h in submitted] == ["python", "java", "java"]
    assert submitted[0].runs == python, "Python tasks share the Python host"
    assert submitted[1].runs == javas[:3], "three to a host"
    assert submitted[2].runs == javas[3:], "then a new one"


def test_a_java_task_of_a_dedicated_connector_gets_a_java_host_of_its_own() -> None:
    hosts, submitted = pool()
    hosts.place(java("shared"), spread=1)
    hot = java("hot", **{"executor.dedicated.spark.task": "true"})
    hosts.place(hot, spread=1)
    assert hot.host is submitted[1] and submitted[1].dedicated and submitted[1].runtime == "java"
    assert submitted[1].label == "task hot-0" and submitted[1].capacity == 1


def test_a_java_task_joining_a_started_java_host_is_sent_its_launch() -> None:
    submitted: list[HostRun] = []
    hosts = HostPool(3, submitted.append, lambda r: f"{r.spec.runtime} launch of {r.id}")
    hosts.place(java("j", 0), spread=1)
    sent: list[tuple[str, str]] = []
    submitted[0].send_run = lambda token, launch: sent.append((token, launch))  # type: ignore[method-assign]
    submitted[0].writer = object()  # type: ignore[assignment]
    second = java("j", 1)
    hosts.place(second, spread=1)
    assert sent == [(second.token, "java launch of j-1")] and len(submitted) == 1
