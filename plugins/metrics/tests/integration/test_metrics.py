"""The metrics REST extension on a real worker: ``GET /metrics`` while records flow through Spark tasks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.integration.harness import lines, wait_until
from tests.worker_process import count_lines

pytestmark = pytest.mark.integration


def _samples(worker: Any) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = worker.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def test_metrics_count_every_record_of_a_running_pipeline(
    start_worker: Any, tmp_path: Path, unique_topic: str
) -> None:
    worker = start_worker({"rest.extension.classes": "PrometheusMetrics"})
    source_file, sink_file = tmp_path / "in.txt", tmp_path / "out.txt"
    source_file.write_text(lines(0, 500), encoding="utf-8")
    for name, config in (
        ("src", {"connector.class": "FileStreamSource", "file": str(source_file), "topic": unique_topic}),
        ("sink", {"connector.class": "FileStreamSink", "file": str(sink_file), "topics": unique_topic}),
    ):
        response = worker.request("POST", "/connectors", {"name": name, "config": config})
        assert response.status_code == 201, response.text
    worker.wait_for("500 lines in the sink file", lambda: count_lines(sink_file) == 500)
    with source_file.open("a", encoding="utf-8") as more:
        more.write(lines(500, 700))
    worker.wait_for("700 lines in the sink file", lambda: count_lines(sink_file) == 700)

    src, sink = (("connector", "src"), ("task", "0")), (("connector", "sink"), ("task", "0"))

    def counted() -> bool:
        samples = _samples(worker)
        return (
            samples.get(("kafka_connect_source_task_metrics_source_record_poll_total", src)) == 700
            and samples.get(("kafka_connect_source_task_metrics_source_record_write_total", src)) == 700
            and samples.get(("kafka_connect_sink_task_metrics_sink_record_read_total", sink)) == 700
            and samples.get(("kafka_connect_sink_task_metrics_sink_record_send_total", sink)) == 700
        )

    wait_until("the task metrics to count all 700 records", counted, worker, timeout=30)
    samples = _samples(worker)
    assert samples[("kafka_connect_connect_worker_metrics_connector_count", ())] == 2
    assert samples[("kafka_connect_connect_worker_metrics_task_count", ())] == 2
    assert (
        samples[("kafka_connect_connector_task_metrics_status", (*src[:1], ("status", "running"), src[1]))]
        == 1
    )
    assert samples[("kafka_connect_task_error_metrics_total_record_errors", sink)] == 0
    assert samples[("kafka_connect_sink_task_metrics_partition_count", sink)] == 1
    assert samples[("kafka_connect_connector_task_metrics_offset_commit_success_percentage", src)] == 100
    assert samples[("kconnect_executor_startup_seconds", (("executor", "spark"),))] > 0
    assert samples[("kconnect_executor_tasks_per_slot", (("executor", "spark"),))] >= 1
