"""A standalone worker accepts a source connector's exactly-once keys, as Kafka's standalone mode does,
and says in its log that it does not act on them: one WARN line per config change, naming the
connector, the keys and why (docs/reliability.md, "Exactly-once keys").

Runs on the shared standalone worker (`rest_worker`) with the real broker and Spark.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.harness import Connectors, path_of, wait_until

pytestmark = pytest.mark.integration

REASON = (
    ", accepted but without effect on a standalone worker: standalone mode has no exactly-once source "
    "support; its tasks deliver at least once and store offsets in offset.storage.file.filename"
)


def _warnings(connectors: Connectors, name: str) -> list[str]:
    """The worker's log lines that name source connector `name`'s keys without effect."""
    text = connectors.worker.log_path.read_text(errors="replace")
    return [line for line in text.splitlines() if f"Source connector {name} sets " in line]


def test_exactly_once_keys_of_a_standalone_source_are_logged_once_per_config_change(
    connectors: Connectors, tmp_path: Path
) -> None:
    source_file = tmp_path / "in.txt"
    source_file.write_text("", encoding="utf-8")
    name, plain = connectors.name("eos"), connectors.name("plain")
    config = {
        "connector.class": "FileStreamSource",
        "file": str(source_file),
        "topic": connectors.topic,
        "exactly.once.support": "required",
        "transaction.boundary": "interval",
        "transaction.boundary.interval.ms": "1000",
        "offsets.storage.topic": "my-offsets",
    }
    connectors.create(name, config)
    wait_until(
        "the WARN line of the created source",
        lambda: len(_warnings(connectors, name)) == 1,
        connectors.worker,
        15,
    )
    [created] = _warnings(connectors, name)
    assert " WARNING " in created, created
    assert (
        f"Source connector {name} sets exactly.once.support=required, transaction.boundary=interval, "
        f"transaction.boundary.interval.ms=1000, offsets.storage.topic=my-offsets{REASON}"
    ) in created, created

    updated = {key: value for key, value in config.items() if not key.startswith(("exactly", "transaction"))}
    response = connectors.worker.request("PUT", f"{path_of(name)}/config", updated)
    assert response.status_code == 200, response.text
    wait_until(
        "the WARN line of the update", lambda: len(_warnings(connectors, name)) == 2, connectors.worker, 15
    )
    assert (
        f"Source connector {name} sets offsets.storage.topic=my-offsets{REASON}"
        in _warnings(connectors, name)[1]
    )

    connectors.source(plain, source_file)
    assert _warnings(connectors, plain) == []
    assert len(_warnings(connectors, name)) == 2
