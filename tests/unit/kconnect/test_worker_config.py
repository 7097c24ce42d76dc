"""The URL other workers reach this one at (`WorkerConfig.advertised_url`), as Kafka's RestServer makes it."""

from __future__ import annotations

import pytest
from kconnect import worker_config
from kconnect.config.worker_keys import ExactlyOnceSourceSupport
from kconnect.worker_config import ConfigFileError, WorkerConfig

HOST = "host-a.example"


@pytest.fixture(autouse=True)
def machine_host_name(monkeypatch: pytest.MonkeyPatch) -> None:
    """The machine's host name, as a wildcard listener advertises it."""
    monkeypatch.setattr(worker_config.socket, "gethostname", lambda: HOST)


ADVERTISED = [
    ({}, f"http://{HOST}:8083/"),
    ({"listeners": "http://0.0.0.0:9000"}, f"http://{HOST}:9000/"),
    ({"listeners": "http://[::]:9000"}, f"http://{HOST}:9000/"),
    ({"listeners": "http://127.0.0.1:8084"}, "http://127.0.0.1:8084/"),
    ({"listeners": "http://w1.example:8083, http://w1.example:9093"}, "http://w1.example:8083/"),
    ({"listeners": "http://[::1]:8083"}, "http://[::1]:8083/"),
    ({"rest.advertised.host.name": "w1.example"}, "http://w1.example:8083/"),
    ({"rest.advertised.host.name": " w1.example "}, "http://w1.example:8083/"),
    ({"rest.advertised.host.name": ""}, f"http://{HOST}:8083/"),
    ({"rest.advertised.port": "18083"}, f"http://{HOST}:18083/"),
    ({"listeners": "http://127.0.0.1:8084", "rest.advertised.host.name": "w1.example",
      "rest.advertised.port": "80"}, "http://w1.example:80/"),
    ({"rest.advertised.listener": "http"}, f"http://{HOST}:8083/"),
    ({"rest.advertised.listener": "HTTP"}, f"http://{HOST}:8083/"),
    ({"rest.advertised.host.name": "fe80::1"}, "http://[fe80::1]:8083/"),
    ({"rest.advertised.host.name": "2001:db8::7", "rest.advertised.port": "9000"}, "http://[2001:db8::7]:9000/"),
]  # fmt: skip


@pytest.mark.parametrize(("props", "expected"), ADVERTISED)
def test_advertised_url(props: dict[str, str], expected: str) -> None:
    assert WorkerConfig.from_props(props).advertised_url() == expected


def test_a_host_name_that_cannot_be_read_advertises_localhost(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_host_name() -> str:
        raise OSError("no host name")

    monkeypatch.setattr(worker_config.socket, "gethostname", no_host_name)
    assert WorkerConfig.from_props({}).advertised_url() == "http://localhost:8083/"


def test_a_bad_advertised_port_names_the_file_and_key() -> None:
    config = WorkerConfig.from_props({"rest.advertised.port": "eighty"}, "worker.properties")
    with pytest.raises(ConfigFileError) as info:
        config.advertised_url()
    assert (
        str(info.value)
        == "worker.properties: rest.advertised.port: invalid value 'eighty': not a number of type INT"
    )


def test_an_https_advertised_listener_advertises_https() -> None:
    config = WorkerConfig.from_props(
        {"listeners": "http://127.0.0.1:8083", "rest.advertised.listener": "https"}
    )
    assert config.advertised_url() == "https://127.0.0.1:8083/"


def test_a_bracketed_ipv6_advertised_host_is_not_bracketed_twice() -> None:
    config = WorkerConfig.from_props({"rest.advertised.host.name": "[fe80::1]"})
    assert config.advertised_url() == "http://[fe80::1]:8083/"


def test_a_listener_with_an_empty_host_advertises_the_machine_and_its_port() -> None:
    assert WorkerConfig.from_props({"listeners": "http://:9000"}).advertised_url() == f"http://{HOST}:9000/"


@pytest.mark.parametrize(
    ("props", "message"),
    [
        (
            {"plugin.discovery": "everywhere"},
            "w.properties: plugin.discovery: Invalid value everywhere for configuration plugin.discovery: "
            "String must be one of (case insensitive): ONLY_SCAN, HYBRID_WARN, HYBRID_FAIL, SERVICE_LOAD",
        ),
        (
            {"group.id": "g", "exactly.once.source.support": "sometimes"},
            "w.properties: exactly.once.source.support: Invalid value sometimes for configuration "
            "exactly.once.source.support: String must be one of (case insensitive): "
            "DISABLED, ENABLED, PREPARING",  # Java's HashSet order, as Kafka 4.3.1 prints it
        ),
        (
            {"group.id": "g", "worker.sync.timeout.ms": "soon"},
            "w.properties: worker.sync.timeout.ms: Invalid value soon for configuration "
            "worker.sync.timeout.ms: Not a number of type INT",
        ),
    ],
)
def test_connect_keys_kconnect_does_not_act_on_are_still_checked(props: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigFileError) as raised:
        config = WorkerConfig.from_props({"bootstrap.servers": "localhost:9092", **props}, "w.properties")
        config.group_config()
    assert str(raised.value) == message


def test_connect_keys_with_valid_values_start() -> None:
    props = {
        "bootstrap.servers": "localhost:9092",
        "group.id": "g",
        "plugin.discovery": "hybrid_warn",
        "exactly.once.source.support": "DISABLED",
        "worker.sync.timeout.ms": "3000",
        "worker.unsync.backoff.ms": "300000",
    }
    assert WorkerConfig.from_props(props).group_config().group_id == "g"


@pytest.mark.parametrize(
    ("value", "level", "enabled", "transactional_leader"),
    [
        (None, ExactlyOnceSourceSupport.DISABLED, False, False),
        ("disabled", ExactlyOnceSourceSupport.DISABLED, False, False),
        (" Preparing ", ExactlyOnceSourceSupport.PREPARING, False, True),
        ("ENABLED", ExactlyOnceSourceSupport.ENABLED, True, True),
    ],
)
def test_exactly_once_source_support_is_parsed_as_kafka(
    value: str | None, level: ExactlyOnceSourceSupport, enabled: bool, transactional_leader: bool
) -> None:
    props = {} if value is None else {"exactly.once.source.support": value}
    parsed = ExactlyOnceSourceSupport.from_props(props)
    assert parsed is level
    assert (parsed.enabled, parsed.uses_transactional_leader) == (enabled, transactional_leader)


def test_exactly_once_source_support_is_a_distributed_key_only() -> None:
    # StandaloneConfig has no such key: a standalone worker starts whatever it says, as Kafka's.
    props = {"bootstrap.servers": "localhost:9092", "exactly.once.source.support": "sometimes"}
    WorkerConfig.from_props(props)
    group = WorkerConfig.from_props({**props, "group.id": "g", "exactly.once.source.support": "disabled"})
    assert group.group_config().exactly_once_source_support is ExactlyOnceSourceSupport.DISABLED


@pytest.mark.parametrize(
    ("raw", "message"),
    [("ten", "Not a number of type LONG"), ("-1", "Value must be at least 0")],
)
def test_a_bad_offset_flush_records_stops_the_worker_naming_the_key(raw: str, message: str) -> None:
    key = "offset.flush.records"
    expected = f"w.properties: {key}: Invalid value {raw} for configuration {key}: {message}"
    with pytest.raises(ConfigFileError) as raised:
        WorkerConfig.from_props({key: raw}, "w.properties")
    assert str(raised.value) == expected


def test_offset_flush_records_is_a_known_worker_key() -> None:
    for raw in ("0", "10000", " 500 "):
        WorkerConfig.from_props({"offset.flush.records": raw}, "w.properties")
