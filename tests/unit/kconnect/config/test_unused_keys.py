"""Keys accepted without effect and keys nothing reads: each logged once per process."""

from __future__ import annotations

import logging

import pytest
from kconnect.config import unused_keys
from kconnect.config.client_properties import PROPERTIES
from kconnect.config.known_worker_keys import unknown_worker_keys
from kconnect.kafka.clients import admin_kwargs, consumer_kwargs, producer_kwargs
from kconnect.worker_config import WorkerConfig

WORKER = {"bootstrap.servers": "127.0.0.1:9", "offset.storage.file.filename": "/tmp/offsets"}
LOGGER = "kconnect.config.unused_keys"


@pytest.fixture(autouse=True)
def fresh_process(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """Each test is a process that has logged nothing yet."""
    monkeypatch.setattr(unused_keys, "_logged", set())
    caplog.set_level(logging.INFO, logger=LOGGER)


def _lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == LOGGER]


def test_worker_client_keys_without_effect_are_logged_once_each_with_the_reason(
    caplog: pytest.LogCaptureFixture,
) -> None:
    props = {
        **WORKER,
        "producer.buffer.memory": "67108864",
        "producer.linger.ms": "10",  # mapped: not logged
        "consumer.receive.buffer.bytes": "65536",
        "admin.default.api.timeout.ms": "1000",
        "client.dns.lookup": "use_all_dns_ips",
    }
    WorkerConfig.from_props(props)
    WorkerConfig.from_props(props)
    note = PROPERTIES["buffer.memory"].note
    assert _lines(caplog) == [
        "The configuration 'client.dns.lookup' (worker) is accepted but has no effect in kconnect: "
        + PROPERTIES["client.dns.lookup"].note,
        f"The configuration 'buffer.memory' (producer) is accepted but has no effect in kconnect: {note}",
        "The configuration 'receive.buffer.bytes' (consumer) is accepted but has no effect in kconnect: "
        + PROPERTIES["receive.buffer.bytes"].note,
        "The configuration 'default.api.timeout.ms' (admin) is accepted but has no effect in kconnect: "
        + PROPERTIES["default.api.timeout.ms"].note,
    ]
    assert all(r.levelno == logging.INFO for r in caplog.records if r.name == LOGGER)


def test_every_no_op_property_is_logged_with_its_note() -> None:
    for prop in PROPERTIES.values():
        if prop.support.value != "no-op":
            continue
        kind = next(iter(sorted(prop.kinds)))
        found = unused_keys.no_effect_props(kind, {prop.name: "x"})
        assert found == {prop.name: prop.note}
        assert prop.note, f"{prop.name} needs a reason to log"


def test_an_unknown_worker_key_is_logged_as_kafka_43s_clients_log_unused_keys(
    caplog: pytest.LogCaptureFixture,
) -> None:
    props = {**WORKER, "no.such.key": "1", "rest.port": "8083", "group.id": "g", "spark.master": "local[1]"}
    WorkerConfig.from_props(props)
    WorkerConfig.from_props(props)
    assert _lines(caplog) == [
        "These configurations '[no.such.key, rest.port]' were supplied but are not used yet."
    ]


@pytest.mark.parametrize(
    "key",
    [
        "listeners",
        "connector.client.config.override.allowlist",
        "inter.worker.key.ttl.ms",
        "ssl.client.auth",
        "sasl.jaas.config",
        "metric.reporters",
        "producer.acks",
        "key.converter.schemas.enable",
        "config.providers.file.class",
        "listeners.https.ssl.keystore.location",
        "executor.tasks.per.spark.task",
        "rest.basic.auth.credentials.file",
        "config.storage.file.filename",
    ],
)
def test_keys_kafka_or_kconnect_reads_are_known(key: str) -> None:
    assert unknown_worker_keys({key: "x"}) == []


@pytest.mark.parametrize(
    "key", ["no.such.key", "batch.size", "config.storage.min.insync.replicas", "rest.port"]
)
def test_keys_nothing_reads_are_unknown(key: str) -> None:
    assert unknown_worker_keys({key: "x"}) == [key]


def test_a_connectors_overrides_without_effect_are_logged_once_per_process_and_connector(
    caplog: pytest.LogCaptureFixture,
) -> None:
    worker = {**WORKER, "producer.buffer.memory": "1"}  # the worker's own: logged at worker start only
    sink = {
        "name": "sink",
        "consumer.override.receive.buffer.bytes": "65536",
        "consumer.override.max.poll.records": "10",
        "admin.override.client.dns.lookup": "use_all_dns_ips",
    }
    for _ in range(3):  # a restart storm
        consumer_kwargs(worker, sink, "connect-sink")
        admin_kwargs(worker, sink)
        producer_kwargs(worker, sink)
    consumer_kwargs(worker, {**sink, "name": "other"}, "connect-other")
    reason = PROPERTIES["receive.buffer.bytes"].note
    assert _lines(caplog) == [
        "The configuration 'receive.buffer.bytes' (consumer.override of connector sink) is accepted but "
        f"has no effect in kconnect: {reason}",
        "The configuration 'client.dns.lookup' (admin.override of connector sink) is accepted but has no "
        "effect in kconnect: " + PROPERTIES["client.dns.lookup"].note,
        "The configuration 'receive.buffer.bytes' (consumer.override of connector other) is accepted but "
        f"has no effect in kconnect: {reason}",
    ]


STANDALONE_REASON = (
    "accepted but without effect on a standalone worker: standalone mode has no exactly-once source "
    "support; its tasks deliver at least once and store offsets in offset.storage.file.filename"
)


@pytest.mark.parametrize(
    ("config", "keys"),
    [
        ({}, {}),
        ({"exactly.once.support": "requested", "transaction.boundary": "POLL"}, {}),
        ({"exactly.once.support": " Required "}, {"exactly.once.support": "Required"}),
        ({"transaction.boundary": "interval"}, {"transaction.boundary": "interval"}),
        ({"transaction.boundary": "connector"}, {"transaction.boundary": "connector"}),
        ({"transaction.boundary.interval.ms": "0"}, {"transaction.boundary.interval.ms": "0"}),
        ({"offsets.storage.topic": "my-offsets"}, {"offsets.storage.topic": "my-offsets"}),
        ({"offsets.storage.topic": " ", "transaction.boundary.interval.ms": ""}, {}),
    ],
)
def test_standalone_exactly_once_keys_are_those_standalone_mode_does_not_act_on(
    config: dict[str, str], keys: dict[str, str]
) -> None:
    assert unused_keys.standalone_exactly_once_keys({"connector.class": "FileStreamSource", **config}) == keys


def test_a_standalone_source_with_exactly_once_keys_is_one_warn_line_each_time(
    caplog: pytest.LogCaptureFixture,
) -> None:
    config = {
        "offsets.storage.topic": "my-offsets",
        "transaction.boundary.interval.ms": "1000",
        "transaction.boundary": "interval",
        "exactly.once.support": "required",
    }
    unused_keys.log_standalone_exactly_once_keys("src", config)
    unused_keys.log_standalone_exactly_once_keys("src", {"offsets.storage.topic": "my-offsets"})
    unused_keys.log_standalone_exactly_once_keys("plain", {"transaction.boundary": "poll"})
    assert [(r.levelname, r.getMessage()) for r in caplog.records if r.name == LOGGER] == [
        (
            "WARNING",
            "Source connector src sets exactly.once.support=required, transaction.boundary=interval, "
            f"transaction.boundary.interval.ms=1000, offsets.storage.topic=my-offsets, {STANDALONE_REASON}",
        ),
        ("WARNING", f"Source connector src sets offsets.storage.topic=my-offsets, {STANDALONE_REASON}"),
    ]
