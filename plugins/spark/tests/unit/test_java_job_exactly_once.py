"""java_job.exactly_once: what a Java source task under exactly-once support gets in its launch, as
``SourceTransactions.java`` reads it: the settings `ExactlyOnceSource.for_task` decides for Python
tasks too, and nothing for a task that delivers at least once."""

from __future__ import annotations

import json

from kconnect.config.worker_settings import WorkerSettings
from kconnect.executor import TaskSpec
from kconnect.model import ConnectorTaskId
from kconnect_spark.java_job import exactly_once

EOS_WORKER = {
    "group.id": "cluster",
    "exactly.once.source.support": "enabled",
    "offset.storage.topic": "worker-offsets",
    "offset.flush.interval.ms": "2500",
}


def _spec(kind: str, worker: dict[str, str], connector: dict[str, str]) -> TaskSpec:
    return TaskSpec(
        ConnectorTaskId("files", 2),
        "source" if kind == "source" else "sink",
        "org.apache.kafka.connect.file.FileStreamSourceTask",
        {"connector.class": "FileStreamSource", **connector},
        {"file": "in.txt"},
        WorkerSettings.from_props(worker),
        runtime="java",
    )


def test_an_eos_source_task_gets_its_transactional_id_topics_and_boundary_as_json() -> None:
    spec = _spec("source", EOS_WORKER, {"offsets.storage.topic": "own", "transaction.boundary": "Interval"})
    assert json.loads(json.dumps(exactly_once(spec))) == {
        "exactly_once": {
            "transactional_id": "cluster-files-2",
            "offsets_topic": "own",
            "boundary": "interval",
            "interval_s": 2.5,
            "worker_offsets_topic": "worker-offsets",
        }
    }


def test_the_connector_boundary_and_the_worker_topic_alone() -> None:
    spec = _spec("source", EOS_WORKER, {"transaction.boundary": "connector"})
    settings = json.loads(json.dumps(exactly_once(spec)))["exactly_once"]
    assert settings["boundary"] == "connector"
    assert settings["offsets_topic"] == "worker-offsets"
    assert settings["worker_offsets_topic"] is None


def test_nothing_without_exactly_once_support_for_sinks_and_on_standalone_workers() -> None:
    assert exactly_once(_spec("source", {**EOS_WORKER, "exactly.once.source.support": "preparing"}, {})) == {}
    assert exactly_once(_spec("sink", EOS_WORKER, {})) == {}
    assert exactly_once(_spec("source", {"exactly.once.source.support": "enabled"}, {})) == {}
