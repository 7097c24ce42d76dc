"""Every way a connector task can end shows in status, on a real worker, real Kafka and real Spark.

Each test breaks one thing from outside the worker, the way it breaks in production: SIGKILL of the
Spark Python worker running the task (found through the worker's INFO log line naming its pid), a
stage killed in Spark's own web UI, the control connection reset by the kernel (``ss -K``, either
end), more tasks than Spark task slots. The task must end FAILED (or wait UNASSIGNED) with a trace
that says which, and a restart must resume from committed offsets with no line lost.

The tests that break a running pipeline share one worker (`breakable_worker`), each under connector
names of its own; the two that need other worker settings start their own.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.integration.harness import Connectors, lines, wait_until
from tests.worker_process import WorkerProcess, count_lines, free_port

pytestmark = pytest.mark.integration

#: Fail fast on retries and speculation a user might ask for: the worker must override them.
RETRYING_SPARK = {"spark.master": "local[4,3]", "spark.task.maxFailures": "4", "spark.speculation": "true"}


# --- helpers --------------------------------------------------------------------------------------


def source(worker: WorkerProcess, name: str, file: Path, topic: str) -> None:
    """Create a FileStreamSource reading `file` into `topic`."""
    config = {"connector.class": "FileStreamSource", "file": str(file), "topic": topic}
    response = worker.request("POST", "/connectors", {"name": name, "config": config})
    assert response.status_code == 201, response.text


def sink(worker: WorkerProcess, name: str, file: Path, topic: str) -> None:
    """Create a FileStreamSink writing `topic` to `file`."""
    config = {"connector.class": "FileStreamSink", "file": str(file), "topics": topic}
    response = worker.request("POST", "/connectors", {"name": name, "config": config})
    assert response.status_code == 201, response.text


def task_status(worker: WorkerProcess, name: str) -> dict[str, Any]:
    """Task 0's status entry."""
    return dict(worker.status(name)["tasks"][0])


def wait_task_state(worker: WorkerProcess, name: str, state: str, timeout: float = 120.0) -> dict[str, Any]:
    """Wait until task 0 of `name` is in `state`; return its status entry."""
    wait_until(
        f"{name}-0 to be {state}", lambda: task_status(worker, name)["state"] == state, worker, timeout
    )
    return task_status(worker, name)


def task_runs(worker: WorkerProcess, name: str) -> list[dict[str, str]]:
    """Every run of task 0 the worker logged: generation, pid, host and the task's control port."""
    pattern = re.compile(
        rf"Task {re.escape(name)}-0 \(generation (\d+)\) runs in Spark's Python worker process (\d+) "
        r"on (\S+) \(control connection from [\d.]+:(\d+)\)"
    )
    text = worker.log_path.read_text(errors="replace")
    return [{"generation": m[1], "pid": m[2], "host": m[3], "port": m[4]} for m in pattern.finditer(text)]


def control_port(worker: WorkerProcess) -> int:
    """The worker's control channel port, from its log."""
    match = re.search(r"Task control channel listening on [\d.]+:(\d+)", worker.log_path.read_text())
    assert match is not None, worker.log_tail()
    return int(match[1])


def kill_socket(local_port: int, remote_port: int) -> None:
    """Reset one end of an established loopback TCP connection, as a failing network would."""
    done = subprocess.run(
        ["ss", "-K", "-t", "state", "established", f"( sport = :{local_port} and dport = :{remote_port} )"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert f":{local_port}" in done.stdout, f"no such connection to kill:\n{done.stdout}{done.stderr}"


def read_lines(path: Path) -> list[str]:
    """The file's complete lines."""
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def assert_every_line_arrives(worker: WorkerProcess, source_file: Path, sink_file: Path) -> None:
    """Every line of the source reaches the sink; duplicates only as at-least-once allows."""
    expected = read_lines(source_file)
    wanted = set(expected)

    def arrived() -> bool:
        # Polled every 0.1 s: counting newlines costs a tenth of comparing 200,000 lines, CPU the worker
        # needs on a 2-core machine; the lines are compared once there are enough of them.
        return count_lines(sink_file) >= len(wanted) and wanted <= set(read_lines(sink_file))

    wait_until(f"all {len(expected)} lines in the sink", arrived, worker, timeout=180)
    got = read_lines(sink_file)
    assert set(got) == set(expected), "the sink holds lines the source never had"


class SparkUI:
    """The worker's Spark web UI (enabled by the test's worker properties) and its REST API."""

    def __init__(self, port: int) -> None:
        self.url = f"http://127.0.0.1:{port}"

    def _app(self) -> str:
        apps = httpx.get(f"{self.url}/api/v1/applications", timeout=10).json()
        return str(apps[0]["id"])

    def running_jobs(self, group_prefix: str) -> list[dict[str, Any]]:
        """The running Spark jobs whose job group starts with `group_prefix` (see `host_job_group`)."""
        jobs = httpx.get(f"{self.url}/api/v1/applications/{self._app()}/jobs?status=running", timeout=10)
        return [j for j in jobs.json() if str(j.get("jobGroup", "")).startswith(group_prefix)]

    def kill_stage(self, stage: int) -> None:
        """Press the stage's "kill" link, as an operator would (a POST with the page's CSRF token)."""
        page = httpx.get(f"{self.url}/stages/", timeout=10).text
        token = re.search(r'name="csrfToken" value="([0-9a-f]+)"', page)
        assert token is not None, "no kill form on Spark's stages page"
        response = httpx.post(
            f"{self.url}/stages/stage/kill/", data={"id": str(stage), "csrfToken": token[1]}, timeout=10
        )
        assert response.status_code in (200, 302), response.status_code


def host_job_group(worker: WorkerProcess, name: str) -> str:
    """The job group prefix of the Spark task hosting task 0 of `name` (its latest run): a host of
    several tasks is ``kconnect-host-<n>-``, found through the Python worker pid both log lines name."""
    pid = task_runs(worker, name)[-1]["pid"]
    log = worker.log_path.read_text(errors="replace")
    hosts = re.findall(r"Spark task host (\d+) runs in Spark's Python worker process (\d+)", log)
    numbers = [number for number, host_pid in hosts if host_pid == pid]
    return f"kconnect-host-{numbers[-1]}-" if numbers else f"kconnect-{name}-0-"


def pipeline(
    start_worker: Any, tmp_path: Path, topic: str, count: int, props: dict[str, str] | None = None
) -> tuple[WorkerProcess, Path, Path]:
    """A worker with a source (``src``) and a sink (``sink``) through `topic`, the first lines delivered."""
    worker = start_worker({"offset.flush.interval.ms": "500", **(props or {})})
    source_file, sink_file = tmp_path / "in.txt", tmp_path / "out.txt"
    source_file.write_text(lines(0, count), encoding="utf-8")
    source(worker, "src", source_file, topic)
    sink(worker, "task-failures-sink", sink_file, topic)
    wait_task_state(worker, "src", "RUNNING")
    wait_until("lines in the sink", lambda: len(read_lines(sink_file)) > 0, worker)
    return worker, source_file, sink_file


@dataclass(frozen=True)
class Breakable:
    """The shared worker of the tests that break a pipeline, and its Spark web UI."""

    worker: WorkerProcess
    ui: SparkUI


@pytest.fixture(scope="module")
def breakable_worker(tmp_path_factory: pytest.TempPathFactory, kafka_bootstrap: str) -> Iterator[Breakable]:
    """One worker with Spark's web UI on and `RETRYING_SPARK` asked for, shared by the tests that
    break one pipeline each: a worker start is most of such a test, and each test's connectors,
    named apart and deleted at its end, open and close Spark task hosts of their own."""
    workdir = tmp_path_factory.mktemp("task-failures")
    ui_port = free_port()
    props = {
        "bootstrap.servers": kafka_bootstrap,
        "offset.storage.file.filename": str(workdir / "connect.offsets"),
        "offset.flush.interval.ms": "500",
        "spark.ui.enabled": "true",
        "spark.ui.port": str(ui_port),
        **RETRYING_SPARK,
    }
    worker = WorkerProcess(workdir, props).start()
    yield Breakable(worker, SparkUI(ui_port))
    worker.stop()


@pytest.fixture
def shared_pipeline(
    breakable_worker: Breakable, tmp_path: Path, unique_topic: str
) -> Iterator[Callable[[int], tuple[str, Path, Path]]]:
    """``src, source_file, sink_file = shared_pipeline(count)``: a source and a sink through the test's
    topic on the shared worker, named apart from other tests', the first lines delivered. Both
    connectors are deleted when the test ends."""
    connectors = Connectors(breakable_worker.worker, tmp_path, unique_topic)

    def start(count: int) -> tuple[str, Path, Path]:
        source_file, sink_file = tmp_path / "in.txt", tmp_path / "out.txt"
        source_file.write_text(lines(0, count), encoding="utf-8")
        src = connectors.name("src")
        connectors.source(src, source_file)
        connectors.sink(connectors.name("sink"), sink_file)
        wait_task_state(connectors.worker, src, "RUNNING")
        wait_until("lines in the sink", lambda: len(read_lines(sink_file)) > 0, connectors.worker)
        return src, source_file, sink_file

    yield start
    connectors.delete_all()


def restart_and_check_nothing_lost(
    worker: WorkerProcess, name: str, source_file: Path, sink_file: Path
) -> None:
    """Add lines while the task is down, restart it, and check every line arrives."""
    count = len(read_lines(source_file))
    with source_file.open("a", encoding="utf-8") as f:
        f.write(lines(count, count + 2000))
    response = worker.request("POST", f"/connectors/{name}/tasks/0/restart")
    assert response.status_code == 204, response.text
    wait_task_state(worker, name, "RUNNING")
    assert_every_line_arrives(worker, source_file, sink_file)


# --- tests ----------------------------------------------------------------------------------------


def test_sigkilled_python_worker_fails_the_task_once_and_a_restart_loses_nothing(
    breakable_worker: Breakable, shared_pipeline: Callable[[int], tuple[str, Path, Path]]
) -> None:
    worker = breakable_worker.worker
    log_start = worker.log_path.stat().st_size
    src, source_file, sink_file = shared_pipeline(200_000)
    log = worker.log_path.read_text()
    assert "Ignoring spark.task.maxFailures=4" in log and "Ignoring spark.speculation=true" in log
    assert "Using spark.master=local[4]" in log
    [run] = task_runs(worker, src)

    os.kill(int(run["pid"]), signal.SIGKILL)

    status = wait_task_state(worker, src, "FAILED")
    first_line = status["trace"].splitlines()[0]
    assert first_line.startswith(f"The Python worker process running task {src}-0 died (killed or crashed)")
    assert "Python worker exited unexpectedly" in first_line
    assert "failed 1 times" in status["trace"], "Spark retried the task"
    assert worker.status(src)["connector"]["state"] == "RUNNING"
    assert task_runs(worker, src) == [run], "the task ran again without a restart"
    assert b"Refused a second control connection" not in worker.log_path.read_bytes()[log_start:]

    restart_and_check_nothing_lost(worker, src, source_file, sink_file)
    assert len(task_runs(worker, src)) == 2


def test_a_stage_killed_in_sparks_ui_fails_the_task_with_sparks_error(
    breakable_worker: Breakable, shared_pipeline: Callable[[int], tuple[str, Path, Path]]
) -> None:
    worker, ui = breakable_worker.worker, breakable_worker.ui
    src, source_file, sink_file = shared_pipeline(1000)
    group = host_job_group(worker, src)
    wait_until(f"{src}-0's job in Spark's UI", lambda: len(ui.running_jobs(group)) == 1, worker)
    [job] = ui.running_jobs(group)

    ui.kill_stage(job["stageIds"][0])

    status = wait_task_state(worker, src, "FAILED")
    first_line = status["trace"].splitlines()[0]
    assert first_line.startswith(f"Spark failed the job running task {src}-0: "), first_line
    assert "cancelled" in first_line and "killed via the Web UI" in status["trace"]
    wait_until(f"no running job of {src}-0 in Spark's UI", lambda: ui.running_jobs(group) == [], worker, 30)
    restart_and_check_nothing_lost(worker, src, source_file, sink_file)


@pytest.mark.parametrize("broken_end", ["worker", "task"])
def test_a_broken_control_channel_fails_the_task_and_a_restart_loses_nothing(
    breakable_worker: Breakable, shared_pipeline: Callable[[int], tuple[str, Path, Path]], broken_end: str
) -> None:
    worker, ui = breakable_worker.worker, breakable_worker.ui
    src, source_file, sink_file = shared_pipeline(200_000)
    [run] = task_runs(worker, src)
    group = host_job_group(worker, src)
    port, task_port = control_port(worker), int(run["port"])

    if broken_end == "worker":
        kill_socket(port, task_port)
    else:
        kill_socket(task_port, port)

    status = wait_task_state(worker, src, "FAILED")
    assert status["trace"].startswith(f"Control channel to task {src}-0 lost ("), status["trace"]
    assert group.startswith("kconnect-host-"), group
    wait_until(f"no running job of {src}-0 in Spark's UI", lambda: ui.running_jobs(group) == [], worker, 30)
    restart_and_check_nothing_lost(worker, src, source_file, sink_file)


def test_tasks_beyond_the_spark_task_slots_wait_unassigned_with_the_reason(
    start_worker: Any, tmp_path: Path, unique_topic: str
) -> None:
    # One connector task per Spark task, so that three tasks need three slots.
    worker = start_worker({"spark.master": "local[2]", "executor.tasks.per.spark.task": "1"})
    for name in ("a", "b", "c"):
        (tmp_path / f"{name}.txt").write_text(lines(0, 10), encoding="utf-8")
        source(worker, name, tmp_path / f"{name}.txt", unique_topic)
        if name != "c":
            wait_task_state(worker, name, "RUNNING")

    status = wait_task_state(worker, "c", "UNASSIGNED")
    wait_until("c-0's reason", lambda: "trace" in task_status(worker, "c"), worker)
    status = task_status(worker, "c")
    assert status["state"] == "UNASSIGNED", "c-0 must not look RUNNING while it has no Spark task"
    assert status["trace"].startswith(
        "Waiting for a Spark task slot: Spark has 2 task slots and 3 Spark tasks hosting "
        "connector tasks need one"
    )
    log = worker.log_path.read_text()
    assert "Spark has 2 task slots; each Spark task hosts up to" in log
    assert (
        "Spark has 2 task slots and 3 Spark tasks hosting connector tasks need one: task c-0 waits for a "
        "free slot"
    ) in log
    assert task_runs(worker, "c") == []
    placement = worker.get("/executor").json()
    assert [h["state"] for h in placement["hosts"]] == ["RUNNING", "RUNNING", "WAITING"]
    assert placement["hosts"][2]["tasks"] == [{"connector": "c", "task": 0}]
    assert (placement["slots"], placement["slots_used"]) == (2, 2)

    assert worker.request("DELETE", "/connectors/a").status_code == 204
    status = wait_task_state(worker, "c", "RUNNING")
    assert "trace" not in status
    assert len(task_runs(worker, "c")) == 1


def test_an_offset_store_that_cannot_write_fails_the_source_task_with_its_error(
    start_worker: Any, tmp_path: Path, unique_topic: str
) -> None:
    offsets_dir = tmp_path / "offsets"
    offsets_dir.mkdir()
    offsets_file = offsets_dir / "connect.offsets"
    props = {"offset.storage.file.filename": str(offsets_file)}
    worker, source_file, sink_file = pipeline(start_worker, tmp_path, unique_topic, 1000, props)
    wait_until("the first stored offsets", offsets_file.exists, worker)

    # The offsets file's directory disappears (root ignores permissions, so it becomes a plain file).
    shutil.rmtree(offsets_dir)
    offsets_dir.write_text("not a directory\n", encoding="utf-8")
    with source_file.open("a", encoding="utf-8") as f:
        f.write(lines(1000, 2000))

    status = wait_task_state(worker, "src", "FAILED")
    assert "WorkerError" in status["trace"] and "src-0" in status["trace"], status["trace"]
    last_line = status["trace"].strip().splitlines()[-1]
    assert last_line.startswith("kconnect_spark.channel.WorkerError: "), last_line
    assert "source offsets of task src-0" in last_line and str(offsets_file) in last_line, last_line

    offsets_dir.unlink()
    offsets_dir.mkdir()
    restart_and_check_nothing_lost(worker, "src", source_file, sink_file)
