"""A connector's offsets (KIP-875): read in any state, altered or reset only while STOPPED.

Source offsets live in the worker's OffsetBackingStore under the connector's name; sink offsets
are the committed offsets of the consumer group the sink's tasks join (``connect-<name>``, or
what ``consumer.override.group.id`` names: `kconnect.kafka.clients.sink_group_id`),
reached through a `KafkaAdmin` (aiokafka in production, a fake in tests).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient
from aiokafka.errors import (
    CommitFailedError,
    GroupCoordinatorNotAvailableError,
    GroupLoadInProgressError,
    NotCoordinatorForGroupError,
    for_code,
)
from aiokafka.protocol.admin import DeleteGroupsRequest

from kconnect.errors import BadRequestError, ConnectError, RequestTimeoutError
from kconnect.herder.connectors import in_thread
from kconnect.herder.owner import REQUEST_TIMEOUT_S, TIMEOUT_MESSAGE
from kconnect.kafka.clients import admin_kwargs, consumer_kwargs, sink_group_id
from kconnect.model import ConnectorOffset, ConnectorOffsets
from kconnect.storage.base import OffsetBackingStore, partition_key
from kconnect.worker_config import WorkerConfig

log = logging.getLogger(__name__)

KAFKA_TOPIC_KEY = "kafka_topic"
KAFKA_PARTITION_KEY = "kafka_partition"
KAFKA_OFFSET_KEY = "kafka_offset"

TopicPartitionKey = tuple[str, int]
#: How long a sink offsets call waits for the group's coordinator (a new cluster has none until its
#: ``__consumer_offsets`` topic exists); Java's admin client retries such errors until its timeout too.
COORDINATOR_WAIT_S = 30.0
#: How long a sink offsets write waits for the group to empty: a STOPPED connector's tasks may
#: still be leaving it (each within ``task.shutdown.graceful.timeout.ms``, 5 s by default), and
#: the broker refuses an outside commit or delete until they have. Kafka fails at once instead.
GROUP_EMPTY_WAIT_S = 15.0
#: DeleteGroups' error code for a group that still has members.
_GROUP_NOT_EMPTY = 68
_T = TypeVar("_T")
#: The consumer group of a sink connector, from its name and stored config.
SinkGroupOf = Callable[[str, Mapping[str, str]], str]


class Partition(dict[str, Any]):
    """A source partition that can key a dict (what `Connector.alter_offsets` receives for sources)."""

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(partition_key(self))


def modified_message(connector_answered: bool, reset: bool) -> str:
    """Kafka's success text for an alter or reset (Worker.completeModifyOffsetsCallback)."""
    kind = "reset" if reset else "altered"
    if connector_answered:
        return f"The offsets for this connector have been {kind} successfully"
    return (
        f"The Connect framework-managed offsets for this connector have been {kind} successfully. "
        "However, if this connector manages offsets externally, they will need to be manually "
        f"{kind} in the system that the connector uses."
    )


def not_stopped_message(connector: str) -> str:
    """Kafka's 400 text when offsets are modified on a connector that is not STOPPED with no tasks."""
    return (
        "Connectors must be in the STOPPED state before their offsets can be modified. This can be done for "
        f"the specified connector by issuing a 'PUT' request to the '/connectors/{connector}/stop' endpoint"
    )


class KafkaAdmin(Protocol):
    """The broker operations the herder needs: the cluster id and sink connectors' group offsets."""

    async def cluster_id(self) -> str:
        """The Kafka cluster id."""
        ...

    async def list_offsets(self, group: str) -> dict[TopicPartitionKey, int]:
        """Committed offsets of the group (empty when the group does not exist)."""
        ...

    async def alter_offsets(self, group: str, offsets: Mapping[TopicPartitionKey, int]) -> None:
        """Commit these offsets for the (empty) group."""
        ...

    async def delete_group(self, group: str) -> None:
        """Delete the (empty) group and all its offsets; a missing group is not an error."""
        ...


def parse_sink_offsets(offsets: Sequence[ConnectorOffset]) -> dict[TopicPartitionKey, int | None]:
    """Kafka's SinkUtils.parseSinkConnectorOffsets, with its error texts (BadRequestError)."""
    parsed: dict[TopicPartitionKey, int | None] = {}
    for item in offsets:
        partition = item.partition
        if partition is None:
            raise BadRequestError("The partition for a sink connector offset cannot be null or missing")
        validate_format(partition)
        validate_format(item.offset)
        if KAFKA_TOPIC_KEY not in partition or KAFKA_PARTITION_KEY not in partition:
            raise BadRequestError(
                "The partition for a sink connector offset must contain the keys "
                f"'{KAFKA_TOPIC_KEY}' and '{KAFKA_PARTITION_KEY}'"
            )
        if partition[KAFKA_TOPIC_KEY] is None:
            raise BadRequestError("Kafka topic names must be valid strings and may not be null")
        if partition[KAFKA_PARTITION_KEY] is None:
            raise BadRequestError("Kafka partitions must be valid numbers and may not be null")
        raw_partition = partition[KAFKA_PARTITION_KEY]
        number = _java_int(raw_partition)
        if number is None:
            raise BadRequestError(
                "Failed to parse the following Kafka partition value in the provided offsets: "
                f"'{raw_partition}'. Partition values for sink connectors need to be integers."
            )
        key = (str(partition[KAFKA_TOPIC_KEY]), number)
        if item.offset is None:
            parsed[key] = None
            continue
        if KAFKA_OFFSET_KEY not in item.offset:
            raise BadRequestError(
                "The offset for a sink connector should either be null or contain the key "
                f"'{KAFKA_OFFSET_KEY}'"
            )
        raw_offset = item.offset[KAFKA_OFFSET_KEY]
        offset = _java_int(raw_offset)
        if offset is None:
            raise BadRequestError(
                f"Failed to parse the following Kafka offset value in the provided offsets: '{raw_offset}'. "
                "Offset values for sink connectors need to be integers."
            )
        parsed[key] = offset
    return parsed


def _java_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    try:
        return int(str(value).strip()) if not isinstance(value, float) else None
    except ValueError:
        return None


def validate_format(values: Mapping[str, Any] | None) -> None:
    """Kafka's OffsetUtils.validateFormat: a partition's or offset's values must be primitives.

    BadRequestError with Kafka's text for an object or array value (Kafka answers 500 with it); it
    runs before anything walks the values, so a value nested thousands deep costs one look.
    """
    for key, value in (values or {}).items():
        if isinstance(value, Mapping | list):
            kind = "MAP" if isinstance(value, Mapping) else "ARRAY"
            raise BadRequestError(
                f"Offsets may only contain primitive types as values, but field {key} contains {kind}"
            )


def parse_source_offsets(offsets: Sequence[ConnectorOffset]) -> dict[Partition, dict[str, Any] | None]:
    """Source offsets of an alter request, normalised through JSON; BadRequestError for a null partition
    or a value that is not a primitive (`validate_format`)."""
    parsed: dict[Partition, dict[str, Any] | None] = {}
    for item in offsets:
        if item.partition is None:
            raise BadRequestError("Source partitions may not be null")
        validate_format(item.partition)
        validate_format(item.offset)
        partition = Partition(json.loads(json.dumps(item.partition)))
        parsed[partition] = None if item.offset is None else json.loads(json.dumps(item.offset))
    return parsed


class TransactionalOffsetWriter(Protocol):
    """Writes a source connector's offsets in one Kafka transaction (exactly-once source support)."""

    async def set_in_transaction(
        self,
        connector: str,
        config: Mapping[str, str],
        offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]],
        transactional_id: str,
    ) -> None:
        """Write them under `transactional_id`, whose earlier producer the write fences out."""
        ...


class ConnectorOffsetsStore:
    """Reads and modifies one connector's offsets, source or sink; the herder checks STOPPED first.

    `group_of` names a sink's consumer group from its name and stored config, so every call acts on
    the group the sink's tasks really join (the herder passes one that knows the worker's config).
    `admin` gives the broker client for a connector's config: Kafka's ``Worker.adminConfigs``, the
    worker's admin settings with the connector's ``admin.override.*`` on top. With `transactions`
    (a distributed worker with exactly-once source support) a source connector's altered or reset
    offsets are written in one transaction under `transactional_id(connector)`, as Kafka's are.
    """

    def __init__(
        self,
        offset_store: OffsetBackingStore,
        admin: Callable[[Mapping[str, str]], KafkaAdmin],
        group_of: SinkGroupOf = lambda name, config: sink_group_id({}, name, config),
        transactions: TransactionalOffsetWriter | None = None,
        transactional_id: Callable[[str], str] = lambda connector: connector,
    ) -> None:
        self._offsets = offset_store
        self._admin = admin
        self._group_of = group_of
        self._transactions = transactions
        self._transactional_id = transactional_id

    async def read(
        self, connector: str, sink: bool, config: Mapping[str, str] | None = None
    ) -> ConnectorOffsets:
        """The committed offsets, in Kafka's shape; a sink's `config` names its group."""
        if sink:
            committed = await self._admin(config or {}).list_offsets(self._group_of(connector, config or {}))
            return ConnectorOffsets(
                [
                    ConnectorOffset({KAFKA_TOPIC_KEY: t, KAFKA_PARTITION_KEY: p}, {KAFKA_OFFSET_KEY: o})
                    for (t, p), o in sorted(committed.items())
                ]
            )
        partitions = await self._offsets.partitions(connector)
        values = await self._offsets.get(connector, partitions)
        return ConnectorOffsets([ConnectorOffset(p, o) for p, o in zip(partitions, values, strict=True)])

    async def known(self, connector: str, sink: bool, config: Mapping[str, str]) -> dict[Any, Any]:
        """Every known partition mapped to None: what `alter_offsets` receives for a reset."""
        if sink:
            return dict.fromkeys(await self._admin(config).list_offsets(self._group_of(connector, config)))
        return {Partition(p): None for p in await self._offsets.partitions(connector)}

    async def write(
        self, connector: str, sink: bool, config: Mapping[str, str], offsets: Mapping[Any, Any]
    ) -> None:
        """Apply parsed offsets (None: remove that partition's offset)."""
        if not sink:
            await self._write_source(connector, config, list(offsets.items()))
            return
        group = self._group_of(connector, config)
        client = self._admin(config)
        to_commit = {tp: o for tp, o in offsets.items() if o is not None}
        to_delete = {tp for tp, o in offsets.items() if o is None}
        if to_delete:
            committed = await client.list_offsets(group)
            if not set(committed) <= to_delete | set(to_commit):
                raise BadRequestError(
                    "kconnect cannot remove the offsets of only some partitions of a sink connector; "
                    f"reset them all with 'DELETE /connectors/{connector}/offsets'"
                )
            await client.delete_group(group)
        if to_commit:
            await client.alter_offsets(group, to_commit)

    async def _write_source(
        self,
        connector: str,
        config: Mapping[str, str],
        offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]],
    ) -> None:
        if self._transactions is None:
            await self._offsets.set(connector, offsets)
        elif offsets:
            tid = self._transactional_id(connector)
            await self._transactions.set_in_transaction(connector, config, offsets, tid)

    async def alter(
        self,
        connector: str,
        config: Mapping[str, str],
        cls: Any,
        sink: bool,
        offsets: Sequence[ConnectorOffset],
    ) -> str:
        """Parse the request, let the connector accept it, write the offsets; Kafka's success message.

        The herder calls it from its owner task after checking the connector is STOPPED.
        """
        parsed: Mapping[Any, Any] = parse_sink_offsets(offsets) if sink else parse_source_offsets(offsets)
        answered = await _connector_accepts(connector, config, cls, parsed)
        await self.write(connector, sink, config, parsed)
        return modified_message(answered, reset=False)

    async def reset_all(self, connector: str, config: Mapping[str, str], cls: Any, sink: bool) -> str:
        """Let the connector accept a reset of every known partition, then remove every offset."""
        answered = await _connector_accepts(connector, config, cls, await self.known(connector, sink, config))
        await self.reset(connector, sink, config)
        return modified_message(answered, reset=True)

    async def reset(self, connector: str, sink: bool, config: Mapping[str, str]) -> None:
        """Remove every offset of the connector."""
        if sink:
            await self._admin(config).delete_group(self._group_of(connector, config))
        elif self._transactions is None:
            await self._offsets.remove(connector)
        else:
            partitions = await self._offsets.partitions(connector)
            await self._write_source(connector, config, [(p, None) for p in partitions])


async def _connector_accepts(
    connector: str, config: Mapping[str, str], cls: Any, offsets: Mapping[Any, Any]
) -> bool:
    """Ask a fresh instance (the connector is STOPPED, so none runs) whether it accepts the change.

    It runs on the herder's owner task, so a connector whose `alter_offsets` hangs gets
    `REQUEST_TIMEOUT_S` and then fails the request, instead of holding every other write. A
    ConnectError it raises refuses the request (BadRequestError, its text); anything else is a
    connector bug (ConnectError, 500).
    """

    def call() -> bool:
        return bool(cls().alter_offsets(dict(config), offsets))

    try:
        return await asyncio.wait_for(in_thread(f"kconnect-connector-{connector}", call), REQUEST_TIMEOUT_S)
    except asyncio.TimeoutError:
        raise RequestTimeoutError(TIMEOUT_MESSAGE) from None
    except BadRequestError:
        raise
    except ConnectError as exc:
        # The connector refused these offsets (its own checks, Kafka's contract for alterOffsets):
        # the request is at fault, not the worker. Kafka answers 500 here.
        raise BadRequestError(str(exc) or type(exc).__name__) from exc
    except Exception as exc:
        raise ConnectError(
            f"Failed to modify offsets for connector {connector}: its alter_offsets raised {exc!r}"
        ) from exc


class AiokafkaAdmin:
    """A KafkaAdmin on aiokafka's admin client and a manually assigned consumer.

    `connector` is the config of the connector whose offsets it serves (providers resolved), empty
    for the worker's own calls: its ``admin.override.*`` keys reach the admin client and its
    ``consumer.override.*`` keys the consumer that commits altered offsets, so a connector with
    credentials of its own is served with them.
    """

    def __init__(self, worker: WorkerConfig, connector: Mapping[str, str] | None = None) -> None:
        self._worker = worker
        self._connector: Mapping[str, str] = connector or {}

    def _admin_kwargs(self) -> dict[str, Any]:
        return admin_kwargs(self._worker.props, self._connector)

    async def cluster_id(self) -> str:
        """The cluster id from `describe_cluster`."""
        admin = AIOKafkaAdminClient(**self._admin_kwargs())
        await admin.start()
        try:
            cluster = await admin.describe_cluster()
        finally:
            await admin.close()
        return str(cluster["cluster_id"])

    async def list_offsets(self, group: str) -> dict[TopicPartitionKey, int]:
        """Committed offsets of the group, from `list_consumer_group_offsets`."""
        admin = AIOKafkaAdminClient(**self._admin_kwargs())
        await admin.start()
        try:
            committed = await _while_coordinator_unavailable(lambda: admin.list_consumer_group_offsets(group))
        finally:
            await admin.close()
        return {(tp.topic, tp.partition): meta.offset for tp, meta in committed.items() if meta.offset >= 0}

    async def alter_offsets(self, group: str, offsets: Mapping[TopicPartitionKey, int]) -> None:
        """Commit from a consumer that never joins the group (accepted once the group is empty)."""
        # The group named: the worker's consumer.group.id (which consumer_kwargs applies) must not replace it.
        kwargs = consumer_kwargs(self._worker.props, self._connector, group)
        consumer = AIOKafkaConsumer(**{**kwargs, "group_id": group})
        await consumer.start()
        try:
            partitions = {TopicPartition(t, p): o for (t, p), o in offsets.items()}
            consumer.assign(list(partitions))
            deadline = time.monotonic() + GROUP_EMPTY_WAIT_S
            while True:
                try:
                    await _while_coordinator_unavailable(lambda: consumer.commit(partitions))
                    return
                except CommitFailedError:
                    if time.monotonic() >= deadline:
                        raise ConnectError(_still_members(group, "alter")) from None
                    await asyncio.sleep(0.2)
        finally:
            await consumer.stop()

    async def delete_group(self, group: str) -> None:
        """Send DeleteGroups to the group's coordinator (aiokafka's admin has no wrapper for it),
        again while the group still has members, for `GROUP_EMPTY_WAIT_S`."""
        group_id_not_found = 69
        admin = AIOKafkaAdminClient(**self._admin_kwargs())
        await admin.start()
        try:
            coordinator = await _while_coordinator_unavailable(lambda: admin.find_coordinator(group))
            deadline = time.monotonic() + GROUP_EMPTY_WAIT_S
            while True:
                response = await admin._send_request(DeleteGroupsRequest([group]), coordinator)
                codes = {code for _name, code in response.results}
                if _GROUP_NOT_EMPTY not in codes or time.monotonic() >= deadline:
                    break
                await asyncio.sleep(0.2)
        finally:
            await admin.close()
        for code in codes:
            if code == _GROUP_NOT_EMPTY:
                raise ConnectError(_still_members(group, "reset"))
            if code and code != group_id_not_found:
                raise ConnectError(f"Failed to delete consumer group {group}: {for_code(code).__name__}")


def _still_members(group: str, verb: str) -> str:
    """The error for a sink group that kept members past `GROUP_EMPTY_WAIT_S` (Kafka's advice)."""
    return (
        f"Failed to {verb} the offsets of consumer group {group}: it still had members after "
        f"{GROUP_EMPTY_WAIT_S:g} s, either because the connector's tasks have not stopped completely "
        "or because it was resumed meanwhile. If the connector is STOPPED, retry the request; if it "
        "keeps failing, restart the workers to end the zombie sink tasks."
    )


async def _while_coordinator_unavailable(call: Callable[[], Awaitable[_T]]) -> _T:
    """`call()`, again while the group coordinator is not available or loading, for `COORDINATOR_WAIT_S`."""
    deadline = time.monotonic() + COORDINATOR_WAIT_S
    while True:
        try:
            return await call()
        except (GroupCoordinatorNotAvailableError, GroupLoadInProgressError, NotCoordinatorForGroupError):
            if time.monotonic() >= deadline:
                raise
            await asyncio.sleep(0.2)
