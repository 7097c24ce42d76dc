"""The automatic restart families: each instance this worker runs of a connector that enables them."""

from __future__ import annotations

from kconnect.model import (
    AutoRestarts,
    ConnectorAutoRestarts,
    ConnectorStateInfo,
    ConnectorType,
    State,
    StateInfo,
    TaskStateInfo,
)
from kconnect_metrics.endpoint import render
from kconnect_metrics.families import WorkerSnapshot
from prometheus_client.parser import text_string_to_metric_families

ME, OTHER = "http://me:8083/", "http://other:8083/"


def test_count_next_attempt_and_give_up_of_the_instances_this_worker_runs() -> None:
    health = [
        ConnectorStateInfo(
            "src",
            StateInfo(State.RUNNING, ME),
            [TaskStateInfo(State.FAILED, ME, "boom", id=0), TaskStateInfo(State.FAILED, OTHER, "boom", id=1)],
            ConnectorType.SOURCE,
        ),
        ConnectorStateInfo("off", StateInfo(State.RUNNING, ME), [], ConnectorType.SOURCE),
    ]
    restarts = {
        "src": ConnectorAutoRestarts(
            "src",
            True,
            3,
            500,
            60_000,
            AutoRestarts(),
            {0: AutoRestarts(2, "boom", 1_000, 7_000, False), 1: AutoRestarts(3, "boom", 1_000, None, True)},
        )
    }
    snapshot = WorkerSnapshot(ME, {"src": {}, "off": {}}, health, {}, None, auto_restarts=restarts)
    samples = {
        (s.name, s.labels["connector"], s.labels["task"]): s.value
        for family in text_string_to_metric_families(render(snapshot).decode())
        if family.name.startswith("kconnect_auto_restart")
        for s in family.samples
    }
    assert samples == {
        ("kconnect_auto_restarts", "src", "connector"): 0.0,
        ("kconnect_auto_restarts", "src", "0"): 2.0,
        ("kconnect_auto_restart_next_attempt_timestamp_seconds", "src", "connector"): 0.0,
        ("kconnect_auto_restart_next_attempt_timestamp_seconds", "src", "0"): 7.0,
        ("kconnect_auto_restart_gave_up", "src", "connector"): 0.0,
        ("kconnect_auto_restart_gave_up", "src", "0"): 0.0,
    }  # task 1 runs elsewhere; "off" enables nothing
