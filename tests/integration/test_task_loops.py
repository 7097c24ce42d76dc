"""The task loops on the real broker and real Spark: what a long pause does to a sink's consumer group."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from aiokafka.admin import AIOKafkaAdminClient

from tests.integration.harness import Connectors, lines, path_of
from tests.worker_process import count_lines

pytestmark = pytest.mark.integration

#: The sink's max.poll.interval.ms in these tests: a member that does not poll for this long leaves its group.
MAX_POLL_INTERVAL_MS = 2000


async def _describe_group(bootstrap: str, group: str) -> tuple[str, list[str]]:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        [response] = await admin.describe_consumer_groups([group])
    finally:
        await admin.close()
    [described] = response.groups
    error_code, _group_id, state, _protocol_type, _protocol, members = described[:6]
    assert error_code == 0, f"describing {group} failed with error code {error_code}"
    return state, sorted(member[0] for member in members)


def group_members(bootstrap: str, group: str) -> tuple[str, list[str]]:
    """The consumer group's state and its members' ids, from the broker."""
    return asyncio.run(_describe_group(bootstrap, group))


def test_a_sink_paused_longer_than_max_poll_interval_keeps_its_group_membership(
    connectors: Connectors, kafka_bootstrap: str
) -> None:
    worker = connectors.worker
    source_file, sink_file = connectors.workdir / "in.txt", connectors.workdir / "out.txt"
    source_file.write_text(lines(0, 100), encoding="utf-8")
    source, sink = connectors.name("src"), connectors.name("sink")
    connectors.source(source, source_file)
    config: dict[str, Any] = {
        "connector.class": "FileStreamSink",
        "file": str(sink_file),
        "topics": connectors.topic,
        "consumer.override.max.poll.interval.ms": str(MAX_POLL_INTERVAL_MS),
    }
    connectors.create(sink, config)
    worker.wait_for("the first 100 lines in the sink file", lambda: count_lines(sink_file) == 100)
    group = f"connect-{sink}"
    state, members = group_members(kafka_bootstrap, group)
    assert state == "Stable" and len(members) == 1, (state, members)

    assert worker.request("PUT", f"{path_of(sink)}/pause").status_code == 202
    worker.wait_for_state(sink, "PAUSED", tasks=1)
    with source_file.open("a", encoding="utf-8") as f:
        f.write(lines(100, 300))
    # Three times max.poll.interval.ms: a consumer that stopped polling would have left the group by now.
    time.sleep(3 * MAX_POLL_INTERVAL_MS / 1000)
    assert count_lines(sink_file) == 100, "records reached a paused sink"
    assert group_members(kafka_bootstrap, group) == ("Stable", members), "the paused sink left its group"

    assert worker.request("PUT", f"{path_of(sink)}/resume").status_code == 202
    worker.wait_for_state(sink, "RUNNING", tasks=1)
    worker.wait_for("the lines written during the pause", lambda: count_lines(sink_file) >= 300)
    time.sleep(2)  # a redelivery would show up now
    assert sink_file.read_bytes() == source_file.read_bytes(), "lines lost, reordered or written twice"
    assert group_members(kafka_bootstrap, group) == ("Stable", members), "resuming caused a rebalance"


def test_a_sink_started_before_its_topic_exists_gets_the_first_records_within_seconds(
    connectors: Connectors,
) -> None:
    """The sink asks for metadata every 250 ms while nothing is assigned, for 30 s after it starts.

    Its periodic refresh is set to a minute here, so only that lookup can find the topic in time.
    """
    worker = connectors.worker
    source_file, sink_file = connectors.workdir / "in.txt", connectors.workdir / "out.txt"
    sink = connectors.name("sink")
    connectors.create(
        sink,
        {
            "connector.class": "FileStreamSink",
            "file": str(sink_file),
            "topics": connectors.topic,
            "consumer.override.metadata.max.age.ms": "60000",
        },
    )
    worker.wait_for_state(sink, "RUNNING", tasks=1)
    time.sleep(2)  # subscribed, and the topic is still unknown to the broker
    source_file.write_text(lines(0, 10), encoding="utf-8")
    connectors.source(connectors.name("src"), source_file)  # its first record creates the topic
    created = time.monotonic()
    worker.wait_for("the 10 lines in the sink file", lambda: count_lines(sink_file) == 10, timeout=60)
    assert time.monotonic() - created < 15, "the sink found its new topic only at its periodic refresh"
