"""Distributed mode end to end: three ``kconnect distributed`` worker processes on the real broker.

One cluster (three workers, each with its embedded Spark) serves the whole module; the tests run
in file order and each leaves the cluster as it found it, except the last two, which add a fourth
worker and then SIGKILL one. Every check is made over REST as an operator would: on every worker,
through whichever worker the operator happened to call.

* a connector created on A is listed, configured and reported by B and C; every worker's
  ``?expand=status`` names the worker of each task, and the tasks are spread over the three;
* pause through B pauses the tasks running elsewhere, and stays paused across a full restart of
  every worker; resume brings the flow back;
* ``restart?includeTasks=true&onlyFailed=true`` through a worker that does not run the failed task
  restarts only that task (its Spark Python worker was SIGKILLed), wherever it runs;
* stop, then PATCH and DELETE of offsets through followers, then resume, continues from the
  altered offsets, for a source (the offsets topic) and a sink (its consumer group);
* a fourth worker joining takes a share of the tasks while the tasks that stay put never restart;
* SIGKILL of the worker running the source task moves it to a survivor within
  ``scheduled.rebalance.max.delay.ms`` plus a margin, and the sink file holds every source line.

Apart from the shared cluster, Kafka's own ``connect-distributed.properties`` runs unchanged (in
private namespaces, for its fixed ``localhost:9092`` and port 8083).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from kconnect.worker_config import load_properties
from kconnect_testkit.broker import KafkaBroker

from tests import private_net
from tests.integration.harness import lines
from tests.worker_process import WorkerProcess, stop_all

SAMPLES = Path(__file__).resolve().parent.parent / "fixtures" / "kafka-config"

pytestmark = pytest.mark.integration

DELAY_MS = 5000
"""``scheduled.rebalance.max.delay.ms`` of the test cluster: how long a departed worker's work waits."""

SINK = f"sink-{uuid.uuid4().hex[:8]}"
"""The module's sink connector. Its consumer group ``connect-<name>`` lives on the session broker, where
other modules' sinks named plain ``sink`` left their own topics' offsets in ``connect-sink``: with that
name, the sink's offsets listed those foreign topics too (and the test that stops the sink failed
before resuming it, so every later test waited for a sink that never ran again)."""


@dataclass
class Cluster:
    """Three (later four) distributed workers of one group, and what the tests share."""

    workers: list[WorkerProcess]
    workdir: Path
    props: dict[str, str]
    topic: str
    made: list[WorkerProcess] = field(default_factory=list)

    def worker_named(self, worker_id: str) -> WorkerProcess:
        """The worker whose id (``host:port``) is `worker_id`."""
        return next(w for w in self.workers if worker_id == f"127.0.0.1:{w.port}")

    def add_worker(self) -> WorkerProcess:
        """Start one more worker of the group and wait until it is healthy."""
        worker = WorkerProcess(self.workdir, self.props, mode="distributed")
        self.made.append(worker)
        self.workers.append(worker.start())
        wait_healthy([worker])
        return worker


def create_topic(bootstrap: str, topic: str, partitions: int) -> None:
    """Create `topic` with `partitions` partitions (the sink runs one task per partition)."""
    import asyncio

    async def create() -> None:
        admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
        await admin.start()
        try:
            await admin.create_topics([NewTopic(topic, partitions, 1)])
        finally:
            await admin.close()

    asyncio.run(create())


def wait_healthy(workers: list[WorkerProcess], timeout: float = 180.0) -> None:
    """Wait until every worker's ``/health`` answers 200 (topics read, group joined, Spark up)."""
    for worker in workers:
        worker.wait_for(
            "the worker to be healthy", lambda w=worker: w.get("/health").status_code == 200, timeout
        )


def group_props(bootstrap: str, stem: str, **overrides: str) -> dict[str, str]:
    """Worker properties of a fresh group (``<stem>-<random>``) with its own internal topics on the
    one test broker (replication 1, two partitions each), short heartbeats and rebalance delay."""
    group = f"{stem}-{uuid.uuid4().hex[:8]}"
    return {
        "bootstrap.servers": bootstrap,
        "group.id": group,
        "config.storage.topic": f"{group}-configs",
        "offset.storage.topic": f"{group}-offsets",
        "status.storage.topic": f"{group}-status",
        "config.storage.replication.factor": "1",
        "offset.storage.replication.factor": "1",
        "status.storage.replication.factor": "1",
        "offset.storage.partitions": "2",
        "status.storage.partitions": "2",
        "offset.flush.interval.ms": "500",
        "heartbeat.interval.ms": "1000",
        "session.timeout.ms": "6000",
        "scheduled.rebalance.max.delay.ms": "5000",
        **overrides,
    }


@contextlib.contextmanager
def running_workers(workdir: Path, props: dict[str, str], count: int) -> Iterator[list[WorkerProcess]]:
    """`count` distributed workers started together and healthy; stopped on the way out."""
    workers = [WorkerProcess(workdir, props, mode="distributed") for _ in range(count)]
    for worker in workers:
        worker.start()
    try:
        wait_healthy(workers)
        yield workers
    finally:
        stop_all(workers)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory, kafka_bootstrap: str) -> Iterator[Cluster]:
    """Three workers of a fresh group with fresh internal topics, started together."""
    workdir = tmp_path_factory.mktemp("distributed")
    props = group_props(
        kafka_bootstrap,
        "kconnect-dist",
        **{
            "offset.storage.partitions": "5",
            "status.storage.partitions": "3",
            "key.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "scheduled.rebalance.max.delay.ms": str(DELAY_MS),
            "spark.master": "local[4]",
        },
    )
    group = props["group.id"]
    topic = f"{group}-lines"
    create_topic(kafka_bootstrap, topic, 3)
    workers = [WorkerProcess(workdir, props, mode="distributed") for _ in range(3)]
    for worker in workers:
        worker.start()
    made = list(workers)
    try:
        wait_healthy(workers)
        state = Cluster(workers, workdir, props, topic, made)
        yield state
        made = state.made
    finally:
        stop_all(made)


# --- what an operator reads ------------------------------------------------------------------------------


def expanded(worker: WorkerProcess) -> dict[str, Any]:
    """``GET /connectors?expand=status`` on `worker`."""
    response = worker.get("/connectors?expand=status")
    assert response.status_code == 200, response.text
    return dict(response.json())


def task_states(worker: WorkerProcess, name: str) -> dict[int, tuple[str, str]]:
    """Task id -> (state, worker_id) of `name`, as `worker` reports it."""
    body = worker.status(name)
    return {t["id"]: (t["state"], t["worker_id"]) for t in body["tasks"]}


def wait_all(
    cluster: Cluster, what: str, check: Callable[[WorkerProcess], bool], timeout: float = 60.0
) -> None:
    """Wait until `check` holds on every worker."""
    for worker in cluster.workers:
        worker.wait_for(f"{what} (as {worker.url} reports)", lambda w=worker: check(w), timeout)


def all_tasks_in(state: str, name: str, count: int) -> Callable[[WorkerProcess], bool]:
    """A check: the connector and its `count` tasks are all in `state`."""

    def check(worker: WorkerProcess) -> bool:
        body = worker.status(name)
        return (
            body["connector"]["state"] == state
            and len(body["tasks"]) == count
            and all(t["state"] == state for t in body["tasks"])
        )

    return check


def read_lines(path: Path) -> list[str]:
    """The complete lines of a sink file (none if it does not exist yet); a last line still being
    written (no newline yet) is left out, so a count never includes half a line."""
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    return text[: text.rfind("\n") + 1].splitlines()


def settled_counts(path: Path, quiet_s: float = 2.0) -> Counter[str]:
    """How often each line is in the sink file once it stopped growing for `quiet_s` (a sink may
    still be writing records redelivered by a rebalance of its consumer group)."""
    size, since = -1, time.monotonic()
    while time.monotonic() - since < quiet_s:
        now = path.stat().st_size if path.exists() else 0
        if now != size:
            size, since = now, time.monotonic()
        time.sleep(0.1)
    return Counter(read_lines(path))


def runs_of(worker: WorkerProcess, task: str) -> list[str]:
    """The Spark Python worker pids that ran `task` on `worker`, in order (from its log)."""
    pattern = re.compile(
        rf"Task {re.escape(task)} \(generation \d+\) runs in Spark's Python worker process (\d+)"
    )
    return pattern.findall(worker.log_path.read_text(errors="replace"))


def post(worker: WorkerProcess, path: str, body: Any = None, method: str = "POST") -> Any:
    """A REST call that must succeed; returns the response."""
    response = worker.request(method, path, body)
    assert response.status_code < 300, (method, path, response.status_code, response.text)
    return response


def create(worker: WorkerProcess, name: str, config: dict[str, str]) -> dict[str, Any]:
    """Create a connector through `worker`, retrying the 409 a rebalance can cause (Kafka's advice)."""
    deadline = time.monotonic() + 60
    while True:
        response = worker.request("POST", "/connectors", {"name": name, "config": config})
        if response.status_code != 409 or time.monotonic() > deadline:
            assert response.status_code == 201, (response.status_code, response.text)
            return dict(response.json())
        time.sleep(0.5)


@pytest.fixture(scope="module")
def pipeline(cluster: Cluster) -> dict[str, Any]:
    """A FileStreamSource (1 task) and a FileStreamSink (3 tasks, one per partition) through the cluster."""
    source_file, sink_file = cluster.workdir / "in.txt", cluster.workdir / "out.txt"
    source_file.write_text(lines(0, 2000), encoding="utf-8")
    a = cluster.workers[0]
    create(
        a, "src", {"connector.class": "FileStreamSource", "file": str(source_file), "topic": cluster.topic}
    )
    create(
        a,
        SINK,
        {
            "connector.class": "FileStreamSink",
            "file": str(sink_file),
            "topics": cluster.topic,
            "tasks.max": "3",
        },
    )
    return {"source": source_file, "sink": sink_file}


def every_line_arrives(cluster: Cluster, pipeline: dict[str, Any], timeout: float = 90.0) -> None:
    """Wait until the sink file holds every line of the source file (duplicates allowed, none lost)."""
    expected = set(read_lines(pipeline["source"]))
    cluster.workers[0].wait_for(
        f"all {len(expected)} source lines in the sink file",
        lambda: expected <= set(read_lines(pipeline["sink"])),
        timeout,
    )


def append(pipeline: dict[str, Any], start: int, stop: int) -> None:
    """Append numbered lines to the source file."""
    with pipeline["source"].open("a", encoding="utf-8") as f:
        f.write(lines(start, stop))


# --- tests ------------------------------------------------------------------------------------------------


def test_kafkas_connect_distributed_properties_run_unchanged(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """Kafka's worker file byte for byte; the sample connectors created over REST, every line arrives."""
    if not private_net.inside():
        private_net.rerun_inside(request)
        return
    for sample in SAMPLES.iterdir():
        shutil.copy(sample, tmp_path / sample.name)
    (tmp_path / "test.txt").write_text(lines(0, 500), encoding="utf-8")
    with KafkaBroker(port=9092):
        worker = WorkerProcess.from_files(
            tmp_path, tmp_path / "connect-distributed.properties", [], url="http://127.0.0.1:8083"
        )
        worker.mode = "distributed"
        worker.start()
        try:
            wait_healthy([worker])
            for sample in ("connect-file-source.properties", "connect-file-sink.properties"):
                config = load_properties(tmp_path / sample)
                response = worker.request("PUT", f"/connectors/{config['name']}/config", config)
                assert response.status_code == 201, response.text
            worker.wait_for(
                "every line in test.sink.txt", lambda: len(read_lines(tmp_path / "test.sink.txt")) >= 500
            )
            assert (tmp_path / "test.sink.txt").read_bytes() == (tmp_path / "test.txt").read_bytes()
            topics = worker.get("/connectors/local-file-source/topics").json()
            assert topics == {"local-file-source": {"topics": ["connect-test"]}}
        finally:
            assert worker.stop() == 0
    log = worker.log_path.read_text()
    assert "group connect-cluster" in log, worker.log_tail()


def test_a_connector_created_on_one_worker_is_seen_everywhere_and_its_tasks_spread(
    cluster: Cluster, pipeline: dict[str, Any]
) -> None:
    a, b, c = cluster.workers
    for worker in (b, c):
        worker.wait_for(
            "both connectors listed", lambda w=worker: w.get("/connectors").json() == [SINK, "src"], 10
        )
        config = worker.get("/connectors/src/config").json()
        assert (config["connector.class"], config["file"]) == ("FileStreamSource", str(pipeline["source"]))
    wait_all(cluster, "the source RUNNING", all_tasks_in("RUNNING", "src", 1))
    wait_all(cluster, "the sink's 3 tasks RUNNING", all_tasks_in("RUNNING", SINK, 3))
    views = [expanded(w) for w in (a, b, c)]
    assert views[0] == views[1] == views[2], "every worker reports the same statuses"
    ids = {f"127.0.0.1:{w.port}" for w in (a, b, c)}
    task_workers = [t["worker_id"] for body in views[0].values() for t in body["status"]["tasks"]]
    assert len(task_workers) == 4 and set(task_workers) == ids, f"4 tasks over 3 workers: {task_workers}"
    every_line_arrives(cluster, pipeline)


def test_pause_through_one_worker_pauses_tasks_elsewhere_and_survives_a_full_restart(
    cluster: Cluster, pipeline: dict[str, Any]
) -> None:
    a, b, _ = cluster.workers
    src_worker = cluster.worker_named(task_states(a, "src")[0][1])
    caller = next(w for w in cluster.workers if w is not src_worker)
    assert post(caller, "/connectors/src/pause", method="PUT").status_code == 202
    wait_all(cluster, "the source PAUSED", all_tasks_in("PAUSED", "src", 1))
    every_line_arrives(cluster, pipeline)
    append(pipeline, 2000, 2100)
    time.sleep(3)
    assert "line 2050" not in read_lines(pipeline["sink"]), "a paused source sent lines"

    codes = stop_all(cluster.workers)
    assert codes == [0] * len(codes), [w.log_tail() for w in cluster.workers]
    for worker in cluster.workers:
        worker.start()
    wait_healthy(cluster.workers)
    wait_all(cluster, "the source still PAUSED after the restart", all_tasks_in("PAUSED", "src", 1), 90)
    assert "line 2050" not in read_lines(pipeline["sink"])

    assert post(b, "/connectors/src/resume", method="PUT").status_code == 202
    wait_all(cluster, "the source RUNNING again", all_tasks_in("RUNNING", "src", 1))
    wait_all(cluster, "the sink RUNNING", all_tasks_in("RUNNING", SINK, 3), 90)
    every_line_arrives(cluster, pipeline)


def test_restart_of_only_failed_tasks_restarts_just_the_failed_one_wherever_it_runs(
    cluster: Cluster, pipeline: dict[str, Any]
) -> None:
    a = cluster.workers[0]
    states = task_states(a, SINK)
    victim_id, (_, victim_worker_id) = next(iter(sorted(states.items())))
    victim_worker = cluster.worker_named(victim_worker_id)
    task = f"{SINK}-{victim_id}"
    pid = int(runs_of(victim_worker, task)[-1])
    others = {
        i: runs_of(cluster.worker_named(w), f"{SINK}-{i}") for i, (_, w) in states.items() if i != victim_id
    }

    os.kill(pid, signal.SIGKILL)
    wait_all(cluster, f"{task} FAILED", lambda w: task_states(w, SINK)[victim_id][0] == "FAILED")
    trace = a.get(f"/connectors/{SINK}/tasks/{victim_id}/status").json()["trace"]
    assert trace.startswith(f"The Python worker process running task {task} died"), trace

    caller = next(w for w in cluster.workers if w is not victim_worker)
    response = post(caller, f"/connectors/{SINK}/restart?includeTasks=true&onlyFailed=true")
    assert response.status_code == 202, response.text
    body = response.json()
    assert body["connector"]["state"] == "RUNNING"
    assert {t["id"]: t["state"] for t in body["tasks"]} == {
        i: "RESTARTING" if i == victim_id else "RUNNING" for i in states
    }
    wait_all(cluster, "the sink's tasks RUNNING", all_tasks_in("RUNNING", SINK, 3))
    assert len(runs_of(victim_worker, task)) >= 2, "the failed task did not run again"
    for i, runs in others.items():
        owner = cluster.worker_named(states[i][1])
        assert runs_of(owner, f"{SINK}-{i}") == runs, f"{SINK}-{i} restarted although it had not failed"
    append(pipeline, 2100, 2200)
    every_line_arrives(cluster, pipeline)


def test_stop_then_offsets_altered_and_reset_through_followers_then_resume_from_them(
    cluster: Cluster, pipeline: dict[str, Any]
) -> None:
    a, b, c = cluster.workers
    every_line_arrives(cluster, pipeline)
    assert post(b, "/connectors/src/stop", method="PUT").status_code == 204
    wait_all(cluster, "the source STOPPED with no tasks", stopped_without_tasks("src"))
    partition = {"filename": str(pipeline["source"])}
    size = pipeline["source"].stat().st_size
    assert c.get("/connectors/src/offsets").json() == {
        "offsets": [{"partition": partition, "offset": {"position": size}}]
    }

    # Rewind to the start of line 1000: lines 1000.. are sent once more on resume, nothing else.
    rewind = len(lines(0, 1000).encode())
    change = {"offsets": [{"partition": partition, "offset": {"position": rewind}}]}
    response = post(c, "/connectors/src/offsets", change, "PATCH")
    assert response.json() == {"message": "The offsets for this connector have been altered successfully"}
    for worker in (a, b, c):
        assert worker.get("/connectors/src/offsets").json() == change
    total = len(read_lines(pipeline["source"]))
    before = settled_counts(pipeline["sink"])
    assert post(a, "/connectors/src/resume", method="PUT").status_code == 202
    wait_all(cluster, "the source RUNNING", all_tasks_in("RUNNING", "src", 1))
    a.wait_for("lines 1000.. sent once more", lambda: sent_again(pipeline, before, range(1000, total)))
    after = Counter(read_lines(pipeline["sink"]))
    assert all(after[f"line {i}"] == before[f"line {i}"] for i in range(1000)), (
        "lines before the offset sent again"
    )

    # Reset: stop, delete every offset through a follower, resume: the whole file once more.
    every_line_arrives(cluster, pipeline)
    assert post(c, "/connectors/src/stop", method="PUT").status_code == 204
    wait_all(cluster, "the source STOPPED", stopped_without_tasks("src"))
    response = post(b, "/connectors/src/offsets", method="DELETE")
    assert response.json() == {"message": "The offsets for this connector have been reset successfully"}
    assert c.get("/connectors/src/offsets").json() == {"offsets": []}
    before = settled_counts(pipeline["sink"])
    assert post(b, "/connectors/src/resume", method="PUT").status_code == 202
    a.wait_for("the whole file sent once more", lambda: sent_again(pipeline, before, range(total)))


def stopped_without_tasks(name: str) -> Callable[[WorkerProcess], bool]:
    """A check: the connector is STOPPED and has no tasks."""

    def check(worker: WorkerProcess) -> bool:
        body = worker.status(name)
        return body["connector"]["state"] == "STOPPED" and body["tasks"] == []

    return check


def sent_again(pipeline: dict[str, Any], before: Counter[str], numbers: range) -> bool:
    """Whether every line numbered in `numbers` is in the sink file once more than in `before`."""
    now = Counter(read_lines(pipeline["sink"]))
    return all(now[f"line {i}"] >= before[f"line {i}"] + 1 for i in numbers)


def test_sink_offsets_read_altered_and_reset_through_followers_while_stopped(
    cluster: Cluster, pipeline: dict[str, Any]
) -> None:
    """KIP-875 for a sink: the consumer group ``connect-<SINK>``'s offsets, through any worker."""
    a, b, c = cluster.workers
    every_line_arrives(cluster, pipeline)
    assert post(c, f"/connectors/{SINK}/stop", method="PUT").status_code == 204
    wait_all(cluster, "the sink STOPPED with no tasks", stopped_without_tasks(SINK))
    offsets = a.get(f"/connectors/{SINK}/offsets").json()["offsets"]
    committed = {o["partition"]["kafka_partition"]: o["offset"]["kafka_offset"] for o in offsets}
    assert committed and set(committed) <= {0, 1, 2}, offsets  # partitions that received records
    assert all(o["partition"]["kafka_topic"] == cluster.topic for o in offsets)
    assert sum(committed.values()) >= len(read_lines(pipeline["source"])), offsets

    rewound = min(committed)
    partition = {"kafka_topic": cluster.topic, "kafka_partition": rewound}
    change = {"offsets": [{"partition": partition, "offset": {"kafka_offset": 0}}]}
    response = post(b, f"/connectors/{SINK}/offsets", change, "PATCH")
    assert response.json() == {"message": "The offsets for this connector have been altered successfully"}
    altered = c.get(f"/connectors/{SINK}/offsets").json()["offsets"]
    assert {o["partition"]["kafka_partition"]: o["offset"]["kafka_offset"] for o in altered} == {
        **committed,
        rewound: 0,
    }

    response = post(c, f"/connectors/{SINK}/offsets", method="DELETE")
    assert response.json() == {"message": "The offsets for this connector have been reset successfully"}
    assert a.get(f"/connectors/{SINK}/offsets").json() == {"offsets": []}
    before = settled_counts(pipeline["sink"])
    assert post(b, f"/connectors/{SINK}/resume", method="PUT").status_code == 202
    wait_all(cluster, "the sink RUNNING", all_tasks_in("RUNNING", SINK, 3), 90)
    numbers = range(len(read_lines(pipeline["source"])))
    a.wait_for("every record delivered once more", lambda: sent_again(pipeline, before, numbers), 120)


def test_a_fourth_worker_takes_a_share_while_the_tasks_that_stay_keep_running(
    cluster: Cluster, pipeline: dict[str, Any]
) -> None:
    a = cluster.workers[0]
    wait_all(cluster, "the sink RUNNING", all_tasks_in("RUNNING", SINK, 3))
    before = {name: task_states(a, name) for name in ("src", SINK)}
    runs = {
        (name, i): runs_of(cluster.worker_named(w), f"{name}-{i}")
        for name, states in before.items()
        for i, (_, w) in states.items()
    }
    d = cluster.add_worker()
    d_id = f"127.0.0.1:{d.port}"

    def d_runs_a_task(worker: WorkerProcess) -> bool:
        body = expanded(worker)
        placed = [
            t["worker_id"] for v in body.values() for t in v["status"]["tasks"] if t["state"] == "RUNNING"
        ]
        return len(placed) == 4 and d_id in placed

    wait_all(cluster, "the new worker runs a task", d_runs_a_task, 90)
    after = {name: task_states(a, name) for name in ("src", SINK)}
    stayed = [(n, i) for n, states in after.items() for i, (_, w) in states.items() if before[n][i][1] == w]
    moved = [(n, i) for n, states in after.items() for i, (_, w) in states.items() if w == d_id]
    assert moved and len(stayed) + len(moved) == 4, (before, after)
    for name, i in stayed:
        worker = cluster.worker_named(after[name][i][1])
        assert runs_of(worker, f"{name}-{i}") == runs[(name, i)], f"{name}-{i} was restarted by the rebalance"
    append(pipeline, 2200, 2300)
    every_line_arrives(cluster, pipeline)


def test_sigkill_of_the_worker_running_the_source_moves_it_and_loses_no_line(
    cluster: Cluster, pipeline: dict[str, Any]
) -> None:
    states = task_states(cluster.workers[0], "src")
    victim = cluster.worker_named(states[0][1])
    append(pipeline, 2300, 20000)
    assert victim.process is not None
    victim.process.send_signal(signal.SIGKILL)
    victim.process.wait()
    killed_at = time.monotonic()
    survivors = [w for w in cluster.workers if w is not victim]
    cluster.workers = survivors

    def moved(worker: WorkerProcess) -> bool:
        state, where = task_states(worker, "src")[0]
        return state == "RUNNING" and where != f"127.0.0.1:{victim.port}"

    wait_all(cluster, "the source task RUNNING on a survivor", moved, DELAY_MS / 1000 + 45)
    assert time.monotonic() - killed_at < DELAY_MS / 1000 + 45
    append(pipeline, 20000, 21000)
    every_line_arrives(cluster, pipeline, 120)
