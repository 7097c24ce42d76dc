"""aiokafka client settings from Kafka's property names: one path for every client kconnect makes.

Every aiokafka client goes through `client_kwargs`, which maps each Java client property with the
table in `kconnect.config.client_properties` (and `kconnect.security` for SASL and SSL): a key is
mapped, accepted without effect (a connector's override without effect is logged once,
`kconnect.config.unused_keys`), or refused with a `ClientConfigError` naming it. Refused keys are
caught earlier: the worker's at start-up (`kconnect.config.client_properties.worker_client_problems`),
a connector's overrides at validation (`kconnect.config.override_policy`). Which keys reach a client
follows Kafka's Worker:

* a source task's producer: ``bootstrap.servers``, the worker's ``producer.*``, the connector's
  ``producer.override.*`` (`producer_kwargs`); a sink task's consumer the same with ``consumer``
  (`consumer_kwargs`); a connector's admin client the worker's top-level client keys, ``admin.*``,
  then ``admin.override.*`` (`admin_kwargs`);
* the worker's own clients (internal topics, group membership, the offsets API's admin): the
  worker's top-level client keys (``security.protocol``, ``sasl.*``, ``ssl.*``...) as Kafka's
  WorkerConfig hands its originals to them (`internal_kwargs`).

The loops see their clients through two small protocols, `ProducerClient` and `ConsumerClient`:
aiokafka's classes satisfy them, and unit tests of the loops' logic pass fakes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, ConsumerRebalanceListener
from aiokafka.coordinator.assignors.abstract import AbstractPartitionAssignor
from aiokafka.coordinator.assignors.range import RangePartitionAssignor
from aiokafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor
from aiokafka.coordinator.assignors.sticky.sticky_assignor import StickyPartitionAssignor
from aiokafka.errors import KafkaError, KafkaTimeoutError
from aiokafka.structs import TopicPartition as KafkaTopicPartition

from kconnect.config.client_properties import (
    MAPPED,
    ClientKind,
    client_problems,
    client_property,
    internal_client_props,
    worker_admin_props,
)
from kconnect.config.configdef import parse_type
from kconnect.config.unused_keys import log_override_keys
from kconnect.config.values import ConfigType
from kconnect.config.worker_settings import BOOTSTRAP_SERVERS_CONFIG, worker_text
from kconnect.security import security_kwargs, security_problems

log = logging.getLogger(__name__)


class ClientConfigError(ValueError):
    """A client property kconnect refuses; the message names the client, the key and why."""


_ASSIGNORS: dict[str, type[AbstractPartitionAssignor]] = {
    "org.apache.kafka.clients.consumer.RangeAssignor": RangePartitionAssignor,
    "org.apache.kafka.clients.consumer.RoundRobinAssignor": RoundRobinPartitionAssignor,
    "org.apache.kafka.clients.consumer.StickyAssignor": StickyPartitionAssignor,
}
_COOPERATIVE = "org.apache.kafka.clients.consumer.CooperativeStickyAssignor"


def _assignors(classes: list[str]) -> tuple[type[AbstractPartitionAssignor], ...]:
    """aiokafka's assignors for Java's class names, in order; the cooperative one is skipped (aiokafka
    rebalances eagerly), which is what a Java group does with Kafka's default list too."""
    chosen = []
    for name in classes:
        name = name.removeprefix("class ").strip()
        if name in _ASSIGNORS:
            chosen.append(_ASSIGNORS[name])
        elif name != _COOPERATIVE:
            raise ClientConfigError(
                f"partition.assignment.strategy: {name} is not supported by kconnect "
                f"(supported: {', '.join(sorted(_ASSIGNORS))})"
            )
    if not chosen:
        raise ClientConfigError(
            "partition.assignment.strategy: kconnect needs one of " + ", ".join(sorted(_ASSIGNORS))
        )
    return tuple(chosen)


def _argument(name: str, raw: str, config_type: ConfigType) -> Any:
    value = parse_type(name, raw, config_type)
    if name == "acks":
        return "all" if str(value).strip() in ("all", "-1") else int(str(value))
    if name == "compression.type":
        return None if str(value).lower() == "none" else str(value).lower()
    if name in ("auto.offset.reset", "isolation.level"):
        return str(value).lower()
    if name == "partition.assignment.strategy":
        return _assignors([str(item) for item in value])  # type: ignore[attr-defined]
    if name == "bootstrap.servers":
        return ",".join(str(server) for server in value)  # type: ignore[attr-defined]
    return value


def _is_security_key(name: str) -> bool:
    return name == "security.protocol" or name.startswith(("sasl.", "ssl."))


def client_kwargs(kind: ClientKind, props: Mapping[str, str]) -> dict[str, Any]:
    """aiokafka keyword arguments for client `kind` from its Kafka properties (unprefixed names).

    Mapped keys become their aiokafka argument; security keys an SSL context and SASL credentials;
    the others have no effect. Raises ClientConfigError naming the first key kconnect refuses.
    Keys the task loops read themselves (``delivery.timeout.ms``, ``retries``) give no argument.
    """
    problems = {**client_problems(kind, props), **security_problems(props)}
    if problems:
        key, reason = next(iter(problems.items()))
        raise ClientConfigError(f"{kind.value} setting {key}: {reason}")
    kwargs: dict[str, Any] = {}
    for name, raw in props.items():
        prop = client_property(kind, name)
        if prop is None or prop.support is not MAPPED or _is_security_key(name):
            continue
        if prop.argument and prop.argument.isidentifier():
            kwargs[prop.argument] = _argument(name, raw, prop.spec_for(kind).type)
    try:
        kwargs.update(security_kwargs(props))
    except ValueError as bad:
        raise ClientConfigError(f"{kind.value} setting {bad}") from bad
    return kwargs


def _prefixed(props: Mapping[str, str], prefix: str) -> dict[str, str]:
    return {k[len(prefix) :]: v for k, v in props.items() if k.startswith(prefix)}


def internal_kwargs(worker: Mapping[str, str], kind: ClientKind = ClientKind.ADMIN) -> dict[str, Any]:
    """aiokafka arguments for one of the worker's own clients (internal topics, group membership,
    the offsets API): ``bootstrap.servers`` and the worker's top-level client keys."""
    kwargs = client_kwargs(kind, internal_client_props(worker))
    kwargs.setdefault("request_timeout_ms", JAVA_REQUEST_TIMEOUT_MS)
    return kwargs


def connection_kwargs(worker: Mapping[str, str]) -> dict[str, Any]:
    """The connection and security arguments of `internal_kwargs`, for a client that sets its own
    servers, id and request timeout (the group member's `AIOKafkaClient`)."""
    own = ("bootstrap_servers", "client_id", "request_timeout_ms")
    return {k: v for k, v in internal_kwargs(worker).items() if k not in own}


#: Kafka Connect's producers retry a retriable error without end (Worker.baseProducerConfigs).
CONNECT_DELIVERY_TIMEOUT_MS = 2**31 - 1
#: Nor do they give up waiting for a topic's metadata (``max.block.ms``, Worker.baseProducerConfigs).
CONNECT_MAX_BLOCK_MS = 2**63 - 1
#: The Java producer's default ``request.timeout.ms`` (aiokafka's own default is 40 s).
JAVA_REQUEST_TIMEOUT_MS = 30_000


def broker_unreachable(error: BaseException) -> bool:
    """Whether `error` means the broker did not answer in time or could not serve the request yet
    (aiokafka's retriable errors, and its client-side KafkaTimeoutError): trying again later may work."""
    return isinstance(error, KafkaTimeoutError) or (isinstance(error, KafkaError) and error.retriable)


def _producer_props(worker: Mapping[str, str], connector: Mapping[str, str]) -> dict[str, str]:
    return {**_prefixed(worker, "producer."), **_prefixed(connector, ClientKind.PRODUCER.override_prefix)}


def producer_kwargs(worker: Mapping[str, str], connector: Mapping[str, str]) -> dict[str, Any]:
    """AIOKafkaProducer keyword arguments: Connect's defaults, worker ``producer.*``, connector overrides."""
    props = {BOOTSTRAP_SERVERS_CONFIG: worker_text(worker, BOOTSTRAP_SERVERS_CONFIG)}
    props.update(_producer_props(worker, connector))
    log_override_keys(ClientKind.PRODUCER, connector)
    kwargs: dict[str, Any] = {
        "acks": "all",
        "linger_ms": 5,
        "max_batch_size": 256 * 1024,
        "request_timeout_ms": JAVA_REQUEST_TIMEOUT_MS,
    }
    kwargs.update(client_kwargs(ClientKind.PRODUCER, props))
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
    retries: int = 2**31 - 1
    max_block_ms: int = CONNECT_MAX_BLOCK_MS
    """How long sending a record waits for its topic's metadata before the send fails."""

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
        retries=number("retries", 2**31 - 1, 0),
        max_block_ms=number("max.block.ms", CONNECT_MAX_BLOCK_MS, 0),
    )
    if policy.delivery_timeout_ms < linger + request_timeout:
        raise ValueError(
            "producer setting delivery.timeout.ms should be equal to or larger than linger.ms + "
            f"request.timeout.ms ({policy.delivery_timeout_ms} < {linger} + {request_timeout})"
        )
    return policy


def sink_group_id(worker: Mapping[str, str], connector_name: str, connector: Mapping[str, str]) -> str:
    """The consumer group a sink connector's tasks join, picked as Kafka's ``Worker.baseConsumerConfigs``
    picks it: ``connect-<name>`` (``SinkUtils.consumerGroupId``), unless the worker's
    ``consumer.group.id`` or the connector's ``consumer.override.group.id`` names another.

    The sink loop joins it; the offsets API (KIP-875) reads, alters and deletes it.
    """
    props = {"group.id": f"connect-{connector_name}"}
    props.update(_prefixed(worker, "consumer."))
    props.update(_prefixed(connector, ClientKind.CONSUMER.override_prefix))
    return props["group.id"]


def consumer_kwargs(worker: Mapping[str, str], connector: Mapping[str, str], group_id: str) -> dict[str, Any]:
    """AIOKafkaConsumer keyword arguments for a sink task in consumer group `group_id` (Connect's
    ``connect-<name>``; the worker's ``consumer.group.id`` or the connector's override wins, as in Kafka)."""
    props = {BOOTSTRAP_SERVERS_CONFIG: worker_text(worker, BOOTSTRAP_SERVERS_CONFIG), "group.id": group_id}
    props.update(_prefixed(worker, "consumer."))
    props.update(_prefixed(connector, ClientKind.CONSUMER.override_prefix))
    log_override_keys(ClientKind.CONSUMER, connector)
    kwargs: dict[str, Any] = {
        "auto_offset_reset": "earliest",
        "max_poll_records": 4096,
        # A sink may subscribe before its topic exists; find it within seconds, not aiokafka's 5 minutes.
        "metadata_max_age_ms": 3000,
    }
    kwargs.update(client_kwargs(ClientKind.CONSUMER, props))
    kwargs["enable_auto_commit"] = False
    return kwargs


def admin_kwargs(worker: Mapping[str, str], connector: Mapping[str, str]) -> dict[str, Any]:
    """AIOKafkaAdminClient keyword arguments for a connector's admin client (Kafka's `Worker.adminConfigs`).

    The worker's own client keys (``bootstrap.servers``, ``security.protocol``...), then its
    ``admin.*`` keys, then the connector's ``admin.override.*`` keys.
    """
    props = internal_client_props(worker)
    props.update(worker_admin_props(worker))
    props.update(_prefixed(connector, ClientKind.ADMIN.override_prefix))
    log_override_keys(ClientKind.ADMIN, connector)
    kwargs: dict[str, Any] = {"request_timeout_ms": JAVA_REQUEST_TIMEOUT_MS}
    kwargs.update(client_kwargs(ClientKind.ADMIN, props))
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


class TransactionalProducerClient(ProducerClient, Protocol):
    """A producer with a ``transactional.id`` (aiokafka's `AIOKafkaProducer` satisfies it).

    Its `start` initialises the transactions (InitProducerId), which fences every earlier producer
    of the same id and aborts the transaction such a producer left open.
    """

    async def begin_transaction(self) -> None:
        """Open a transaction; every batch and record handed over until it ends belongs to it."""
        ...

    async def commit_transaction(self) -> None:
        """Send what is pending, then commit; raises if the transaction cannot commit (e.g. fenced)."""
        ...

    async def abort_transaction(self) -> None:
        """Abort: nothing of the transaction becomes visible to ``read_committed`` consumers."""
        ...

    async def send(self, topic: str, value: bytes | None = None, key: bytes | None = None) -> Any:
        """Hand one record over (partitioned by its key as Java does); returns a future of its metadata."""
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
        pattern: str | re.Pattern[str] | None = None,
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

    async def position(self, partition: KafkaTopicPartition) -> int:
        """The offset of the next record of an assigned `partition` (its committed offset, else reset)."""
        ...

    async def commit(self, offsets: Any = None) -> None:
        """Commit these offsets to the group (raises CommitFailedError after a rebalance)."""
        ...


class TopicTrackingProducer(AIOKafkaProducer):  # type: ignore[misc]
    """aiokafka's producer, telling its client of every topic it writes to.

    aiokafka 0.14's client fetches metadata of every topic until it is told of one it did not know
    (``add_topic``), and from then on only of the topics it was told of: a topic it already knew,
    written to before, then drops out of its metadata, and batches for it wait for a leader
    forever (a transaction then never commits). Telling it of each topic at first use keeps every
    topic written to in its metadata.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._tracked: set[str] = set()

    def _track(self, topic: str) -> None:
        if topic not in self._tracked:
            self._tracked.add(topic)
            self.client.add_topic(topic)

    async def partitions_for(self, topic: str) -> Any:
        """The topic's partitions (the topic is tracked from now on)."""
        self._track(topic)
        return await super().partitions_for(topic)

    async def send(self, topic: str, *args: Any, **kwargs: Any) -> Any:
        """aiokafka's ``send`` (the topic is tracked from now on)."""
        self._track(topic)
        return await super().send(topic, *args, **kwargs)

    async def send_batch(self, batch: Any, topic: str, *, partition: int) -> Any:
        """aiokafka's ``send_batch`` (the topic is tracked from now on)."""
        self._track(topic)
        return await super().send_batch(batch, topic, partition=partition)


def create_producer(
    worker: Mapping[str, str], connector: Mapping[str, str], transactional_id: str | None = None
) -> ProducerClient:
    """A real aiokafka producer configured from the worker and connector properties.

    Its batches are retried as `delivery_policy` says. aiokafka has no delivery timeout of its own: it
    gives up on a batch ``request_timeout_ms`` after the batch was queued, so a broker unreachable
    for longer than one request would fail the task. Its batch time-to-live is set to the delivery
    timeout instead; a unit test checks the attribute still exists in the installed aiokafka.

    With `transactional_id` the producer is transactional and idempotent (Kafka's
    ``Worker.exactlyOnceSourceTaskProducerConfigs``: the id wins over any configured one), and
    satisfies `TransactionalProducerClient`.
    """
    kwargs = producer_kwargs(worker, connector)
    if transactional_id is not None:
        kwargs.update(transactional_id=transactional_id, enable_idempotence=True, acks="all")
    producer = TopicTrackingProducer(**kwargs)
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
