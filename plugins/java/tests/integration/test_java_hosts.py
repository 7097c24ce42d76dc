"""Java connector tasks share Spark tasks: a Java host runs many Java tasks, each in a thread of its
own, in the executor JVM (the embedded local Spark: the worker's JVM).

The connector is ``CountingSourceConnector`` (``multi_task/``, compiled here into a jar on
``plugin.path``): ``tasks.max`` tasks, each writing its numbered records once. Four tasks run in
fewer Spark tasks than tasks (``GET /executor`` says which host runs which), every record arrives
exactly once through pause, resume, restart and stop; a task that fails leaves its neighbours on the
same host RUNNING; a task stuck in ``poll`` that a restart must stop is abandoned after
``task.shutdown.graceful.timeout.ms``: its thread is interrupted, its neighbours run on and it
starts again.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from kconnect_testkit.records import consume

from plugins.java.tests.integration.counting_plugin import CONNECTOR, counting_plugin_path
from plugins.java.tests.integration.java_worker import java_worker
from tests.worker_process import WorkerProcess

pytestmark = pytest.mark.integration

STRING = "org.apache.kafka.connect.storage.StringConverter"
RECORDS = 200


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory, kafka_bootstrap: str) -> Iterator[WorkerProcess]:
    """A standalone worker on ``local[2]`` (two shared hosts open before tasks share one) that
    abandons a task 3 s after asking it to stop."""
    folder = tmp_path_factory.mktemp("java-hosts")
    extra = {"task.shutdown.graceful.timeout.ms": "3000"}
    plugin_path = str(counting_plugin_path(folder))
    with java_worker(folder, kafka_bootstrap, plugin_path, STRING, "local[2]", extra) as ours:
        yield ours


def _create(worker: WorkerProcess, **config: str) -> tuple[str, str]:
    """A counting connector with four tasks and `config`; its name and topic."""
    stem = uuid.uuid4().hex[:8]
    name, topic = f"counting-{stem}", f"counting-{stem}"
    body = {"connector.class": CONNECTOR, "tasks.max": "4", "topic": topic, "records.per.task": str(RECORDS)}
    response = worker.request("PUT", f"/connectors/{name}/config", {**body, **config})
    assert response.status_code == 201, response.text
    return name, topic


def _hosts(worker: WorkerProcess, name: str) -> list[list[int]]:
    """The tasks of connector `name` each Spark task hosts, as ``GET /executor`` shows them."""
    hosts = worker.get("/executor").json()["hosts"]
    tasks = [sorted(t["task"] for t in host["tasks"] if t["connector"] == name) for host in hosts]
    return [ids for ids in tasks if ids]


def _exactly(bootstrap: str, topic: str, tasks: list[int]) -> None:
    """`topic` holds each record of `tasks` once and nothing else."""
    expected = sorted(f"t{task}-{n}" for task in tasks for n in range(RECORDS))
    values = sorted(record.value.decode() for record in consume(bootstrap, topic, len(expected)))
    assert values == expected
    with pytest.raises(TimeoutError, match=f"^{len(expected)} of {len(expected) + 1} records"):
        consume(bootstrap, topic, len(expected) + 1, timeout=5)


def _task_states(worker: WorkerProcess, name: str) -> dict[int, str]:
    return {task["id"]: task["state"] for task in worker.status(name)["tasks"]}


def test_four_java_tasks_share_two_spark_tasks_and_each_record_arrives_once(
    worker: WorkerProcess, kafka_bootstrap: str
) -> None:
    name, topic = _create(worker)
    worker.wait_for_state(name, "RUNNING", tasks=4, fail_fast=True)
    assert sorted(map(len, _hosts(worker, name))) == [2, 2], _hosts(worker, name)
    _exactly(kafka_bootstrap, topic, [0, 1, 2, 3])

    assert worker.request("PUT", f"/connectors/{name}/pause").status_code == 202
    worker.wait_for_state(name, "PAUSED", tasks=4)
    assert worker.request("PUT", f"/connectors/{name}/resume").status_code == 202
    worker.wait_for_state(name, "RUNNING", tasks=4, fail_fast=True)
    restart = worker.request("POST", f"/connectors/{name}/restart?includeTasks=true")
    assert restart.status_code in (202, 204), restart.text
    worker.wait_for_state(name, "RUNNING", tasks=4, fail_fast=True)
    assert worker.request("PUT", f"/connectors/{name}/stop").status_code == 204
    worker.wait_for("it to be STOPPED", lambda: worker.status(name)["connector"]["state"] == "STOPPED")
    worker.wait_for("its hosts to close", lambda: _hosts(worker, name) == [])
    assert "connection to the worker was lost" not in worker.log_tail(400)  # a host closed as asked
    assert worker.request("PUT", f"/connectors/{name}/resume").status_code == 202
    worker.wait_for_state(name, "RUNNING", tasks=4, fail_fast=True)
    assert len(_hosts(worker, name)) < 4
    _exactly(kafka_bootstrap, topic, [0, 1, 2, 3])  # each restart resumed from the committed offsets
    assert worker.request("DELETE", f"/connectors/{name}").status_code == 204


def test_a_failing_java_task_fails_alone_and_its_neighbours_on_the_host_run_on(
    worker: WorkerProcess, kafka_bootstrap: str
) -> None:
    name, topic = _create(worker, **{"fail.task": "1"})
    worker.wait_for("task 1 to fail", lambda: _task_states(worker, name).get(1) == "FAILED")
    status = worker.status(name)
    assert "task 1 fails as its connector's fail.task asks" in status["tasks"][1]["trace"]
    assert "at kconnect.test.CountingSourceTask.poll" in status["tasks"][1]["trace"]
    _exactly(kafka_bootstrap, topic, [0, 2, 3])
    assert _task_states(worker, name) == {0: "RUNNING", 1: "FAILED", 2: "RUNNING", 3: "RUNNING"}
    assert status["connector"]["state"] == "RUNNING"
    assert worker.request("DELETE", f"/connectors/{name}").status_code == 204


def test_a_stuck_java_task_is_interrupted_and_abandoned_while_its_neighbours_run_on(
    worker: WorkerProcess, kafka_bootstrap: str, tmp_path: Path
) -> None:
    name, topic = _create(worker, **{"stuck.task": "2", "marker.dir": str(tmp_path)})
    worker.wait_for_state(name, "RUNNING", tasks=4, fail_fast=True)
    _exactly(kafka_bootstrap, topic, [0, 1, 2, 3])  # task 2 then blocks in poll
    host = next(ids for ids in _hosts(worker, name) if 2 in ids)
    assert len(host) > 1, "task 2 shares its Spark task"

    restart = worker.request("POST", f"/connectors/{name}/tasks/2/restart")
    assert restart.status_code == 204, restart.text
    worker.wait_for("task 2's thread to be interrupted", (tmp_path / "interrupted-2").is_file, timeout=60)
    worker.wait_for_state(name, "RUNNING", tasks=4, fail_fast=True)
    assert f"Task {name}-2 did not stop within 3.0 s" in worker.log_tail(400)
    assert worker.request("DELETE", f"/connectors/{name}").status_code == 204
