"""Issue 3 end to end: pause, resume, stop, restart (KIP-745) and failures on a real worker."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests import rest_expectations as rx
from tests.integration.harness import Connectors, lines, path_of, wait_seconds
from tests.worker_process import WorkerProcess, count_lines

pytestmark = pytest.mark.integration


def test_pause_and_resume_are_202_empty_idempotent_and_stop_the_flow(connectors: Connectors) -> None:
    worker = connectors.worker
    _source, sink, source_file, sink_file = connectors.pipeline(100)
    for _ in range(2):  # idempotent
        rx.assert_empty(worker.request("PUT", f"{path_of(sink)}/pause"), 202)
    worker.wait_for_state(sink, "PAUSED", tasks=1)
    rx.assert_status(worker.status(sink), sink, state="PAUSED", tasks=1)
    with source_file.open("a", encoding="utf-8") as f:
        f.write(lines(100, 200))
    wait_seconds(3)
    assert count_lines(sink_file) == 100, "records reached a paused sink"
    for _ in range(2):
        rx.assert_empty(worker.request("PUT", f"{path_of(sink)}/resume"), 202)
    worker.wait_for_state(sink, "RUNNING", tasks=1)
    worker.wait_for("the lines written during the pause", lambda: count_lines(sink_file) == 200)

    missing = connectors.name("missing")
    rx.assert_error(worker.request("PUT", f"{path_of(missing)}/pause"), 404, f"Unknown connector {missing}")
    rx.assert_error(worker.request("PUT", f"{path_of(missing)}/resume"), 404, f"Unknown connector {missing}")


def test_stop_is_204_and_shows_stopped_with_no_tasks_anywhere(connectors: Connectors, tmp_path: Path) -> None:
    worker, name = connectors.worker, connectors.name()
    connectors.sink(name, tmp_path / "o")
    assert worker.request("PATCH", f"{path_of(name)}/config", {"tasks.max": "2"}).status_code == 200
    worker.wait_for_state(name, "RUNNING", tasks=2)
    for _ in range(2):  # idempotent
        rx.assert_empty(worker.request("PUT", f"{path_of(name)}/stop"), 204)
    worker.wait_for_state(name, "STOPPED", tasks=0)
    status = worker.status(name)
    rx.assert_status(status, name, state="STOPPED", tasks=0)
    assert worker.get(path_of(name)).json()["tasks"] == []
    assert worker.get(f"{path_of(name)}/tasks").json() == []
    assert worker.get("/connectors?expand=status").json()[name]["status"]["tasks"] == []
    assert worker.get("/connectors?expand=info").json()[name]["info"]["tasks"] == []
    rx.assert_error(worker.get(f"{path_of(name)}/tasks/0/status"), 404, rx.no_status_for_task(name, 0))

    # STOPPED -> pause gives PAUSED with no tasks; resume regenerates them.
    rx.assert_empty(worker.request("PUT", f"{path_of(name)}/pause"), 202)
    worker.wait_for_state(name, "PAUSED", tasks=0)
    rx.assert_empty(worker.request("PUT", f"{path_of(name)}/resume"), 202)
    worker.wait_for_state(name, "RUNNING", tasks=2)

    missing = connectors.name("missing")
    rx.assert_error(worker.request("PUT", f"{path_of(missing)}/stop"), 404, f"Unknown connector {missing}")


def test_restart_without_parameters_is_204_with_no_body(connectors: Connectors, tmp_path: Path) -> None:
    worker, name = connectors.worker, connectors.name()
    connectors.sink(name, tmp_path / "o")
    worker.wait_for_state(name, "RUNNING", tasks=1)
    rx.assert_empty(worker.request("POST", f"{path_of(name)}/restart"), 204)
    rx.assert_empty(
        worker.request("POST", f"{path_of(name)}/restart?includeTasks=false&onlyFailed=false"), 204
    )
    worker.wait_for_state(name, "RUNNING", tasks=1)


def test_restart_with_include_tasks_is_202_with_the_restarting_snapshot(
    connectors: Connectors, tmp_path: Path
) -> None:
    worker, name = connectors.worker, connectors.name()
    connectors.sink(name, tmp_path / "o")
    assert worker.request("PATCH", f"{path_of(name)}/config", {"tasks.max": "2"}).status_code == 200
    worker.wait_for_state(name, "RUNNING", tasks=2)

    response = worker.request("POST", f"{path_of(name)}/restart?includeTasks=true")
    assert response.status_code == 202, response.text
    snapshot = response.json()
    rx.assert_status(snapshot, name, state="RESTARTING", tasks=2)
    assert sorted(t["id"] for t in snapshot["tasks"]) == [0, 1]
    assert {t["state"] for t in snapshot["tasks"]} == {"RESTARTING"}
    worker.wait_for_state(name, "RUNNING", tasks=2)

    # onlyFailed with nothing failed: nothing is RESTARTING, everything keeps its state.
    only_failed = worker.request("POST", f"{path_of(name)}/restart?includeTasks=true&onlyFailed=true")
    assert only_failed.status_code == 202
    rx.assert_status(only_failed.json(), name, state="RUNNING", tasks=2)
    assert {t["state"] for t in only_failed.json()["tasks"]} == {"RUNNING"}

    # Connector only: the connector RESTARTING, the tasks as they are.
    connector_only = worker.request("POST", f"{path_of(name)}/restart?onlyFailed=false&includeTasks=false")
    assert connector_only.status_code == 204  # both defaults given explicitly: the legacy form
    connector_only = worker.request("POST", f"{path_of(name)}/restart?onlyFailed=true")
    assert connector_only.status_code == 202
    assert connector_only.json()["connector"]["state"] == "RUNNING"
    worker.wait_for_state(name, "RUNNING", tasks=2)

    # Java's Boolean.parseBoolean: "maybe" is false, never a 400; so this is the legacy form.
    rx.assert_empty(worker.request("POST", f"{path_of(name)}/restart?includeTasks=maybe&onlyFailed=1"), 204)
    missing = connectors.name("missing")
    for query in ("", "?includeTasks=true", "?onlyFailed=true", "?includeTasks=true&onlyFailed=true"):
        rx.assert_error(worker.request("POST", f"{path_of(missing)}/restart{query}"), 404, contains=missing)


def _failing_sink(connectors: Connectors, tmp_path: Path) -> str:
    """A FileStreamSink whose file is in a directory that does not exist: its task fails on start."""
    name = connectors.name("failing")
    connectors.sink(name, tmp_path / "no-such-dir" / "out.txt")
    connectors.worker.wait_for(
        f"{name}'s task to fail", lambda: connectors.worker.status(name)["tasks"][0]["state"] == "FAILED"
    )
    return name


def test_a_task_failure_shows_failed_with_its_trace(connectors: Connectors, tmp_path: Path) -> None:
    worker = connectors.worker
    name = _failing_sink(connectors, tmp_path)
    status = worker.status(name)
    rx.assert_status(status, name, state="RUNNING", tasks=1)
    [task] = status["tasks"]
    assert task["state"] == "FAILED"
    assert "FileNotFoundError" in task["trace"] and "no-such-dir" in task["trace"]
    assert status["connector"].get("trace") is None  # omitted, not null, when the connector is fine
    task_status = worker.get(f"{path_of(name)}/tasks/0/status").json()
    assert task_status["state"] == "FAILED" and task_status["trace"] == task["trace"]

    # Failed tasks stay FAILED on pause (Kafka pauses only running tasks); resume keeps them failed too.
    rx.assert_empty(worker.request("PUT", f"{path_of(name)}/pause"), 202)
    worker.wait_for("the connector PAUSED", lambda: worker.status(name)["connector"]["state"] == "PAUSED")
    assert worker.status(name)["tasks"][0]["state"] == "FAILED"
    rx.assert_empty(worker.request("PUT", f"{path_of(name)}/resume"), 202)
    worker.wait_for("the connector RUNNING", lambda: worker.status(name)["connector"]["state"] == "RUNNING")


def test_restart_only_failed_restarts_the_failed_task(connectors: Connectors, tmp_path: Path) -> None:
    worker = connectors.worker
    name = _failing_sink(connectors, tmp_path)
    response = worker.request("POST", f"{path_of(name)}/restart?includeTasks=true&onlyFailed=true")
    assert response.status_code == 202, response.text
    snapshot = response.json()
    rx.assert_status(snapshot, name, state="RUNNING", tasks=1)  # the connector did not fail: not restarted
    assert snapshot["tasks"][0]["state"] == "RESTARTING"

    # Once the directory exists, the restarted task runs.
    (tmp_path / "no-such-dir").mkdir()
    response = worker.request("POST", f"{path_of(name)}/tasks/0/restart")
    rx.assert_empty(response, 204)
    worker.wait_for_state(name, "RUNNING", tasks=1)
    assert "trace" not in worker.status(name)["tasks"][0]


def test_a_failed_connector_can_be_stopped(connectors: Connectors, tmp_path: Path) -> None:
    worker = connectors.worker
    name = _failing_sink(connectors, tmp_path)
    rx.assert_empty(worker.request("PUT", f"{path_of(name)}/stop"), 204)
    worker.wait_for_state(name, "STOPPED", tasks=0)


def test_target_states_survive_a_worker_restart(start_worker: Any, tmp_path: Path, unique_topic: str) -> None:
    """Pause and stop are persistent: with ``config.storage.file.filename`` (kconnect's) they survive."""
    props = {"config.storage.file.filename": str(tmp_path / "connect.configs")}
    worker: WorkerProcess = start_worker(props)
    configs = {
        "paused": {"connector.class": "FileStreamSink", "file": str(tmp_path / "p"), "topics": unique_topic},
        "stopped": {"connector.class": "FileStreamSink", "file": str(tmp_path / "s"), "topics": unique_topic},
        "running": {"connector.class": "FileStreamSink", "file": str(tmp_path / "r"), "topics": unique_topic},
    }
    for name, config in configs.items():
        assert worker.request("PUT", f"/connectors/{name}/config", config).status_code == 201
        worker.wait_for_state(name, "RUNNING", tasks=1)
    rx.assert_empty(worker.request("PUT", "/connectors/paused/pause"), 202)
    rx.assert_empty(worker.request("PUT", "/connectors/stopped/stop"), 204)
    worker.wait_for_state("paused", "PAUSED", tasks=1)
    worker.wait_for_state("stopped", "STOPPED", tasks=0)
    assert worker.stop() == 0

    again: WorkerProcess = start_worker(props)
    assert again.get("/connectors").json() == ["paused", "running", "stopped"]
    again.wait_for_state("paused", "PAUSED", tasks=1)
    again.wait_for_state("stopped", "STOPPED", tasks=0)
    again.wait_for_state("running", "RUNNING", tasks=1)
    assert again.get("/connectors/stopped/tasks").json() == []
    for name, config in configs.items():
        assert again.get(f"/connectors/{name}/config").json() == {**config, "name": name}
    rx.assert_empty(again.request("PUT", "/connectors/paused/resume"), 202)
    again.wait_for_state("paused", "RUNNING", tasks=1)
