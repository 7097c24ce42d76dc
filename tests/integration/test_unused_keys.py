"""No key is silently ignored: a real worker logs its keys without effect and its unknown keys once each.

A standalone worker on the real broker and Spark is given ``producer.buffer.memory`` (accepted,
without effect in aiokafka) and ``no.such.key``; a FileStreamSource and a FileStreamSink carry an
override without effect each. The worker's log (task lines come from Spark's Python worker) names
each key once, with the reason, and the records still flow.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.integration.harness import lines, wait_until
from tests.integration.test_task_failures import read_lines, wait_task_state

pytestmark = pytest.mark.integration

NO_EFFECT = "is accepted but has no effect in kconnect: "


def test_keys_without_effect_and_unknown_keys_are_logged_once_each(
    start_worker: Any, tmp_path: Path, unique_topic: str
) -> None:
    worker = start_worker({"producer.buffer.memory": "67108864", "no.such.key": "1"})
    source_file, sink_file = tmp_path / "in.txt", tmp_path / "out.txt"
    source_file.write_text(lines(0, 20), encoding="utf-8")
    configs = {
        "source": {
            "connector.class": "FileStreamSource",
            "file": str(source_file),
            "topic": unique_topic,
            "producer.override.send.buffer.bytes": "262144",
        },
        "sink": {
            "connector.class": "FileStreamSink",
            "file": str(sink_file),
            "topics": unique_topic,
            "consumer.override.receive.buffer.bytes": "262144",
        },
    }
    for name, config in configs.items():
        response = worker.request("POST", "/connectors", {"name": name, "config": config})
        assert response.status_code == 201, response.text
        wait_task_state(worker, name, "RUNNING")
    wait_until("every line in the sink", lambda: len(read_lines(sink_file)) == 20, worker, 120)

    expected = [
        "The configuration 'buffer.memory' (producer) " + NO_EFFECT,
        "These configurations '[no.such.key]' were supplied but are not used yet.",
        "The configuration 'send.buffer.bytes' (producer.override of connector source) " + NO_EFFECT,
        "The configuration 'receive.buffer.bytes' (consumer.override of connector sink) " + NO_EFFECT,
    ]
    wait_until(
        "the override lines from the tasks",
        lambda: all(text in worker.log_path.read_text(errors="replace") for text in expected),
        worker,
        30,
    )
    log = worker.log_path.read_text(errors="replace")
    for text in expected:
        assert log.count(text) == 1, f"{text!r} logged {log.count(text)} times\n{worker.log_tail()}"
    assert "sockets use the operating system's buffer sizes" in log
