"""aiokafka client settings from Kafka's property names.

Java Kafka Connect passes ``producer.*`` / ``consumer.*`` worker properties (and, per connector,
``producer.override.*`` / ``consumer.override.*``) to its clients. kconnect maps the ones aiokafka
understands and logs the rest once, so a Java worker file still runs.

The loops see their clients through two small protocols, `ProducerClient` and `ConsumerClient`:
aiokafka's classes satisfy them, and unit tests of the loops' logic pass fakes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, ConsumerRebalanceListener
from aiokafka.errors import KafkaError, KafkaTimeoutError
from aiokafka.structs import TopicPartition as KafkaTopicPartition

log = logging.getLogger(__name__)


def _int(v: str) -> int:
    return int(v.strip())


def _bool(v: str) -> bool:
    return v.strip().lower() == "true"


def _str(v: str) -> str:
    return v.strip()


def _acks(v: str) -> int | str:
    v = v.strip()
    return "all" if v in ("all", "-1") else int(v)


_COMMON: dict[str, tuple[str, Callable[[str], Any]]] = {
    "client.id": ("client_id", _str),
    "request.timeout.ms": ("request_timeout_ms", _int),
    "metadata.max.age.ms": ("metadata_max_age_ms", _int),
    "retry.backoff.ms": ("retry_backoff_ms", _int),
    "security.protocol": ("security_protocol", _str),
    "sasl.mechanism": ("sasl_mechanism", _str),
    "connections.max.idle.ms": ("connections_max_idle_ms", _int),
}

_PRODUCER: dict[str, tuple[str, Callable[[str], Any]]] = {
    **_COMMON,
    "acks": ("acks", _acks),
    "linger.ms": ("linger_ms", _int),
    "batch.size": ("max_batch_size", _int),
    "max.request.size": ("max_request_size", _int),
    "compression.type": ("compression_type", lambda v: None if v.strip() == "none" else v.strip()),
    "enable.idempotence": ("enable_idempotence", _bool),
}

_CONSUMER: dict[str, tuple[str, Callable[[str], Any]]] = {
    **_COMMON,
    "auto.offset.reset": ("auto_offset_reset", _str),
    "fetch.max.bytes": ("fetch_max_bytes", _int),
    "fetch.min.bytes": ("fetch_min_bytes", _int),
    "fetch.max.wait.ms": ("fetch_max_wait_ms", _int),
    "max.partition.fetch.bytes": ("max_partition_fetch_bytes", _int),
    "max.poll.records": ("max_poll_records", _int),
    "max.poll.interval.ms": ("max_poll_interval_ms", _int),
    "session.timeout.ms": ("session_timeout_ms", _int),
    "heartbeat.interval.ms": ("heartbeat_interval_ms", _int),
    "isolation.level": ("isolation_level", _str),
}


def _prefixed(props: Mapping[str, str], prefix: str) -> dict[str, str]:
    return {k[len(prefix) :]: v for k, v in props.items() if k.startswith(prefix)}


def _translate(
    props: Mapping[str, str], table: Mapping[str, tuple[str, Callable[[str], Any]]], what: str
) -> dict[str, Any]:
    kwargs: dict[str, Any] = {}
    for key, raw in props.items():
        if key == "bootstrap.servers":
            continue
        if key not in table:
            log.info("%s setting %s is not supported by aiokafka and is ignored", what, key)
            continue
        name, parse = table[key]
        try:
            kwargs[name] = parse(raw)
        except ValueError:
            raise ValueError(f"{what} setting {key}: invalid value {raw!r}") from None
    return kwargs


#: Producer keys about retrying that aiokafka has no argument for: `DeliveryPolicy` carries them.
_DELIVERY_KEYS = ("delivery.timeout.ms", "retries", "max.in.flight.requests.per.connection")
#: Kafka Connect's producers retry a retriable error without end (Worker.baseProducerConfigs).
CONNECT_DELIVERY_TIMEOUT_MS = 2**31 - 1
#: The Java producer's default ``request.timeout.ms`` (aiokafka's own default is 40 s).
JAVA_REQUEST_TIMEOUT_MS = 30_000


def broker_unreachable(error: BaseException) -> bool:
    """Whether `error` means the broker did not answer in time or could not serve the request yet
    (aiokafka's retriable errors, and its client-side KafkaTimeoutError): trying again later may work."""
    return isinstance(error, KafkaTimeoutError) or (isinstance(error, KafkaError) and error.retriable)


def _producer_props(worker: Mapping[str, str], connector: Mapping[str, str]) -> dict[str, str]:
    return {**_prefixed(worker, "producer."), **_prefixed(connector, "producer.override.")}


def producer_kwargs(worker: Mapping[str, str], connector: Mapping[str, str]) -> dict[str, Any]:
    """AIOKafkaProducer keyword arguments: Connect's defaults, worker ``producer.*``, connector overrides."""
    props = _producer_props(worker, connector)
    kwargs: dict[str, Any] = {
        "bootstrap_servers": props.get("bootstrap.servers")
        or worker.get("bootstrap.servers", "localhost:9092"),
        "acks": "all",
        "linger_ms": 5,
        "max_batch_size": 256 * 1024,
        "request_timeout_ms": JAVA_REQUEST_TIMEOUT_MS,
    }
    mapped = {k: v for k, v in props.items() if k not in _DELIVERY_KEYS}
    kwargs.update(_translate(mapped, _PRODUCER, "producer"))
    return kwargs


@dataclass(frozen=True)
class DeliveryPolicy:
    """How long a source task's records may wait for Kafka, with the Java producer's meaning.

    A batch is retried on every retriable error (a request timed out, no leader, the connection
    broke) until ``delivery.timeout.ms`` after it was handed to the producer; only then, or on a
    non-retriable error, does it fail. ``retries=0`` fails it on the first error. aiokafka sends
    one batch per partition at a time, which keeps order as ``max.in.flight.requests.per.connection=1``
    (Kafka Connect's setting) does.
    """

    delivery_timeout_ms: int = CONNECT_DELIVERY_TIMEOUT_MS
    request_timeout_ms: int = JAVA_REQUEST_TIMEOUT_MS
    retries: int = 2**31 - 1

    @property
    def batch_ttl_s(self) -> float:
        """How long a batch may stay unanswered before its failure is final."""
        return self.delivery_timeout_ms / 1000 if self.retries > 0 else 0.0


def delivery_policy(worker: Mapping[str, str], connector: Mapping[str, str]) -> DeliveryPolicy:
    """The source producer's `DeliveryPolicy` from worker ``producer.*`` and connector overrides.

    Raises ValueError naming the key for a value Java's producer refuses too.
    """
    props = _producer_props(worker, connector)

    def number(key: str, default: int, minimum: int) -> int:
        raw = props.get(key)
        if raw is None:
            return default
        try:
            value = int(raw.strip())
        except ValueError:
            raise ValueError(f"producer setting {key}: invalid value {raw!r}") from None
        if value < minimum:
            raise ValueError(f"producer setting {key}: value {value} must be at least {minimum}")
        return value

    number("max.in.flight.requests.per.connection", 1, 1)
    request_timeout = number("request.timeout.ms", JAVA_REQUEST_TIMEOUT_MS, 0)
    linger = number("linger.ms", 5, 0)
    policy = DeliveryPolicy(
        delivery_timeout_ms=number("delivery.timeout.ms", CONNECT_DELIVERY_TIMEOUT_MS, 0),
        request_timeout_ms=request_timeout,
        retries=number("retries", 2**31 - 1, 0),
    )
    if policy.delivery_timeout_ms < linger + request_timeout:
        raise ValueError(
            "producer setting delivery.timeout.ms should be equal to or larger than linger.ms + "
            f"request.timeout.ms ({policy.delivery_timeout_ms} < {linger} + {request_timeout})"
        )
    return policy


def consumer_kwargs(worker: Mapping[str, str], connector: Mapping[str, str], group_id: str) -> dict[str, Any]:
    """AIOKafkaConsumer keyword arguments for a sink task in consumer group `group_id`."""
    props = {**_prefixed(worker, "consumer."), **_prefixed(connector, "consumer.override.")}
    kwargs: dict[str, Any] = {
        "bootstrap_servers": props.get("bootstrap.servers")
        or worker.get("bootstrap.servers", "localhost:9092"),
        "auto_offset_reset": "earliest",
        "max_poll_records": 4096,
        # A sink may subscribe before its topic exists; find it within seconds, not aiokafka's 5 minutes.
        "metadata_max_age_ms": 3000,
    }
    kwargs.update(_translate(props, _CONSUMER, "consumer"))
    kwargs["group_id"] = group_id
    kwargs["enable_auto_commit"] = False
    return kwargs


class ProducerClient(Protocol):
    """The part of aiokafka's producer a source loop uses (`AIOKafkaProducer` satisfies it)."""

    async def start(self) -> None:
        """Connect to the cluster."""
        ...

    async def stop(self) -> None:
        """Flush and close."""
        ...

    async def flush(self) -> None:
        """Wait until every batch handed over so far was answered by the broker."""
        ...

    def create_batch(self) -> Any:
        """An empty batch builder (`append(timestamp=, key=, value=, headers=)`, `close()`)."""
        ...

    async def send_batch(self, batch: Any, topic: str, *, partition: int) -> Any:
        """Hand a closed batch over; returns a future of its RecordMetadata (base offset)."""
        ...

    async def partitions_for(self, topic: str) -> Any:
        """The partition numbers of `topic`."""
        ...


async def refresh_metadata(consumer: Any) -> None:
    """Ask the broker for topic metadata now, instead of at the next ``metadata.max.age.ms``.

    aiokafka has no public call for it; a client without its `_client` (a test double) is left alone.
    Waits at most a second: a broker that does not answer is the regular refresh's to retry.
    """
    client = getattr(consumer, "_client", None)
    if client is not None:
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(client.force_metadata_update(), 1.0)


class ConsumerClient(Protocol):
    """The part of aiokafka's consumer a sink loop uses (`AIOKafkaConsumer` satisfies it)."""

    async def start(self) -> None:
        """Connect to the cluster."""
        ...

    async def stop(self) -> None:
        """Leave the group and close."""
        ...

    def subscribe(
        self,
        topics: Any = (),
        pattern: str | None = None,
        listener: ConsumerRebalanceListener | None = None,
    ) -> None:
        """Join the group for these topics (or this pattern), with a rebalance listener."""
        ...

    async def getmany(self, *partitions: KafkaTopicPartition, timeout_ms: int = 0) -> Any:
        """Fetched records by partition; nothing for paused partitions. Also keeps the member alive."""
        ...

    def assignment(self) -> set[KafkaTopicPartition]:
        """The partitions assigned to this member."""
        ...

    def pause(self, *partitions: KafkaTopicPartition) -> None:
        """Stop returning records of these partitions."""
        ...

    def resume(self, *partitions: KafkaTopicPartition) -> None:
        """Return records of these partitions again."""
        ...

    def paused(self) -> set[KafkaTopicPartition]:
        """The partitions currently paused."""
        ...

    def seek(self, partition: KafkaTopicPartition, offset: int) -> None:
        """Read `partition` from `offset` next."""
        ...

    async def commit(self, offsets: Any = None) -> None:
        """Commit these offsets to the group (raises CommitFailedError after a rebalance)."""
        ...


def create_producer(worker: Mapping[str, str], connector: Mapping[str, str]) -> ProducerClient:
    """A real aiokafka producer configured from the worker and connector properties.

    Its batches are retried as `delivery_policy` says. aiokafka has no delivery timeout of its own: it
    gives up on a batch ``request_timeout_ms`` after the batch was queued, so a broker unreachable
    for longer than one request would fail the task. Its batch time-to-live is set to the delivery
    timeout instead; a unit test checks the attribute still exists in the installed aiokafka.
    """
    producer = AIOKafkaProducer(**producer_kwargs(worker, connector))
    accumulator = producer._message_accumulator
    if not hasattr(accumulator, "_batch_ttl"):
        raise RuntimeError("this aiokafka version has no batch time-to-live to set delivery.timeout.ms")
    accumulator._batch_ttl = delivery_policy(worker, connector).batch_ttl_s
    client: ProducerClient = producer
    return client


def create_consumer(worker: Mapping[str, str], connector: Mapping[str, str], group_id: str) -> ConsumerClient:
    """A real aiokafka consumer of group `group_id`, configured from worker and connector properties."""
    consumer: ConsumerClient = AIOKafkaConsumer(**consumer_kwargs(worker, connector, group_id))
    return consumer
