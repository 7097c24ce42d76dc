"""Issue 3 end to end: offsets (KIP-875) and active topics (KIP-558) with records really flowing."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import pytest
from aiokafka import AIOKafkaProducer
from aiokafka.admin import AIOKafkaAdminClient, NewTopic

from tests import rest_expectations as rx
from tests.integration.harness import Connectors, lines, path_of
from tests.worker_process import count_lines

pytestmark = pytest.mark.integration


def _offsets(connectors: Connectors, name: str) -> list[dict[str, Any]]:
    response = connectors.worker.get(f"{path_of(name)}/offsets")
    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) == {"offsets"}
    return list(body["offsets"])


def _stop(connectors: Connectors, name: str) -> None:
    rx.assert_empty(connectors.worker.request("PUT", f"{path_of(name)}/stop"), 204)
    connectors.worker.wait_for_state(name, "STOPPED", tasks=0)


def _sink_offsets(topic: str, offset: int) -> list[dict[str, Any]]:
    return [{"partition": {"kafka_topic": topic, "kafka_partition": 0}, "offset": {"kafka_offset": offset}}]


# --- GET -----------------------------------------------------------------------------------------------


def test_offsets_of_source_and_sink_in_running_and_stopped_states(connectors: Connectors) -> None:
    worker = connectors.worker
    source, sink, source_file, _sink_file = connectors.pipeline(50)
    size = source_file.stat().st_size
    source_shape = [{"partition": {"filename": str(source_file)}, "offset": {"position": size}}]
    worker.wait_for("the source offset committed", lambda: _offsets(connectors, source) == source_shape)
    worker.wait_for(
        "the sink group's offset committed",
        lambda: _offsets(connectors, sink) == _sink_offsets(connectors.topic, 50),
    )
    _stop(connectors, source)
    _stop(connectors, sink)
    assert _offsets(connectors, source) == source_shape
    assert _offsets(connectors, sink) == _sink_offsets(connectors.topic, 50)

    missing = connectors.name("missing")
    rx.assert_error(worker.get(f"{path_of(missing)}/offsets"), 404, rx.connector_not_found(missing))


def test_a_new_connector_has_no_offsets(connectors: Connectors, tmp_path: Path) -> None:
    name = connectors.name()
    connectors.sink(name, tmp_path / "o", initial_state="STOPPED")
    assert _offsets(connectors, name) == []


# --- PATCH / DELETE rules ------------------------------------------------------------------------------


def test_modifying_offsets_needs_a_stopped_connector(connectors: Connectors, tmp_path: Path) -> None:
    worker, name = connectors.worker, connectors.name()
    connectors.sink(name, tmp_path / "o")
    worker.wait_for_state(name, "RUNNING", tasks=1)
    body = {"offsets": _sink_offsets(connectors.topic, 0)}
    rx.assert_error(worker.request("PATCH", f"{path_of(name)}/offsets", body), 400, rx.not_stopped(name))
    rx.assert_error(worker.request("DELETE", f"{path_of(name)}/offsets"), 400, rx.not_stopped(name))
    rx.assert_empty(worker.request("PUT", f"{path_of(name)}/pause"), 202)  # PAUSED is not enough
    worker.wait_for_state(name, "PAUSED", tasks=1)
    rx.assert_error(worker.request("PATCH", f"{path_of(name)}/offsets", body), 400, rx.not_stopped(name))
    rx.assert_error(worker.request("DELETE", f"{path_of(name)}/offsets"), 400, rx.not_stopped(name))

    missing = connectors.name("missing")
    # An empty body is refused before the connector's existence is checked.
    for empty in ({"offsets": []}, {}):
        rx.assert_error(worker.request("PATCH", f"{path_of(missing)}/offsets", empty), 400, rx.EMPTY_OFFSETS)
    rx.assert_error(
        worker.request("PATCH", f"{path_of(missing)}/offsets", body), 404, rx.connector_not_found(missing)
    )
    rx.assert_error(
        worker.request("DELETE", f"{path_of(missing)}/offsets"), 404, rx.connector_not_found(missing)
    )


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (
            {"offset": {"kafka_offset": 1}},
            "The partition for a sink connector offset cannot be null or missing",
        ),
        (
            {"partition": {"kafka_topic": "t"}, "offset": {"kafka_offset": 1}},
            "The partition for a sink connector offset must contain the keys 'kafka_topic' and "
            "'kafka_partition'",
        ),
        (
            {"partition": {"kafka_topic": "t", "kafka_partition": "x"}, "offset": {"kafka_offset": 1}},
            "Partition values for sink connectors need to be integers.",
        ),
        (
            {"partition": {"kafka_topic": "t", "kafka_partition": 0}, "offset": {"position": 1}},
            "The offset for a sink connector should either be null or contain the key 'kafka_offset'",
        ),
        (
            {"partition": {"kafka_topic": "t", "kafka_partition": 0}, "offset": {"kafka_offset": "x"}},
            "Offset values for sink connectors need to be integers.",
        ),
    ],
)
def test_invalid_sink_offsets_are_400_with_kafkas_texts(
    connectors: Connectors, tmp_path: Path, entry: dict[str, Any], message: str
) -> None:
    worker, name = connectors.worker, connectors.name()
    connectors.sink(name, tmp_path / "o", initial_state="STOPPED")
    response = worker.request("PATCH", f"{path_of(name)}/offsets", {"offsets": [entry]})
    rx.assert_error(response, 400, contains=message)


def test_malformed_offsets_bodies_are_400(connectors: Connectors, tmp_path: Path) -> None:
    worker, name = connectors.worker, connectors.name()
    connectors.sink(name, tmp_path / "o", initial_state="STOPPED")
    for body in ([], {"offsets": "x"}, {"key": []}, {"offsets": [1]}):
        rx.assert_error(worker.request("PATCH", f"{path_of(name)}/offsets", body), 400)


def test_file_source_rejects_offsets_it_cannot_use_with_400_and_kafkas_text(
    connectors: Connectors, tmp_path: Path
) -> None:
    worker = connectors.worker
    stdin = connectors.name("stdin")
    connectors.create(stdin, {"connector.class": "FileStreamSource", "topic": "t"}, initial_state="STOPPED")
    body = {"offsets": [{"partition": {"filename": "f"}, "offset": {"position": 1}}]}
    rx.assert_error(
        worker.request("PATCH", f"{path_of(stdin)}/offsets", body),
        400,  # Kafka answers 500: the connector refused the request (docs/differences.md)
        "Offsets cannot be modified if the 'file' configuration is unspecified. "
        "This is because stdin is used for input and offsets are not tracked.",
    )
    name = connectors.name()
    connectors.source(name, tmp_path / "in.txt", initial_state="STOPPED")
    bad = {"offsets": [{"partition": {"filename": "f"}, "offset": {"position": "x"}}]}
    rx.assert_error(
        worker.request("PATCH", f"{path_of(name)}/offsets", bad),
        400,
        "The value for the 'position' key in the offset is expected to be a Long value",
    )
    negative = {"offsets": [{"partition": {"filename": "f"}, "offset": {"position": -1}}]}
    rx.assert_error(
        worker.request("PATCH", f"{path_of(name)}/offsets", negative), 400, contains="non-negative"
    )


# --- alter and reset, observed in the flow -------------------------------------------------------------


def test_altered_source_offsets_make_the_source_reread_from_there(connectors: Connectors) -> None:
    worker = connectors.worker
    source, _sink, source_file, sink_file = connectors.pipeline(100)
    _stop(connectors, source)
    position = len(lines(0, 60).encode())
    body = {"offsets": [{"partition": {"filename": str(source_file)}, "offset": {"position": position}}]}
    altered = worker.request("PATCH", f"{path_of(source)}/offsets", body)
    assert altered.status_code == 200, altered.text
    assert altered.json() == {"message": rx.OFFSETS_ALTERED}
    assert _offsets(connectors, source) == body["offsets"]

    rx.assert_empty(worker.request("PUT", f"{path_of(source)}/resume"), 202)
    worker.wait_for("lines 60-99 read again", lambda: count_lines(sink_file) == 140)
    assert sink_file.read_text(encoding="utf-8") == lines(0, 100) + lines(60, 100)

    _stop(connectors, source)
    reset = worker.request("DELETE", f"{path_of(source)}/offsets")
    assert reset.status_code == 200 and reset.json() == {"message": rx.OFFSETS_RESET}
    assert _offsets(connectors, source) == []
    rx.assert_empty(worker.request("PUT", f"{path_of(source)}/resume"), 202)
    worker.wait_for("the whole file read again", lambda: count_lines(sink_file) == 240)


def test_altered_and_reset_sink_offsets_make_the_sink_redeliver(connectors: Connectors) -> None:
    worker = connectors.worker
    _source, sink, _source_file, sink_file = connectors.pipeline(100)
    worker.wait_for(
        "the sink's offsets committed",
        lambda: _offsets(connectors, sink) == _sink_offsets(connectors.topic, 100),
    )
    _stop(connectors, sink)
    altered = worker.request(
        "PATCH", f"{path_of(sink)}/offsets", {"offsets": _sink_offsets(connectors.topic, 90)}
    )
    assert altered.status_code == 200, altered.text
    assert altered.json() == {"message": rx.OFFSETS_ALTERED}
    assert _offsets(connectors, sink) == _sink_offsets(connectors.topic, 90)
    rx.assert_empty(worker.request("PUT", f"{path_of(sink)}/resume"), 202)
    worker.wait_for("records 90-99 delivered again", lambda: count_lines(sink_file) == 110)
    assert sink_file.read_text(encoding="utf-8") == lines(0, 100) + lines(90, 100)
    worker.wait_for(
        "the sink's offsets committed again",
        lambda: _offsets(connectors, sink) == _sink_offsets(connectors.topic, 100),
    )

    _stop(connectors, sink)
    reset = worker.request("DELETE", f"{path_of(sink)}/offsets")
    assert reset.status_code == 200, reset.text
    assert reset.json() == {"message": rx.OFFSETS_RESET}
    assert _offsets(connectors, sink) == []
    rx.assert_empty(worker.request("PUT", f"{path_of(sink)}/resume"), 202)
    worker.wait_for("every record delivered again", lambda: count_lines(sink_file) == 210)


# --- the group the sink really uses, and every assigned partition ------------------------------------


def _group_offsets(bootstrap: str, group: str) -> dict[tuple[str, int], int]:
    """The group's committed offsets, read from the broker."""

    async def read() -> dict[tuple[str, int], int]:
        admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
        await admin.start()
        try:
            committed = await admin.list_consumer_group_offsets(group)
        finally:
            await admin.close()
        return {(tp.topic, tp.partition): meta.offset for tp, meta in committed.items() if meta.offset >= 0}

    return asyncio.run(read())


def test_offsets_act_on_the_group_named_by_consumer_override_group_id(
    connectors: Connectors, kafka_bootstrap: str
) -> None:
    worker, topic = connectors.worker, connectors.topic
    source_file, sink_file = connectors.workdir / "in.txt", connectors.workdir / "out.txt"
    source_file.write_text(lines(0, 100), encoding="utf-8")
    source, sink, group = connectors.name("src"), connectors.name("sink"), f"custom-{uuid.uuid4().hex[:8]}"
    connectors.source(source, source_file)
    sink_config = {"connector.class": "FileStreamSink", "file": str(sink_file), "topics": topic}
    connectors.create(sink, {**sink_config, "consumer.override.group.id": group})
    worker.wait_for("100 lines in the sink file", lambda: count_lines(sink_file) == 100)
    worker.wait_for(
        "the custom group's offset", lambda: _offsets(connectors, sink) == _sink_offsets(topic, 100)
    )
    assert _group_offsets(kafka_bootstrap, group) == {(topic, 0): 100}
    assert _group_offsets(kafka_bootstrap, f"connect-{sink}") == {}

    _stop(connectors, sink)
    altered = worker.request("PATCH", f"{path_of(sink)}/offsets", {"offsets": _sink_offsets(topic, 90)})
    assert altered.status_code == 200, altered.text
    assert _group_offsets(kafka_bootstrap, group) == {(topic, 0): 90}
    assert _offsets(connectors, sink) == _sink_offsets(topic, 90)
    rx.assert_empty(worker.request("PUT", f"{path_of(sink)}/resume"), 202)
    worker.wait_for("records 90-99 delivered again", lambda: count_lines(sink_file) == 110)
    assert sink_file.read_text(encoding="utf-8") == lines(0, 100) + lines(90, 100)

    worker.wait_for(
        "the custom group at 100 again", lambda: _offsets(connectors, sink) == _sink_offsets(topic, 100)
    )
    _stop(connectors, sink)
    reset = worker.request("DELETE", f"{path_of(sink)}/offsets")
    assert reset.status_code == 200, reset.text
    assert _group_offsets(kafka_bootstrap, group) == {}
    assert _offsets(connectors, sink) == []
    rx.assert_empty(worker.request("PUT", f"{path_of(sink)}/resume"), 202)
    worker.wait_for("every record delivered again", lambda: count_lines(sink_file) == 210)


def test_sink_offsets_list_every_assigned_partition_also_those_without_records(
    connectors: Connectors, kafka_bootstrap: str
) -> None:
    worker, topic = connectors.worker, connectors.topic

    async def create_and_fill() -> None:
        admin = AIOKafkaAdminClient(bootstrap_servers=kafka_bootstrap)
        await admin.start()
        try:
            await admin.create_topics([NewTopic(topic, 3, 1)])
        finally:
            await admin.close()
        producer = AIOKafkaProducer(bootstrap_servers=kafka_bootstrap)
        await producer.start()
        try:
            for i in range(5):
                await producer.send_and_wait(topic, f"line-{i}".encode(), partition=1)
        finally:
            await producer.stop()

    asyncio.run(create_and_fill())
    sink, sink_file = connectors.name("sink"), connectors.workdir / "out.txt"
    string = "org.apache.kafka.connect.storage.StringConverter"
    sink_config = {"connector.class": "FileStreamSink", "file": str(sink_file), "topics": topic}
    connectors.create(sink, {**sink_config, "value.converter": string})
    worker.wait_for("5 lines in the sink file", lambda: count_lines(sink_file) == 5)
    every_partition = [
        {"partition": {"kafka_topic": topic, "kafka_partition": p}, "offset": {"kafka_offset": o}}
        for p, o in ((0, 0), (1, 5), (2, 0))
    ]
    worker.wait_for("all three partitions committed", lambda: _offsets(connectors, sink) == every_partition)


# --- topics (KIP-558) ----------------------------------------------------------------------------------


def test_active_topics_follow_the_flow_and_reset(connectors: Connectors) -> None:
    worker, topic = connectors.worker, connectors.topic
    source, sink, source_file, sink_file = connectors.pipeline(10)
    for name in (source, sink):
        response = worker.get(f"{path_of(name)}/topics")
        assert response.status_code == 200
        assert response.json() == {name: {"topics": [topic]}}

    for name in (source, sink):
        rx.assert_empty(worker.request("PUT", f"{path_of(name)}/topics/reset"), 202)
        assert worker.get(f"{path_of(name)}/topics").json() == {name: {"topics": []}}

    with source_file.open("a", encoding="utf-8") as f:
        f.write(lines(10, 20))
    worker.wait_for("the new lines", lambda: count_lines(sink_file) == 20)
    for name in (source, sink):
        worker.wait_for(
            f"{name}'s topic tracked again",
            lambda name=name: worker.get(f"{path_of(name)}/topics").json() == {name: {"topics": [topic]}},
        )

    missing = connectors.name("missing")  # no existence check, as in Kafka
    assert worker.get(f"{path_of(missing)}/topics").json() == {missing: {"topics": []}}
