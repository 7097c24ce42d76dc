"""Java tasks' metrics (issue 23): Kafka's connect-file 4.3.1 FileStreamSource and FileStreamSink run on
kconnect and report Kafka Connect's task metrics over the control channel as Python tasks do; the
worker's metrics REST extension serves them (``GET /metrics``, as the metrics plugin's tests read
Python tasks'): every line polled and written by the source, read and put by the sink, and Kafka's own
``task-error-metrics`` (ErrorHandlingMetrics), at zero, then counting a sink's records its converter
fails on with ``errors.tolerance=all``.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from kconnect_testkit.plugin_jars import fetch_connect_file

from plugins.java.tests.integration.java_worker import java_worker
from plugins.metrics.tests.integration.test_metrics import _samples
from tests.integration.harness import wait_until
from tests.worker_process import WorkerProcess

pytestmark = pytest.mark.integration

SOURCE = "org.apache.kafka.connect.file.FileStreamSourceConnector"
SINK = "org.apache.kafka.connect.file.FileStreamSinkConnector"
STRING = "org.apache.kafka.connect.storage.StringConverter"
#: Kafka's Java classes rather than the Python FileStream plugin's, which share their names.
JAVA = {"connector.plugin.version": "4.3.1"}
LINES = 300
#: A task's labels in ``GET /metrics``: its connector and its number.
Labels = tuple[tuple[str, str], tuple[str, str]]


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory, kafka_bootstrap: str) -> Iterator[WorkerProcess]:
    """A standalone kconnect worker with connect-file 4.3.1 on its plugin.path and the metrics extension."""
    folder = tmp_path_factory.mktemp("java-metrics")
    plugin_path = str(fetch_connect_file("4.3.1"))
    extra = {"rest.extension.classes": "PrometheusMetrics"}
    with java_worker(folder, kafka_bootstrap, plugin_path, STRING, extra=extra) as ours:
        yield ours


def _pipeline(
    worker: WorkerProcess, folder: Path, sink_config: dict[str, str] | None = None
) -> tuple[Labels, Labels, Path]:
    """LINES lines through a Java FileStreamSource and FileStreamSink; their tasks' labels, the sink file."""
    stem = uuid.uuid4().hex[:8]
    source, sink, topic = f"src-{stem}", f"sink-{stem}", f"java-metrics-{stem}"
    source_file, sink_file = folder / "in.txt", folder / "out.txt"
    source_file.write_text("".join(f"metrics line {i}\n" for i in range(LINES)), encoding="utf-8")
    for name, config in (
        (source, {"connector.class": SOURCE, "file": str(source_file), "topic": topic, **JAVA}),
        (
            sink,
            {"connector.class": SINK, "file": str(sink_file), "topics": topic, **JAVA, **(sink_config or {})},
        ),
    ):
        response = worker.request("PUT", f"/connectors/{name}/config", {"name": name, **config})
        assert response.status_code in (200, 201), response.text
    for name in (source, sink):
        worker.wait_for_state(name, "RUNNING", tasks=1, fail_fast=True)
    return (("connector", source), ("task", "0")), (("connector", sink), ("task", "0")), sink_file


def _delete(worker: WorkerProcess, *tasks: Labels) -> None:
    for (_, name), _task in tasks:
        assert worker.request("DELETE", f"/connectors/{name}").status_code == 204


def test_java_tasks_report_kafkas_task_metrics(worker: WorkerProcess, tmp_path: Path) -> None:
    src, snk, sink_file = _pipeline(worker, tmp_path)

    def counted() -> bool:
        samples = _samples(worker)
        return (
            samples.get(("kafka_connect_source_task_metrics_source_record_poll_total", src)) == LINES
            and samples.get(("kafka_connect_source_task_metrics_source_record_write_total", src)) == LINES
            and samples.get(("kafka_connect_sink_task_metrics_sink_record_read_total", snk)) == LINES
            and samples.get(("kafka_connect_sink_task_metrics_sink_record_send_total", snk)) == LINES
        )

    wait_until(f"the Java tasks' metrics to count all {LINES} lines", counted, worker, timeout=120)
    assert len(sink_file.read_text(encoding="utf-8").splitlines()) == LINES
    samples = _samples(worker)
    for task in (src, snk):
        # Kafka's ErrorHandlingMetrics, read from the task's JVM.
        assert samples[("kafka_connect_task_error_metrics_total_record_errors", task)] == 0
        assert samples[("kafka_connect_task_error_metrics_total_records_skipped", task)] == 0
        assert samples[("kafka_connect_connector_task_metrics_batch_size_max", task)] >= 1
    assert samples[("kafka_connect_source_task_metrics_source_record_active_count", src)] == 0
    assert samples[("kafka_connect_sink_task_metrics_partition_count", snk)] == 1

    def committed() -> bool:
        samples = _samples(worker)
        return (
            samples.get(("kafka_connect_connector_task_metrics_offset_commit_success_percentage", src)) == 100
            and samples.get(("kafka_connect_sink_task_metrics_offset_commit_completion_total", snk), 0) >= 1
        )

    wait_until("the Java tasks' offset commits to be counted", committed, worker, timeout=30)
    _delete(worker, src, snk)


def test_kafkas_error_metrics_count_a_java_sinks_skipped_records(
    worker: WorkerProcess, tmp_path: Path
) -> None:
    # The lines are no JSON: Kafka's JsonConverter fails on each, errors.tolerance=all skips it.
    tolerant = {"value.converter": "org.apache.kafka.connect.json.JsonConverter", "errors.tolerance": "all"}
    src, snk, sink_file = _pipeline(worker, tmp_path, tolerant)

    def skipped() -> bool:
        samples = _samples(worker)
        return (
            samples.get(("kafka_connect_sink_task_metrics_sink_record_read_total", snk)) == LINES
            and samples.get(("kafka_connect_task_error_metrics_total_records_skipped", snk)) == LINES
        )

    wait_until(
        f"the Java sink's error metrics to count {LINES} skipped records", skipped, worker, timeout=120
    )
    samples = _samples(worker)
    assert samples[("kafka_connect_task_error_metrics_total_record_failures", snk)] == LINES
    assert samples[("kafka_connect_task_error_metrics_last_error_timestamp", snk)] > 0
    assert samples[("kafka_connect_sink_task_metrics_sink_record_send_total", snk)] == 0
    assert samples[("kafka_connect_sink_task_metrics_sink_record_active_count", snk)] == 0
    assert samples[("kafka_connect_task_error_metrics_total_record_errors", src)] == 0
    assert not sink_file.exists() or sink_file.read_text(encoding="utf-8") == ""
    _delete(worker, src, snk)
