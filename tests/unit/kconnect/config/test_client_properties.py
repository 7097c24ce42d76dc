"""The table of Java client properties and what kconnect's aiokafka clients make of them."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import javaproperties
import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.admin import AIOKafkaAdminClient
from aiokafka.coordinator.assignors.range import RangePartitionAssignor
from aiokafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor
from kconnect.config.client_properties import (
    MAPPED,
    PROPERTIES,
    SECURITY,
    UNSUPPORTED,
    ClientKind,
    client_config_def,
    client_problems,
    internal_client_props,
    worker_client_problems,
)
from kconnect.kafka.clients import (
    ClientConfigError,
    admin_kwargs,
    consumer_kwargs,
    internal_kwargs,
    producer_kwargs,
)
from kconnect.worker_config import ConfigFileError, WorkerConfig

WORKER = {"bootstrap.servers": "127.0.0.1:9"}
PLAIN_MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule"
ASSIGNORS = "org.apache.kafka.clients.consumer"
SAMPLES = Path(__file__).resolve().parents[3] / "fixtures" / "kafka-config"
CLIENTS = {
    ClientKind.PRODUCER: AIOKafkaProducer,
    ClientKind.CONSUMER: AIOKafkaConsumer,
    ClientKind.ADMIN: AIOKafkaAdminClient,
}


def test_the_table_holds_every_kafka_4_3_client_property() -> None:
    """Counts of Kafka 4.3.1's ProducerConfig, ConsumerConfig and AdminClientConfig keys."""
    counts = {kind: len(client_config_def(kind).config_keys) for kind in ClientKind}
    assert counts == {ClientKind.PRODUCER: 113, ClientKind.CONSUMER: 116, ClientKind.ADMIN: 91}
    assert {"buffer.memory", "sasl.jaas.config", "ssl.keystore.certificate.chain"} <= set(PROPERTIES)


@pytest.mark.parametrize("kind", list(ClientKind))
def test_every_mapped_key_names_an_argument_of_aiokafkas_client(kind: ClientKind) -> None:
    accepted = set(inspect.signature(CLIENTS[kind]).parameters)
    for prop in PROPERTIES.values():
        if kind not in prop.kinds or prop.support is not MAPPED:
            continue
        if prop.argument == SECURITY:
            assert {"ssl_context", "sasl_plain_username", "sasl_plain_password"} <= accepted
        elif prop.argument and prop.argument.isidentifier():
            assert prop.argument in accepted, (kind, prop.name, prop.argument)


def test_every_key_says_why_unless_it_maps_to_one_argument() -> None:
    for prop in PROPERTIES.values():
        if prop.support is not MAPPED or not (prop.argument or "").isidentifier():
            assert prop.note, prop.name


@pytest.mark.parametrize(
    ("props", "key", "message"),
    [
        ({"interceptor.classes": "com.example.Interceptor"}, "interceptor.classes", "is not supported"),
        (
            {"partitioner.class": "org.apache.kafka.clients.producer.RoundRobinPartitioner"},
            "partitioner.class",
            "",
        ),
        (
            {"transactional.id": "tx"},
            "transactional.id",
            "the worker sets it to <group.id>-<connector>-<task>",
        ),
        ({"no.such.key": "1"}, "no.such.key", "no.such.key is not a Kafka producer configuration"),
        ({"auto.offset.reset": "earliest"}, "auto.offset.reset", "is not a Kafka producer configuration"),
        ({"buffer.memory": "lots"}, "buffer.memory", "Invalid value lots for configuration buffer.memory"),
        ({"compression.type": "brotli"}, "compression.type", "Invalid value brotli"),
        ({"partitioner.ignore.keys": "true"}, "partitioner.ignore.keys", "kconnect supports false"),
        ({"sasl.mechanism": "OAUTHBEARER"}, "sasl.mechanism", "PLAIN, SCRAM-SHA-256, SCRAM-SHA-512"),
    ],
)
def test_a_refused_producer_key_is_named_with_the_reason(
    props: dict[str, str], key: str, message: str
) -> None:
    problems = client_problems(ClientKind.PRODUCER, props)
    assert list(problems) == [key]
    assert message in problems[key]
    with pytest.raises(ClientConfigError, match=re.escape(f"producer setting {key}: ")):
        producer_kwargs(WORKER, {f"producer.override.{k}": v for k, v in props.items()})


def test_java_only_tuning_keys_are_accepted_without_effect() -> None:
    worker = {
        **WORKER,
        "producer.buffer.memory": "67108864",
        "producer.max.block.ms": "60000",
        "producer.compression.zstd.level": "3",
        "producer.metric.reporters": "",
        "producer.interceptor.classes": "",
        "consumer.enable.auto.commit": "true",
        "consumer.key.deserializer": "org.apache.kafka.common.serialization.StringDeserializer",
        "consumer.receive.buffer.bytes": "65536",
    }
    assert worker_client_problems(worker) == {}
    assert "buffer_memory" not in producer_kwargs(worker, {})
    assert consumer_kwargs(worker, {}, "connect-x")["enable_auto_commit"] is False, "Connect commits itself"


def test_mapped_keys_become_aiokafka_arguments_with_javas_spellings() -> None:
    producer = producer_kwargs(
        WORKER,
        {
            "producer.override.acks": "-1",
            "producer.override.compression.type": "none",
            "producer.override.batch.size": "1000",
            "producer.override.client.id": "mine",
        },
    )
    assert (producer["acks"], producer["compression_type"], producer["max_batch_size"]) == ("all", None, 1000)
    assert producer["client_id"] == "mine"
    consumer = consumer_kwargs(
        WORKER,
        {
            "consumer.override.partition.assignment.strategy": (
                "org.apache.kafka.clients.consumer.RangeAssignor,"
                "org.apache.kafka.clients.consumer.CooperativeStickyAssignor"
            ),
            "consumer.override.isolation.level": "READ_COMMITTED",
            "consumer.override.group.id": "shared-group",
        },
        "connect-sink",
    )
    assert consumer["partition_assignment_strategy"] == (RangePartitionAssignor,)
    assert consumer["isolation_level"] == "read_committed"
    assert consumer["group_id"] == "shared-group", "Kafka lets a connector override its group"
    with pytest.raises(ClientConfigError, match="RoundRobinAssignor is not supported"):
        # Java loads the assignors by class name: a short name is refused there too.
        consumer_kwargs(
            WORKER, {"consumer.override.partition.assignment.strategy": "RoundRobinAssignor"}, "g"
        )
    roundrobin = {"consumer.override.partition.assignment.strategy": f"{ASSIGNORS}.RoundRobinAssignor"}
    assert consumer_kwargs(WORKER, roundrobin, "g")["partition_assignment_strategy"] == (
        RoundRobinPartitionAssignor,
    )


def test_task_clients_take_prefixed_keys_and_internal_clients_the_top_level_ones() -> None:
    """As Kafka's Worker: top-level security keys reach the worker's own clients, not the tasks'."""
    worker = {
        **WORKER,
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": "PLAIN",
        "sasl.jaas.config": f'{PLAIN_MODULE} required username="u" password="p";',
        "metric.reporters": "com.example.Reporter",
        "producer.linger.ms": "20",
    }
    assert "security_protocol" not in producer_kwargs(worker, {})
    internal = internal_kwargs(worker)
    assert internal["sasl_plain_username"] == "u" and internal["security_protocol"] == "SASL_PLAINTEXT"
    assert "linger.ms" not in internal_client_props(worker)
    assert "metric.reporters" not in internal_client_props(worker), "the worker's own key"
    override = {"admin.override.sasl.jaas.config": f'{PLAIN_MODULE} required username="v" password="p";'}
    assert admin_kwargs(worker, override)["sasl_plain_username"] == "v", "a connector's admin override wins"


def test_kafkas_sample_worker_files_have_no_refused_client_key() -> None:
    for sample in SAMPLES.glob("connect-*.properties"):
        props = javaproperties.loads(sample.read_text(encoding="utf-8"))
        assert worker_client_problems(props) == {}, sample.name


def test_a_worker_with_refused_client_keys_does_not_start_and_names_them() -> None:
    props = {
        **WORKER,
        "producer.interceptor.classes": "com.example.Interceptor",
        "consumer.no.such.key": "1",
        "admin.listeners": "http://127.0.0.1:8084",
        "security.protocol": "SASL_SSL",
        "sasl.mechanism": "SCRAM-SHA-256",
    }
    with pytest.raises(ConfigFileError) as failure:
        WorkerConfig.from_props(props, "worker.properties")
    lines = str(failure.value).splitlines()
    assert lines == [
        "worker.properties: sasl.jaas.config: sasl.jaas.config is required with security.protocol SASL_SSL: "
        "kconnect has no JAAS file (java.security.auth.login.config)",
        "worker.properties: producer.interceptor.classes: interceptor.classes is not supported by kconnect: "
        "Java interceptor classes cannot run in Python",
        "worker.properties: consumer.no.such.key: no.such.key is not a Kafka consumer configuration",
    ]


def test_jks_settings_do_not_matter_while_the_protocol_does_not_use_ssl() -> None:
    """As in Java, a store is read only by the SSL protocols."""
    worker = {
        **WORKER,
        "ssl.truststore.location": "/etc/kafka/truststore.jks",
        "ssl.truststore.password": "x",
    }
    assert worker_client_problems(worker) == {}
    problems = worker_client_problems({**worker, "security.protocol": "SSL"})
    assert list(problems) == ["ssl.truststore.type"]
    assert "kconnect reads PEM stores only" in problems["ssl.truststore.type"]


def test_unsupported_keys_left_empty_are_accepted() -> None:
    empty = {
        p.name: "" for p in PROPERTIES.values() if p.support is UNSUPPORTED and ClientKind.ADMIN in p.kinds
    }
    assert "bootstrap.controllers" in empty
    assert client_problems(ClientKind.ADMIN, empty) == {}


DOCS = Path(__file__).resolve().parents[4] / "docs" / "security.md"


def test_docs_list_every_client_property() -> None:
    text = DOCS.read_text(encoding="utf-8")
    assert [name for name in PROPERTIES if f"| `{name}` |" not in text] == []


def test_the_docs_worker_examples_start() -> None:
    blocks = re.findall(r"```properties\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.DOTALL)
    assert len(blocks) == 3
    for block in blocks:
        props = javaproperties.loads(block)
        assert worker_client_problems(props) == {}
        WorkerConfig.from_props(props, "docs/security.md")
