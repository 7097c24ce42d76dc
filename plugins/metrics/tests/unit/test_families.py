"""The Prometheus exposition of a worker snapshot: names, labels, types and values."""

from __future__ import annotations

import dataclasses

from kconnect.executor import Placement, TaskHost
from kconnect.model import ConnectorStateInfo, ConnectorTaskId, ConnectorType, State, StateInfo, TaskStateInfo
from kconnect.runtime.task_metrics import TaskMetrics
from kconnect_metrics.endpoint import render
from kconnect_metrics.families import WorkerSnapshot, metric_name
from prometheus_client.parser import text_string_to_metric_families

ME, OTHER = "http://me:8083/", "http://other:8083/"


def _snapshot() -> WorkerSnapshot:
    source = TaskMetrics("source")
    source.records_in, source.records_out = 120, 100
    source.active = lambda: 20
    sink = TaskMetrics("sink")
    sink.records_in, sink.records_out = 100, 90
    sink.errors.failures, sink.errors.skipped = 10, 10
    health = [
        ConnectorStateInfo(
            "src",
            StateInfo(State.RUNNING, ME, version="1.0"),
            [TaskStateInfo(State.RUNNING, ME, id=0), TaskStateInfo(State.FAILED, OTHER, "boom", id=1)],
            ConnectorType.SOURCE,
        ),
        ConnectorStateInfo(
            "sink", StateInfo(State.PAUSED, ME), [TaskStateInfo(State.PAUSED, ME, id=0)], ConnectorType.SINK
        ),
    ]
    placement = Placement(
        "spark",
        4,
        10,
        (
            TaskHost(1, "RUNNING", 10, False, (ConnectorTaskId("src", 0), ConnectorTaskId("sink", 0)), 0.75),
            TaskHost(2, "WAITING", 1, True, (ConnectorTaskId("hot", 0),)),
        ),
        (),
        6.5,
    )
    return WorkerSnapshot(
        ME,
        {"src": {"connector.class": "FileStreamSource"}, "sink": {"connector.class": "FileStreamSink"}},
        health,
        {ConnectorTaskId("src", 0): source.snapshot(), ConnectorTaskId("sink", 0): sink.snapshot()},
        placement,
    )


def _samples() -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    text = render(_snapshot()).decode()
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def test_names_follow_kafkas_groups_with_prometheus_conventions() -> None:
    assert metric_name("source-task-metrics", "source-record-poll-total") == (
        "kafka_connect_source_task_metrics_source_record_poll_total"
    )


def test_task_totals_are_counters_labelled_by_connector_and_task() -> None:
    samples = _samples()
    src = (("connector", "src"), ("task", "0"))
    sink = (("connector", "sink"), ("task", "0"))
    assert samples[("kafka_connect_source_task_metrics_source_record_poll_total", src)] == 120
    assert samples[("kafka_connect_source_task_metrics_source_record_write_total", src)] == 100
    assert samples[("kafka_connect_source_task_metrics_source_record_active_count", src)] == 20
    assert samples[("kafka_connect_sink_task_metrics_sink_record_read_total", sink)] == 100
    assert samples[("kafka_connect_sink_task_metrics_sink_record_send_total", sink)] == 90
    assert samples[("kafka_connect_task_error_metrics_total_record_errors", sink)] == 10
    assert samples[("kafka_connect_task_error_metrics_total_records_skipped", sink)] == 10
    text = render(_snapshot()).decode()
    assert "# TYPE kafka_connect_source_task_metrics_source_record_poll_total counter" in text
    assert "# TYPE kafka_connect_source_task_metrics_poll_batch_avg_time_ms gauge" in text


def test_worker_and_connector_figures_count_only_this_workers_share() -> None:
    samples = _samples()
    assert samples[("kafka_connect_connect_worker_metrics_connector_count", ())] == 2
    assert samples[("kafka_connect_connect_worker_metrics_task_count", ())] == 2, "task 1 runs elsewhere"
    src = (("connector", "src"),)
    assert samples[("kafka_connect_connect_worker_metrics_connector_total_task_count", src)] == 1
    assert samples[("kafka_connect_connect_worker_metrics_connector_running_task_count", src)] == 1
    assert samples[("kafka_connect_connect_worker_metrics_connector_failed_task_count", src)] == 0
    info = (
        ("connector", "src"),
        ("connector_class", "FileStreamSource"),
        ("connector_type", "source"),
        ("connector_version", "1.0"),
        ("status", "running"),
    )
    assert samples[("kafka_connect_connector_metrics_info", info)] == 1
    paused = (("connector", "sink"), ("status", "paused"), ("task", "0"))
    assert samples[("kafka_connect_connector_task_metrics_status", paused)] == 1


def test_the_executors_own_figures() -> None:
    samples = _samples()
    spark = (("executor", "spark"),)
    assert samples[("kconnect_executor_startup_seconds", spark)] == 6.5
    assert samples[("kconnect_executor_slots", spark)] == 4
    assert samples[("kconnect_executor_slots_used", spark)] == 1
    assert samples[("kconnect_executor_tasks_per_slot", spark)] == 2
    assert samples[("kconnect_executor_host_cpu", (("executor", "spark"), ("host", "1")))] == 0.75
    assert not [key for key in samples if key[0] == "kconnect_executor_host_cpu" and ("host", "2") in key[1]]


def test_stalled_tasks_show_as_a_gauge_with_how_long_and_a_worker_count() -> None:
    snapshot = dataclasses.replace(
        _snapshot(), stalled_tasks={ConnectorTaskId("src", 0): 1000.0}, taken_at=1063.0
    )
    text = render(snapshot).decode()
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }
    src = (("connector", "src"), ("task", "0"))
    assert samples[("kconnect_task_stalled", src)] == 1
    assert samples[("kconnect_task_stalled_seconds", src)] == 63
    assert samples[("kconnect_worker_stalled_task_count", ())] == 1
    assert ("kconnect_task_stalled", (("connector", "sink"), ("task", "0"))) not in samples, "paused"
    assert ("kconnect_task_stalled", (("connector", "src"), ("task", "1"))) not in samples, "elsewhere"
    calm = _samples()
    assert calm[("kconnect_task_stalled", src)] == 0
    assert calm[("kconnect_task_stalled_seconds", src)] == 0
    assert calm[("kconnect_worker_stalled_task_count", ())] == 0
