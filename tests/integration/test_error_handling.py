"""Error handling (KIP-298) on a real broker and Spark: tolerance, dead letter queue, error log.

A sink reads a topic holding good JSON records, malformed JSON (the converter fails) and records a
transformation rejects. Under ``errors.tolerance=all`` the good ones reach the sink file in order,
the bad ones land in the dead letter queue as the bytes they were consumed as, with their own
headers and Kafka's ``__connect.errors.*`` headers, and the committed offsets move past all of them.
Under ``none`` the first bad record fails the task, with Kafka's message in its trace.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.integration.harness import Connectors, consume_records, path_of, produce_records, wait_until
from tests.worker_process import count_lines

pytestmark = pytest.mark.integration

T = "org.apache.kafka.connect.transforms"
JSON = "org.apache.kafka.connect.json.JsonConverter"


def _inputs() -> list[tuple[bytes, list[tuple[str, bytes]]]]:
    """(value, headers) in topic order: 12 good records among 4 malformed and 4 a transform rejects."""
    values: list[tuple[bytes, list[tuple[str, bytes]]]] = []
    for i in range(12):
        values.append((json.dumps({"line": f"good {i}"}).encode(), []))
        if i % 3 == 0:
            values.append((b'{"line": "broken ' + str(i).encode() + b'"', [("trace-id", f"t{i}".encode())]))
        if i % 3 == 1:
            values.append((str(i).encode(), []))  # a JSON number: ExtractField needs a map
    return values


def _sink_config(connectors: Connectors, **errors: str) -> dict[str, str]:
    return {
        "connector.class": "FileStreamSink",
        "file": str(connectors.workdir / "out.txt"),
        "topics": connectors.topic,
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": JSON,
        "value.converter.schemas.enable": "false",
        "transforms": "extract",
        "transforms.extract.type": f"{T}.ExtractField$Value",
        "transforms.extract.field": "line",
        **errors,
    }


def test_bad_records_go_to_the_dead_letter_queue_with_kafkas_headers_while_good_ones_flow(
    connectors: Connectors, kafka_bootstrap: str
) -> None:
    inputs = _inputs()
    asyncio.run(produce_records(kafka_bootstrap, connectors.topic, inputs))
    dlq = f"{connectors.topic}-dlq"
    name = connectors.name("sink")
    connectors.create(
        name,
        _sink_config(
            connectors,
            **{
                "errors.tolerance": "all",
                "errors.log.enable": "true",
                "errors.log.include.messages": "true",
                "errors.deadletterqueue.topic.name": dlq,
                "errors.deadletterqueue.topic.replication.factor": "1",
                "errors.deadletterqueue.context.headers.enable": "true",
            },
        ),
    )
    sink_file = connectors.workdir / "out.txt"
    connectors.worker.wait_for("12 good lines", lambda: count_lines(sink_file) >= 12)
    assert sink_file.read_text(encoding="utf-8").splitlines() == [f"good {i}" for i in range(12)]

    dead = asyncio.run(consume_records(kafka_bootstrap, dlq, 8))
    bad = [(offset, value, headers) for offset, (value, headers) in enumerate(inputs) if b"good" not in value]
    assert [m.value for m in dead] == [value for _, value, _ in bad], "the bytes as consumed, in order"
    assert all(m.key == b"k" for m in dead)
    for message, (offset, value, own_headers) in zip(dead, bad, strict=True):
        headers = dict(message.headers)
        for key, raw in own_headers:
            assert headers[key] == raw, "the record's own headers travel with it"
        converter_failed = value.startswith(b"{")
        assert headers["__connect.errors.topic"] == connectors.topic.encode()
        assert headers["__connect.errors.partition"] == b"0"
        assert headers["__connect.errors.offset"] == str(offset).encode()
        assert headers["__connect.errors.connector.name"] == name.encode()
        assert headers["__connect.errors.task.id"] == b"0"
        assert headers["__connect.errors.stage"] == (
            b"VALUE_CONVERTER" if converter_failed else b"TRANSFORMATION"
        )
        expected_class = JSON if converter_failed else f"{T}.ExtractField$Value"
        assert headers["__connect.errors.class.name"] == expected_class.encode()
        assert (
            headers["__connect.errors.exception.class.name"]
            == b"org.apache.kafka.connect.errors.DataException"
        )
        assert headers["__connect.errors.exception.message"]
        assert b"Traceback" in headers["__connect.errors.exception.stacktrace"]

    def committed_past_everything() -> bool:
        offsets = connectors.worker.get(f"{path_of(name)}/offsets").json()["offsets"]
        return [o["offset"]["kafka_offset"] for o in offsets] == [len(inputs)]

    wait_until("the committed offset past the last record", committed_past_everything, connectors.worker)
    assert connectors.worker.status(name)["tasks"][0]["state"] == "RUNNING"
    log = connectors.worker.log_tail(400)
    assert (
        f"Error encountered in task {name}-0. Executing stage 'VALUE_CONVERTER' with class '{JSON}', "
        f"where consumed record is {{topic='{connectors.topic}', partition=0, offset=1, timestamp="
    ) in log


def test_without_tolerance_the_first_bad_record_fails_the_task_with_kafkas_message(
    connectors: Connectors, kafka_bootstrap: str
) -> None:
    good, broken = json.dumps({"line": "good"}).encode(), b"{not json"
    asyncio.run(produce_records(kafka_bootstrap, connectors.topic, [(good, []), (broken, []), (good, [])]))
    name = connectors.name("sink")
    connectors.create(name, _sink_config(connectors))

    def failed() -> bool:
        return bool(connectors.worker.status(name)["tasks"][0]["state"] == "FAILED")

    wait_until("the task to fail", failed, connectors.worker)
    trace = connectors.worker.status(name)["tasks"][0]["trace"]
    assert "Tolerance exceeded in error handler" in trace
    assert "JsonConverter" in trace or "DataError" in trace, trace
    assert count_lines(connectors.workdir / "out.txt") == 0, "nothing of the failed batch reached the sink"
