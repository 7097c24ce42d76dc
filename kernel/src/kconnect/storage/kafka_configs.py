"""Connector configs, target states, task configs and restart requests in the config topic.

`KafkaConfigBackingStore` is the Kafka twin of `FileConfigBackingStore` for distributed workers
(Kafka's KafkaConfigBackingStore): every worker reads the one-partition, compacted
``config.storage.topic`` (records in `config_records`, folded by `config_topic_state`) and sees
every other worker's writes. Each write returns after the broker acknowledged it and this worker
read the topic back to the end, so `snapshot()` shows it. After `start`, every change read from the
topic, whoever wrote it, is also told to the update listener as a `ConfigChange` (records read
during `start` are not: the first snapshot holds them; restart requests and cluster-wide logger
levels older than the start are dropped, as in Kafka).

Kafka expects one writer of connector and task configs at a time (the leader); target states,
restart requests, logger levels and the session key may be written by any worker.

A write the broker refuses or does not acknowledge raises a StoreError with Kafka's text for it
("Error writing connector configuration to Kafka", ...) and then the reason (the topic and the
broker's error), which REST answers as a 500; Java's answer carries the text alone and logs the
reason. The error keeps its class, so a write the broker did not answer stays retriable. This
worker's snapshot changes only from what it reads back, and a refused write changes nothing
anywhere. Every write first reads the topic to the end, so a broker that does not answer is never
sent a write it could take after the caller was told it failed; only a broker that stops answering
between that read and its acknowledgement may still take a write reported as failed (as Kafka's
may), and then every worker applies it.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any

from kconnect.kafka.offset_records import RecordFormatError
from kconnect.model import ConnectorTaskId, RestartRequest, SessionKey, TargetState
from kconnect.storage.base import ClusterConfigState, StoreError
from kconnect.storage.config_changes import ConfigChange
from kconnect.storage.config_records import (
    commit_key,
    commit_value,
    config_value,
    connector_key,
    logger_level_key,
    logger_level_value,
    parse_config_record,
    restart_key,
    restart_value,
    session_key_value,
    target_state_key,
    target_state_value,
    task_count_key,
    task_count_value,
    task_key,
)
from kconnect.storage.config_topic_state import ConfigTopicState
from kconnect.storage.kafka_store import KafkaBackedStore
from kconnect.worker_config import InternalTopicConfig

log = logging.getLogger(__name__)

ConfigUpdateListener = Callable[[ConfigChange], None]
"""Called on the event loop, from the topic's reader, for each change read after `start`; must not block."""


class KafkaConfigBackingStore(KafkaBackedStore):
    """A ConfigBackingStore on the config topic, shared by every worker of the cluster."""

    def __init__(self, worker_props: Mapping[str, str], topic: InternalTopicConfig) -> None:
        super().__init__(
            worker_props, topic, "connector configurations", "connect-configs", single_partition=True
        )
        self._state = ConfigTopicState()
        self._snapshot: ClusterConfigState | None = None
        self._listener: ConfigUpdateListener | None = None
        self._started = False

    def set_update_listener(self, listener: ConfigUpdateListener) -> None:
        """Subscribe to changes read after `start` (the distributed herder calls this before `start`)."""
        self._listener = listener

    async def start(self) -> None:
        """Create or check the topic (InternalTopicError when unfit), then read it to the end."""
        await super().start()
        self._started = True
        log.info("Read config topic %s to offset %d", self.topic, self._state.offset)

    async def stop(self) -> None:
        """Stop reading and close the clients."""
        self._started = False
        await super().stop()

    def snapshot(self) -> ClusterConfigState:
        """The configs as read so far, as an immutable value."""
        if self._snapshot is None:
            self._snapshot = self._state.snapshot()
        return self._snapshot

    @property
    def session_key(self) -> SessionKey | None:
        """The newest session key read from the topic, if any."""
        return self._state.session_key

    async def put_connector_config(
        self, connector: str, config: Mapping[str, str], target: TargetState | None = None
    ) -> None:
        """Write the connector's config (after its target state when given), then read back."""
        records: list[tuple[bytes | str, bytes | None]] = []
        if target is not None:
            records.append((target_state_key(connector), target_state_value(target)))
        records.append((connector_key(connector), config_value(config)))
        await self._write("Error writing connector configuration to Kafka", records)

    async def remove_connector_config(self, connector: str) -> None:
        """Tombstone the connector's config and target state; its task configs are forgotten on read."""
        records = [(connector_key(connector), None), (target_state_key(connector), None)]
        await self._write("Error removing connector configuration from Kafka", records)

    async def put_target_state(self, connector: str, target: TargetState) -> None:
        """Write the connector's target state, then read back."""
        records = [(target_state_key(connector), target_state_value(target))]
        await self._write("Error writing target state to Kafka", records)

    async def put_task_configs(self, connector: str, configs: Sequence[Mapping[str, str]]) -> None:
        """Write every task config, then the commit that makes them current (Kafka's order).

        Steps: read to the end; write ``task-<name>-<n>`` for each task; read to the end (so every
        task config is stored before the commit); write ``commit-<name>``; read to the end. An
        empty list commits zero tasks. Task configs written without their commit are never current
        (Kafka's readers ignore them), so a write that fails half-way changes nothing.
        """
        async with _writing("Error writing task configurations to Kafka"):
            await self._log.read_to_end()
            if configs:
                await self._log.send_all(
                    [
                        (task_key(ConnectorTaskId(connector, n)), config_value(c))
                        for n, c in enumerate(configs)
                    ]
                )
                await self._log.read_to_end()
            await self._log.send(commit_key(connector), commit_value(len(configs)))
            await self._log.read_to_end()

    async def put_task_count_record(self, connector: str, tasks: int) -> None:
        """Write ``tasks-fencing-<name>`` (KIP-618): the leader fenced the generation before this
        one of `tasks` tasks (Kafka's putTaskCountRecord), then read back."""
        records = [(task_count_key(connector), task_count_value(tasks))]
        await self._write("Error writing task count record to Kafka", records)

    async def put_restart_request(self, request: RestartRequest) -> None:
        """Write a KIP-745 restart request; every worker's listener hears it when read."""
        records = [(restart_key(request.connector), restart_value(request))]
        await self._write(f"Error writing {_java_text(request)} to Kafka", records, read_back=False)

    async def put_logger_level(self, namespace: str, level: str) -> None:
        """Write a cluster-wide logger level (KIP-976), then read back (this worker hears it too)."""
        records = [(logger_level_key(namespace), logger_level_value(level))]
        await self._write("Error writing logger level to Kafka", records)

    async def put_session_key(self, session_key: SessionKey) -> None:
        """Write a new session key (the leader does, for request signing), then read back."""
        await self._write(
            "Error writing session key to Kafka", [("session-key", session_key_value(session_key))]
        )

    async def _write(
        self, kafka_text: str, records: Sequence[tuple[bytes | str, bytes | None]], *, read_back: bool = True
    ) -> None:
        """Write `records` as one batch; a failure raises with `kafka_text` and the reason.

        Steps: read the topic to the end first, so a broker that does not answer now is never sent
        a write it might take after the caller was told it failed (and this worker's view is
        current); send and wait for the acknowledgement; read back, unless not `read_back`."""
        async with _writing(kafka_text):
            await self._log.read_to_end()
            await self._log.send_all(list(records))
            if read_back:
                await self._log.read_to_end()

    def _on_record(self, record: Any) -> None:
        key = record.key.decode("utf-8", "replace") if record.key is not None else ""
        try:
            parsed = parse_config_record(key, record.value)
        except RecordFormatError as exc:
            log.error("Skipping record at offset %d of config topic %s: %s", record.offset, self.topic, exc)
            self._state.offset = record.offset + 1
            return
        updates = self._state.apply(parsed, record.offset)
        self._snapshot = None
        if not self._started or self._listener is None:
            return
        for update in updates:
            self._listener(update)


@contextlib.asynccontextmanager
async def _writing(kafka_text: str) -> AsyncIterator[None]:
    """Re-raise a failed write's StoreError as Kafka's text for the write, the reason after it,
    keeping its class (a StoreUnavailableError stays retriable)."""
    try:
        yield
    except StoreError as exc:
        raise type(exc)(f"{kafka_text}: {exc}") from exc


def _java_text(request: RestartRequest) -> str:
    """The request as Java's ``RestartRequest.toString`` writes it (Kafka's error text includes it)."""
    only_failed, include_tasks = (str(flag).lower() for flag in (request.only_failed, request.include_tasks))
    return (
        f"RestartRequest{{connectorName='{request.connector}', "
        f"onlyFailed={only_failed}, includeTasks={include_tasks}}}"
    )
