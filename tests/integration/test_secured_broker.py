"""kconnect workers on a secured broker: SASL_PLAINTEXT with SCRAM users, SSL with PEM stores.

One broker for the module (started here, not the session's), with three listeners: PLAINTEXT, a
SASL_PLAINTEXT listener whose SCRAM-SHA-256/512 users were created when its storage was formatted,
and an SSL listener requiring client certificates, its PEM stores from the session's throwaway CA.
Workers are configured as Java workers are: top-level ``security.protocol`` / ``sasl.*`` / ``ssl.*``
keys for the worker's own clients, ``producer.*`` / ``consumer.*`` copies for the tasks' clients, and
per-connector ``*.override.*`` keys.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer
from aiokafka.errors import KafkaError
from kconnect.config.client_properties import ClientKind
from kconnect.kafka.clients import client_kwargs
from kconnect_testkit.broker import BrokerTls, KafkaBroker

from tests.throwaway_ca import KEY_PASSWORD, Certificate, CertificateAuthority, pem_stores
from tests.worker_process import WorkerProcess, count_lines

pytestmark = pytest.mark.integration

USER, PASSWORD = "connect", "connect-secret"
SCRAM_MODULE = "org.apache.kafka.common.security.scram.ScramLoginModule"
SCRAM_JAAS = f'{SCRAM_MODULE} required username="{USER}" password="{PASSWORD}";'


def _lines(count: int) -> str:
    return "".join(f"secured line {i}\n" for i in range(count))


class SecuredBroker:
    """The module's broker and the CA its SSL listener trusts."""

    def __init__(self, broker: Any, ca: CertificateAuthority, client: Certificate) -> None:
        self.broker = broker
        self.ca = ca
        self.client = client
        """A client certificate (key encrypted with KEY_PASSWORD) the SSL listener accepts."""

    def scram(self, mechanism: str = "SCRAM-SHA-512") -> dict[str, str]:
        """Kafka client properties for the SCRAM listener."""
        return {
            "bootstrap.servers": self.broker.sasl_bootstrap_servers,
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": mechanism,
            "sasl.jaas.config": SCRAM_JAAS,
        }

    def ssl_files(self) -> dict[str, str]:
        """Kafka client properties for the SSL listener, PEM stores as files."""
        return {
            "security.protocol": "SSL",
            **pem_stores(self.client, self.ca),
            "ssl.key.password": KEY_PASSWORD,
        }

    def ssl_inline(self) -> dict[str, str]:
        """Kafka client properties for the SSL listener, PEM stores inline (``ssl.truststore.certificates``,
        ``ssl.keystore.certificate.chain`` and ``ssl.keystore.key``)."""
        return {
            "security.protocol": "SSL",
            "ssl.truststore.type": "PEM",
            "ssl.truststore.certificates": self.ca.certificate_text,
            "ssl.keystore.type": "PEM",
            "ssl.keystore.certificate.chain": self.client.chain_text,
            "ssl.keystore.key": self.client.key_text,
            "ssl.key.password": KEY_PASSWORD,
        }


@pytest.fixture(scope="module")
def secured(
    ca: CertificateAuthority, server_cert: Certificate, client_cert: Certificate
) -> Iterator[SecuredBroker]:
    """A broker with a SCRAM listener and an SSL listener (client certificates required)."""
    tls = BrokerTls(keystore=server_cert.keystore, truststore=ca.certificate)
    with KafkaBroker(scram_users={USER: PASSWORD}, tls=tls) as broker:
        yield SecuredBroker(broker, ca, client_cert)


def _prefixed(prefix: str, props: dict[str, str]) -> dict[str, str]:
    return {prefix + key: value for key, value in props.items() if key != "bootstrap.servers"}


async def _consume(kwargs: dict[str, Any], topic: str, count: int) -> list[bytes]:
    consumer = AIOKafkaConsumer(topic, auto_offset_reset="earliest", enable_auto_commit=False, **kwargs)
    values: list[bytes] = []
    try:
        await consumer.start()
        while len(values) < count:
            batch = await asyncio.wait_for(consumer.getmany(timeout_ms=1000), 30)
            values.extend(m.value for messages in batch.values() for m in messages)
    finally:
        await consumer.stop()
    return values


def test_a_distributed_worker_runs_a_pipeline_over_scram(secured: SecuredBroker, tmp_path: Path) -> None:
    """Internal topics, group membership and the tasks' clients all authenticate with SCRAM-SHA-512.

    The worker's bootstrap.servers is the SCRAM listener only: nothing can fall back to PLAINTEXT.
    """
    group = f"scram-{uuid.uuid4().hex[:8]}"
    topic = f"scram-topic-{uuid.uuid4().hex[:8]}"
    scram = secured.scram()
    props = {
        **scram,
        **_prefixed("producer.", scram),
        **_prefixed("consumer.", scram),
        "group.id": group,
        "config.storage.topic": f"{group}-configs",
        "offset.storage.topic": f"{group}-offsets",
        "status.storage.topic": f"{group}-status",
        "config.storage.replication.factor": "1",
        "offset.storage.replication.factor": "1",
        "status.storage.replication.factor": "1",
        "offset.flush.interval.ms": "500",
    }
    worker = WorkerProcess(tmp_path, props, mode="distributed").start(timeout=120)
    try:
        source_file, sink_file = tmp_path / "in.txt", tmp_path / "out.txt"
        source_file.write_text(_lines(200), encoding="utf-8")
        source = {"connector.class": "FileStreamSource", "file": str(source_file), "topic": topic}
        sink = {"connector.class": "FileStreamSink", "file": str(sink_file), "topics": topic}
        for name, config in (("scram-source", source), ("scram-sink", sink)):
            response = worker.request("PUT", f"/connectors/{name}/config", config)
            assert response.status_code == 201, response.text
        worker.wait_for("200 lines in the sink file", lambda: count_lines(sink_file) == 200, timeout=120)
        assert sink_file.read_text(encoding="utf-8") == _lines(200)
        assert worker.status("scram-sink")["tasks"][0]["state"] == "RUNNING"
    finally:
        worker.stop()
    # The records are in the topic (JsonConverter's envelope), readable by a SCRAM-SHA-256 client too.
    kwargs = client_kwargs(ClientKind.CONSUMER, secured.scram("SCRAM-SHA-256"))
    values = asyncio.run(_consume(kwargs, topic, 200))
    assert [json.loads(v)["payload"] for v in values] == [f"secured line {i}" for i in range(200)]


def test_a_wrong_scram_password_is_refused_by_the_broker(secured: SecuredBroker) -> None:
    """The listener really authenticates: the same client with a wrong password cannot connect."""
    props = {**secured.scram(), "sasl.jaas.config": SCRAM_JAAS.replace(PASSWORD, "wrong")}
    kwargs = client_kwargs(ClientKind.CONSUMER, {**props, "request.timeout.ms": "5000"})
    with pytest.raises(KafkaError):
        asyncio.run(_consume(kwargs, "any-topic", 1))


def test_a_worker_runs_a_pipeline_over_ssl_with_pem_stores(secured: SecuredBroker, tmp_path: Path) -> None:
    """Standalone worker on the SSL listener: the worker's producer uses inline PEM stores (as a Java
    worker file's continuation lines join them), the sink's consumer a connector override with PEM files."""
    topic = f"ssl-topic-{uuid.uuid4().hex[:8]}"
    inline = {k: v.replace("\n", "") if k.startswith("ssl.") else v for k, v in secured.ssl_inline().items()}
    props = {
        "bootstrap.servers": secured.broker.ssl_bootstrap_servers,
        **secured.ssl_files(),
        **_prefixed("producer.", inline),
        "offset.storage.file.filename": str(tmp_path / "connect.offsets"),
        "offset.flush.interval.ms": "500",
    }
    worker = WorkerProcess(tmp_path, props).start(timeout=120)
    try:
        source_file, sink_file = tmp_path / "in.txt", tmp_path / "out.txt"
        source_file.write_text(_lines(150), encoding="utf-8")
        source = {"connector.class": "FileStreamSource", "file": str(source_file), "topic": topic}
        sink = {
            "connector.class": "FileStreamSink",
            "file": str(sink_file),
            "topics": topic,
            **_prefixed("consumer.override.", secured.ssl_files()),
        }
        for name, config in (("ssl-source", source), ("ssl-sink", sink)):
            response = worker.request("PUT", f"/connectors/{name}/config", config)
            assert response.status_code == 201, response.text
        worker.wait_for("150 lines in the sink file", lambda: count_lines(sink_file) == 150, timeout=120)
        assert sink_file.read_text(encoding="utf-8") == _lines(150)
    finally:
        worker.stop()


def test_a_consumer_override_is_refused_under_the_none_policy(secured: SecuredBroker, tmp_path: Path) -> None:
    """``connector.client.config.override.policy=None``: validate reports Kafka's error on the key, and
    creating the connector answers 400 with it."""
    props = {
        "bootstrap.servers": secured.broker.bootstrap_servers,
        "connector.client.config.override.policy": "None",
        "offset.storage.file.filename": str(tmp_path / "connect.offsets"),
    }
    worker = WorkerProcess(tmp_path, props).start(timeout=120)
    try:
        config = {
            "connector.class": "FileStreamSink",
            "name": "refused",
            "file": str(tmp_path / "out.txt"),
            "topics": "t",
            "consumer.override.max.poll.records": "10",
        }
        response = worker.request("PUT", "/connector-plugins/FileStreamSinkConnector/config/validate", config)
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["error_count"] == 1
        [entry] = [c for c in body["configs"] if c["value"]["name"] == "consumer.override.max.poll.records"]
        where = "in the connector configuration"
        message = f"The 'None' policy does not allow 'max.poll.records' to be overridden {where}."
        assert entry["value"]["errors"] == [message]
        assert entry["definition"]["name"] == "consumer.override.max.poll.records"
        assert entry["definition"]["type"] == "INT"
        created = worker.request("PUT", "/connectors/refused/config", config)
        assert created.status_code == 400
        assert message in created.json()["message"]
    finally:
        worker.stop()
