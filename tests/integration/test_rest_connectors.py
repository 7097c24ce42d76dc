"""Issue 3 end to end: root, health and the connector resources of a real worker (real Kafka, real Spark)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests import rest_expectations as rx
from tests.integration.harness import Connectors, lines, path_of
from tests.worker_process import WorkerProcess, count_lines

pytestmark = pytest.mark.integration

FILE_SINK_VERSION = "0.1.0"


# --- root ----------------------------------------------------------------------------------------------


def test_root_gives_the_kafka_connect_version_commit_and_the_brokers_real_cluster_id(
    rest_worker: WorkerProcess, kafka_broker: Any
) -> None:
    from kconnect import __version__
    from kconnect_testkit.jars import KAFKA_VERSION

    response = rest_worker.get("/")
    assert response.status_code == 200
    body = response.json()
    # Exactly Kafka's keys: Java's ServerInfo, read with Jackson's defaults, fails on any other.
    assert list(body) == ["version", "commit", "kafka_cluster_id"]
    # The Kafka release whose REST API is served (kcctl gates offsets, stop, ... on it); kconnect's own
    # version is in the Server header and GET /executor.
    assert body["version"] == KAFKA_VERSION == "4.3.1"
    assert rest_worker.get("/executor").json()["kconnect_version"] == __version__
    assert response.headers["server"] == f"kconnect/{__version__}"
    assert rest_worker.get("/connectors").headers["server"] == f"kconnect/{__version__}"
    assert body["commit"] == "unknown" or (len(body["commit"]) == 16 and int(body["commit"], 16) >= 0)
    assert body["kafka_cluster_id"] == kafka_broker.cluster_id


def test_health_is_200_healthy_once_started(rest_worker: WorkerProcess) -> None:
    rest_worker.wait_for("Spark to start", lambda: rest_worker.get("/health").status_code != 503)
    response = rest_worker.get("/health")
    assert response.status_code == 200
    assert response.json() == {"status": "healthy", "message": rx.HEALTHY_MESSAGE}


# --- create --------------------------------------------------------------------------------------------


def test_create_answers_201_with_location_and_the_connector_info(
    connectors: Connectors, tmp_path: Path
) -> None:
    worker, name = connectors.worker, connectors.name("sink")
    config = {"connector.class": "FileStreamSinkConnector", "tasks.max": 2, "topics": connectors.topic}
    response = worker.request(
        "POST", "/connectors", {"name": f"  {name} ", "config": {**config, "file": str(tmp_path / "o")}}
    )
    assert response.status_code == 201, response.text
    assert response.headers["location"] == f"{worker.url}/connectors/{name}"
    body = response.json()
    rx.assert_connector_info(body, name, type="sink", tasks=2)  # the name is trimmed
    assert body["config"] == {
        "connector.class": "FileStreamSinkConnector",
        "tasks.max": "2",  # a JSON number is stored as a string
        "topics": connectors.topic,
        "file": str(tmp_path / "o"),
        "name": name,
    }
    worker.wait_for_state(name, "RUNNING", tasks=2)


def test_create_with_an_existing_name_is_409(connectors: Connectors, tmp_path: Path) -> None:
    name = connectors.name()
    connectors.sink(name, tmp_path / "o")
    again = connectors.worker.request(
        "POST",
        "/connectors",
        {"name": name, "config": {"connector.class": "FileStreamSink", "topics": "t"}},
    )
    rx.assert_error(again, 409, rx.already_exists(name))


def test_create_with_an_invalid_config_is_400_listing_every_error(connectors: Connectors) -> None:
    name = connectors.name()
    response = connectors.worker.request(
        "POST",
        "/connectors",
        {"name": name, "config": {"connector.class": "FileStreamSourceConnector", "tasks.max": "0"}},
    )
    rx.assert_error(
        response,
        400,
        "Connector configuration is invalid and contains the following 2 error(s):\n"
        "Invalid value 0 for configuration tasks.max: Value must be at least 1\n"
        'Missing required configuration "topic" which has no default value.\n'
        "You can also find the above list of errors at the endpoint "
        "`/connector-plugins/FileStreamSourceConnector/config/validate`",
    )
    rx.assert_error(connectors.worker.get(path_of(name)), 404, rx.connector_not_found(name))


def test_create_errors_name_mismatch_null_value_missing_name_and_unknown_class(
    connectors: Connectors,
) -> None:
    worker, name = connectors.worker, connectors.name()
    sink = {"connector.class": "FileStreamSink", "topics": "t"}
    mismatch = worker.request("POST", "/connectors", {"name": name, "config": {**sink, "name": "other"}})
    rx.assert_error(mismatch, 400, rx.name_mismatch("other", name))
    null = worker.request("POST", "/connectors", {"name": name, "config": {**sink, "file": None}})
    rx.assert_error(null, 400, rx.NULL_CONFIG_VALUE)
    no_name = worker.request("POST", "/connectors", {"config": sink})
    rx.assert_error(no_name, 400, contains="Invalid value  for configuration name: String may not be empty")
    no_config = worker.request("POST", "/connectors", {"name": name})
    rx.assert_error(no_config, 400)
    unknown = worker.request("POST", "/connectors", {"name": name, "config": {"connector.class": "Nope"}})
    rx.assert_error(unknown, 400, contains="Nope")  # Kafka 4.3.1: 400 "Failed to find any class ... Nope"
    bad_state = worker.request("POST", "/connectors", {"name": name, "config": sink, "initial_state": "x"})
    rx.assert_error(bad_state, 400)
    assert worker.get("/connectors").json().count(name) == 0


@pytest.mark.parametrize("initial_state", ["PAUSED", "stopped"])
def test_create_with_initial_state_starts_with_no_tasks(
    connectors: Connectors, tmp_path: Path, initial_state: str
) -> None:
    worker, name = connectors.worker, connectors.name()
    body = connectors.sink(name, tmp_path / "o", initial_state=initial_state)
    rx.assert_connector_info(body, name, type="sink", tasks=0)
    state = initial_state.upper()
    worker.wait_for_state(name, state, tasks=0)
    rx.assert_status(worker.status(name), name, state=state, tasks=0)
    assert worker.get(f"{path_of(name)}/tasks").json() == []
    assert worker.get(path_of(name)).json()["tasks"] == []
    # Resuming generates the tasks.
    rx.assert_empty(worker.request("PUT", f"{path_of(name)}/resume"), 202)
    worker.wait_for_state(name, "RUNNING", tasks=1)


# --- read ----------------------------------------------------------------------------------------------


def test_get_connector_config_tasks_and_their_404s(connectors: Connectors, tmp_path: Path) -> None:
    worker, name = connectors.worker, connectors.name()
    connectors.sink(name, tmp_path / "o")
    worker.wait_for_state(name, "RUNNING", tasks=1)

    info = worker.get(path_of(name))
    assert info.status_code == 200
    rx.assert_connector_info(info.json(), name, type="sink", tasks=1)
    config = worker.get(f"{path_of(name)}/config")
    assert config.status_code == 200
    assert config.json() == {
        "connector.class": "FileStreamSink",
        "file": str(tmp_path / "o"),
        "topics": connectors.topic,
        "name": name,
    }
    tasks = worker.get(f"{path_of(name)}/tasks")
    assert tasks.status_code == 200
    [task] = tasks.json()
    rx.assert_task_info(task, name)
    assert task["id"] == {"connector": name, "task": 0}
    assert task["config"]["task.class"] == "org.apache.kafka.connect.file.FileStreamSinkTask"  # Kafka's name
    assert task["config"]["topics"] == connectors.topic and task["config"]["file"] == str(tmp_path / "o")

    missing = connectors.name("missing")
    rx.assert_error(worker.get(path_of(missing)), 404, rx.connector_not_found(missing))
    rx.assert_error(worker.get(f"{path_of(missing)}/config"), 404, rx.connector_not_found(missing))
    rx.assert_error(worker.get(f"{path_of(missing)}/tasks"), 404, rx.connector_not_found(missing))
    rx.assert_error(worker.get(f"{path_of(missing)}/status"), 404, rx.no_status_for_connector(missing))
    rx.assert_error(worker.get(f"{path_of(missing)}/tasks/0/status"), 404, rx.no_status_for_task(missing, 0))
    rx.assert_error(worker.get(f"{path_of(name)}/tasks/7/status"), 404, rx.no_status_for_task(name, 7))
    rx.assert_error(worker.get(f"{path_of(name)}/tasks-config"), 404)  # removed in Kafka 4.0


def test_file_tasks_show_kafkas_task_class_and_run_from_it(connectors: Connectors) -> None:
    worker = connectors.worker
    source, sink, _source_file, sink_file = connectors.pipeline(20)  # records flow end to end
    shown = {
        source: "org.apache.kafka.connect.file.FileStreamSourceTask",
        sink: "org.apache.kafka.connect.file.FileStreamSinkTask",
    }
    for name, task_class in shown.items():
        [task] = worker.get(f"{path_of(name)}/tasks").json()
        assert task["config"]["task.class"] == task_class
        worker.wait_for_state(name, "RUNNING", tasks=1)
    # The tasks are built again from those configs: restarted, the source reads on from its offset.
    rx.assert_empty(worker.request("POST", f"{path_of(source)}/tasks/0/restart"), 204)
    worker.wait_for_state(source, "RUNNING", tasks=1)
    with (connectors.workdir / "in.txt").open("a", encoding="utf-8") as more:
        more.write(lines(20, 30))
    worker.wait_for("30 lines in the sink file", lambda: count_lines(sink_file) == 30)
    assert sink_file.read_text(encoding="utf-8") == lines(0, 30)


def test_status_and_task_status_show_state_worker_and_version(connectors: Connectors, tmp_path: Path) -> None:
    worker, name = connectors.worker, connectors.name()
    connectors.sink(name, tmp_path / "o")
    worker.wait_for_state(name, "RUNNING", tasks=1)
    status = worker.status(name)
    rx.assert_status(status, name, state="RUNNING", tasks=1)
    assert status["type"] == "sink"
    assert status["connector"] == {
        "state": "RUNNING",
        "worker_id": worker.url[7:],
        "version": FILE_SINK_VERSION,
    }
    assert status["tasks"] == [
        {"id": 0, "state": "RUNNING", "worker_id": worker.url[7:], "version": FILE_SINK_VERSION}
    ]
    task = worker.get(f"{path_of(name)}/tasks/0/status")
    assert task.status_code == 200
    rx.assert_task_state(task.json(), 0)
    assert task.json() == status["tasks"][0]


def test_list_connectors_with_repeated_expand(connectors: Connectors, tmp_path: Path) -> None:
    worker, name = connectors.worker, connectors.name()
    connectors.sink(name, tmp_path / "o")
    worker.wait_for_state(name, "RUNNING", tasks=1)

    listed = worker.get("/connectors")
    assert listed.status_code == 200 and name in listed.json()
    assert all(isinstance(n, str) for n in listed.json())

    both = worker.get("/connectors?expand=status&expand=info").json()
    assert set(both[name]) == {"status", "info"}
    rx.assert_status(both[name]["status"], name, state="RUNNING", tasks=1)
    rx.assert_connector_info(both[name]["info"], name, type="sink", tasks=1)
    assert both[name]["info"] == worker.get(path_of(name)).json()

    status_only = worker.get("/connectors", params={"expand": "status"}).json()
    assert set(status_only[name]) == {"status"}
    info_only = worker.get("/connectors", params={"expand": "info"}).json()
    assert set(info_only[name]) == {"info"}
    # Each value is matched literally, as in Kafka: a comma list is an unknown expansion.
    assert worker.get("/connectors?expand=status,info").json()[name] == {}


# --- config writes -------------------------------------------------------------------------------------


def test_put_config_creates_with_201_then_updates_with_200(connectors: Connectors, tmp_path: Path) -> None:
    worker, name = connectors.worker, connectors.name()
    config = {"connector.class": "FileStreamSink", "file": str(tmp_path / "o"), "topics": connectors.topic}
    created = worker.request("PUT", f"{path_of(name)}/config", config)
    assert created.status_code == 201, created.text
    assert created.headers["location"] == f"{worker.url}{path_of(name)}"
    rx.assert_connector_info(created.json(), name, type="sink", tasks=1)
    worker.wait_for_state(name, "RUNNING", tasks=1)

    updated = worker.request("PUT", f"{path_of(name)}/config", {**config, "tasks.max": "2", "name": name})
    assert updated.status_code == 200, updated.text
    assert "location" not in updated.headers
    rx.assert_connector_info(updated.json(), name, type="sink", tasks=2)
    assert updated.json()["config"]["tasks.max"] == "2"
    worker.wait_for_state(name, "RUNNING", tasks=2)

    mismatch = worker.request("PUT", f"{path_of(name)}/config", {**config, "name": "other"})
    rx.assert_error(mismatch, 400, rx.name_mismatch("other", name))
    invalid = worker.request("PUT", f"{path_of(name)}/config", {**config, "tasks.max": "x"})
    rx.assert_error(invalid, 400, contains="contains the following 2 error(s):\n")
    assert worker.get(f"{path_of(name)}/config").json()["tasks.max"] == "2"


def test_put_config_keeps_a_stopped_connector_stopped(connectors: Connectors, tmp_path: Path) -> None:
    worker, name = connectors.worker, connectors.name()
    connectors.sink(name, tmp_path / "o", initial_state="STOPPED")
    config = {"connector.class": "FileStreamSink", "topics": connectors.topic, "tasks.max": "3"}
    assert worker.request("PUT", f"{path_of(name)}/config", config).status_code == 200
    worker.wait_for_state(name, "STOPPED", tasks=0)
    assert worker.get(f"{path_of(name)}/tasks").json() == []


def test_patch_config_merges_and_null_removes_a_key(connectors: Connectors, tmp_path: Path) -> None:
    worker, name = connectors.worker, connectors.name()
    connectors.sink(name, tmp_path / "o")
    patched = worker.request("PATCH", f"{path_of(name)}/config", {"file": None, "tasks.max": 2})
    assert patched.status_code == 200, patched.text
    rx.assert_connector_info(patched.json(), name, type="sink")
    assert patched.json()["config"] == {
        "connector.class": "FileStreamSink",
        "topics": connectors.topic,
        "tasks.max": "2",
        "name": name,
    }
    assert worker.get(f"{path_of(name)}/config").json() == patched.json()["config"]
    worker.wait_for_state(name, "RUNNING", tasks=2)

    invalid = worker.request("PATCH", f"{path_of(name)}/config", {"tasks.max": "0"})
    rx.assert_error(
        invalid, 400, contains="Invalid value 0 for configuration tasks.max: Value must be at least 1"
    )
    missing = connectors.name("missing")
    rx.assert_error(
        worker.request("PATCH", f"{path_of(missing)}/config", {"tasks.max": "1"}),
        404,
        rx.connector_not_found(missing),
    )


# --- tasks and delete ----------------------------------------------------------------------------------


def test_task_restart_is_204_and_404_for_unknown(connectors: Connectors, tmp_path: Path) -> None:
    worker, name = connectors.worker, connectors.name()
    connectors.sink(name, tmp_path / "o")
    worker.wait_for_state(name, "RUNNING", tasks=1)
    rx.assert_empty(worker.request("POST", f"{path_of(name)}/tasks/0/restart"), 204)
    worker.wait_for_state(name, "RUNNING", tasks=1)
    rx.assert_error(
        worker.request("POST", f"{path_of(name)}/tasks/3/restart"), 404, f"Unknown task: {name}-3"
    )
    missing = connectors.name("missing")
    rx.assert_error(
        worker.request("POST", f"{path_of(missing)}/tasks/0/restart"), 404, f"Unknown connector: {missing}"
    )


def test_delete_is_204_then_everything_is_404(connectors: Connectors, tmp_path: Path) -> None:
    worker, name = connectors.worker, connectors.name()
    connectors.sink(name, tmp_path / "o")
    worker.wait_for_state(name, "RUNNING", tasks=1)
    rx.assert_empty(worker.request("DELETE", path_of(name)), 204)
    assert name not in worker.get("/connectors").json()
    rx.assert_error(worker.get(path_of(name)), 404, rx.connector_not_found(name))
    rx.assert_error(worker.get(f"{path_of(name)}/status"), 404, rx.no_status_for_connector(name))
    rx.assert_error(worker.request("DELETE", path_of(name)), 404, rx.connector_not_found(name))


# --- names ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("stem", ["with spaces", "ünïcødé-名前", "a/b%2Fc", "dots.and+plus"])
def test_url_encoded_names_work_on_every_connector_path(
    connectors: Connectors, tmp_path: Path, stem: str
) -> None:
    worker, name = connectors.worker, connectors.name(stem)
    path = path_of(name)
    config = {"connector.class": "FileStreamSink", "file": str(tmp_path / "o"), "topics": connectors.topic}
    created = worker.request("PUT", f"{path}/config", config)
    assert created.status_code == 201, created.text
    assert created.headers["location"] == f"{worker.url}{path}"
    assert created.json()["name"] == name
    worker.wait_for_state(name, "RUNNING", tasks=1)

    assert name in worker.get("/connectors").json()
    assert name in worker.get("/connectors?expand=info").json()
    assert worker.get(path).json()["name"] == name
    assert worker.get(f"{path}/config").json()["name"] == name
    assert worker.get(f"{path}/status").json()["name"] == name
    assert worker.get(f"{path}/tasks").json()[0]["id"] == {"connector": name, "task": 0}
    assert worker.get(f"{path}/tasks/0/status").json()["id"] == 0
    assert worker.get(f"{path}/topics").json() == {name: {"topics": []}}
    assert worker.get(f"{path}/offsets").json() == {"offsets": []}
    assert worker.request("PATCH", f"{path}/config", {"tasks.max": "1"}).json()["name"] == name
    rx.assert_empty(worker.request("POST", f"{path}/tasks/0/restart"), 204)
    rx.assert_empty(worker.request("PUT", f"{path}/pause"), 202)
    worker.wait_for_state(name, "PAUSED", tasks=1)
    rx.assert_empty(worker.request("PUT", f"{path}/resume"), 202)
    worker.wait_for_state(name, "RUNNING", tasks=1)
    rx.assert_empty(worker.request("POST", f"{path}/restart"), 204)
    assert worker.request("POST", f"{path}/restart?includeTasks=true").json()["name"] == name
    rx.assert_empty(worker.request("PUT", f"{path}/stop"), 204)
    worker.wait_for_state(name, "STOPPED", tasks=0)
    reset = worker.request("DELETE", f"{path}/offsets")
    assert reset.status_code == 200, reset.text
    rx.assert_empty(worker.request("PUT", f"{path}/topics/reset"), 202)
    rx.assert_empty(worker.request("DELETE", path), 204)
    rx.assert_error(worker.get(path), 404, rx.connector_not_found(name))
