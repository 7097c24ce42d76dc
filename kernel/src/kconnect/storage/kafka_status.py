"""Connector and task statuses and active topics in the status topic (Kafka's KafkaStatusBackingStore).

Every worker writes the statuses of the instances it runs and reads everyone's, so REST on any
worker reports the whole cluster. Writes are fire-and-forget, as in Kafka: `put_*` updates this
worker's view at once and sends the record in the background (a failed send is logged). Records
read from the topic, in log order, then set every worker's view; a status of a deleted
connector or task is a tombstone. A task's UNASSIGNED from another worker, of a generation no newer
than the RUNNING it would replace, is ignored (Kafka's rule against a stale worker's late write
during rebalances; Kafka applies it to the running worker's own UNASSIGNED too, kconnect does not,
so a worker's own status change always shows).

Each status carries the group generation of the worker that wrote it, from the `generation`
callable (the distributed herder passes its membership's current generation). A schedule of
automatic restarts rides in its instance's status record (`record_formats.AUTO_RESTARTS_FIELD`):
every status write keeps the instance's last schedule, so the next worker to run it reads it.
When this worker reads back one of its own status writes while a newer one of the same key is
still unread, the view keeps the newer one.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from kconnect.kafka.offset_records import RecordFormatError
from kconnect.model import AutoRestarts, ConnectorTaskId, State, StateInfo, TaskStateInfo
from kconnect.storage.kafka_store import KafkaBackedStore
from kconnect.storage.record_formats import (
    CONNECTOR_STATUS_PREFIX,
    TASK_STATUS_PREFIX,
    TOPIC_STATUS_PREFIX,
    StatusRecord,
    connector_status_key,
    parse_status_value,
    parse_task_id,
    parse_topic_status_key,
    state_info,
    status_value,
    task_state_info,
    task_status_key,
    topic_status_key,
    topic_status_value,
)
from kconnect.worker_config import InternalTopicConfig

log = logging.getLogger(__name__)


class KafkaStatusBackingStore(KafkaBackedStore):
    """A StatusBackingStore on the status topic, shared by every worker of the cluster."""

    def __init__(
        self,
        worker_props: Mapping[str, str],
        topic: InternalTopicConfig,
        *,
        generation: Callable[[], int] = lambda: 0,
    ) -> None:
        """`generation`: the group generation each status written now carries."""
        super().__init__(worker_props, topic, "connector and task statuses", "connect-statuses")
        self._generation = generation
        self._connectors: dict[str, StatusRecord] = {}
        self._tasks: dict[ConnectorTaskId, StatusRecord] = {}
        self._topics: dict[str, set[str]] = {}
        # Status values this worker sent and has not read back yet, per key, oldest first.
        self._unread: dict[str, list[bytes | None]] = {}

    async def flush(self) -> None:
        """Wait until this worker's status writes so far were acknowledged (or failed and were logged)."""
        await self._log.flush()

    def _record(self, status: StateInfo, before: StatusRecord | None) -> StatusRecord:
        restarts = before.auto_restarts if before is not None else None
        generation = self._generation()
        return StatusRecord(
            status.state, status.worker_id, generation, status.trace, status.version, restarts
        )

    def put_connector(self, connector: str, status: StateInfo) -> None:
        """Record the connector's observed state (DESTROYED is a tombstone)."""
        if status.state is State.DESTROYED:
            self._connectors.pop(connector, None)
            self._send_status(connector_status_key(connector), None)
            return
        record = self._record(status, self._connectors.get(connector))
        self._connectors[connector] = record
        self._send_status(connector_status_key(connector), status_value(record))

    def put_task(self, task: ConnectorTaskId, status: TaskStateInfo) -> None:
        """Record one task's observed state (DESTROYED is a tombstone)."""
        if status.state is State.DESTROYED:
            self.remove_task(task)
            return
        record = self._record(status, self._tasks.get(task))
        self._tasks[task] = record
        self._send_status(task_status_key(task), status_value(record))

    def remove_task(self, task: ConnectorTaskId) -> None:
        """Tombstone one task's status."""
        self._tasks.pop(task, None)
        self._send_status(task_status_key(task), None)

    def get_connector(self, connector: str) -> StateInfo | None:
        """The connector's last known state, from any worker."""
        record = self._connectors.get(connector)
        return None if record is None else state_info(record)

    def get_task(self, task: ConnectorTaskId) -> TaskStateInfo | None:
        """One task's last known state, from any worker."""
        record = self._tasks.get(task)
        return None if record is None else task_state_info(task, record)

    def generation_of(self, task: ConnectorTaskId) -> int | None:
        """The generation the task's last known status was written in."""
        record = self._tasks.get(task)
        return None if record is None else record.generation

    def put_auto_restarts(self, instance: str | ConnectorTaskId, restarts: AutoRestarts) -> None:
        """Write the instance's status again with `restarts` (nothing while it has no status)."""
        if isinstance(instance, str):
            before = self._connectors.get(instance)
            if before is not None:
                self._connectors[instance] = record = replace(before, auto_restarts=restarts)
                self._send_status(connector_status_key(instance), status_value(record))
            return
        current = self._tasks.get(instance)
        if current is not None:
            self._tasks[instance] = record = replace(current, auto_restarts=restarts)
            self._send_status(task_status_key(instance), status_value(record))

    def get_auto_restarts(self, instance: str | ConnectorTaskId) -> AutoRestarts | None:
        """The schedule of automatic restarts the instance's last status carried, from any worker."""
        record = self._connectors.get(instance) if isinstance(instance, str) else self._tasks.get(instance)
        return None if record is None else record.auto_restarts

    def remove(self, connector: str) -> None:
        """Tombstone the connector's status, its tasks' statuses and its active topics."""
        self.put_connector(connector, StateInfo(State.DESTROYED, ""))
        for task in [t for t in self._tasks if t.connector == connector]:
            self.remove_task(task)
        self.reset_topics(connector)

    def put_topic(self, connector: str, topic: str) -> None:
        """Record that the connector used `topic` (once: a known topic is not written again)."""
        if topic in self._topics.get(connector, ()):
            return
        self._topics.setdefault(connector, set()).add(topic)
        # Kafka records the discovering task's number; kconnect's callers do not know it: task 0.
        value = topic_status_value(connector, topic, 0, int(time.time() * 1000))
        self._log.send_nowait(topic_status_key(connector, topic), value)

    def topics(self, connector: str) -> list[str]:
        """Topics the connector used since its topics were last reset, sorted."""
        return sorted(self._topics.get(connector, ()))

    def reset_topics(self, connector: str) -> None:
        """Tombstone every active topic of the connector."""
        for topic in self._topics.pop(connector, set()):
            self._log.send_nowait(topic_status_key(connector, topic), None)

    def _send_status(self, key: str, value: bytes | None) -> None:
        """Send a connector or task status this worker's view already holds."""
        self._unread.setdefault(key, []).append(value)
        self._log.send_nowait(key, value)

    def _own_older_write(self, key: str, value: bytes | None) -> bool:
        """Whether a record read is this worker's own write with a newer own write still unread: the
        view already holds the newer one (a status and then its restart schedule are written within
        milliseconds), so the older must not replace it for a moment."""
        unread = self._unread.get(key)
        if not unread or unread[0] != value:
            return False
        unread.pop(0)
        if unread:
            return True
        del self._unread[key]
        return False

    def _on_record(self, record: Any) -> None:
        key = record.key.decode("utf-8", "replace") if record.key is not None else ""
        if self._own_older_write(key, record.value):
            return
        try:
            self._apply(key, record.value)
        except RecordFormatError as exc:
            log.warning("Skipping record %r of status topic %s: %s", key, self.topic, exc)

    def _apply(self, key: str, value: bytes | None) -> None:
        if key.startswith(CONNECTOR_STATUS_PREFIX):
            connector = key[len(CONNECTOR_STATUS_PREFIX) :]
            if not connector:
                raise RecordFormatError("empty connector name")
            if value is None:
                self._connectors.pop(connector, None)
                self._tasks = {t: s for t, s in self._tasks.items() if t.connector != connector}
            else:
                self._connectors[connector] = parse_status_value(value)
        elif key.startswith(TASK_STATUS_PREFIX):
            task = parse_task_id(key, TASK_STATUS_PREFIX)
            if value is None:
                self._tasks.pop(task, None)
                return
            status, current = parse_status_value(value), self._tasks.get(task)
            if (
                status.state is State.UNASSIGNED
                and current is not None
                and current.state is State.RUNNING
                and current.generation >= status.generation
                and current.worker_id != status.worker_id
            ):
                return  # another worker's stale UNASSIGNED from a rebalance must not hide a running task
            self._tasks[task] = status
        elif key.startswith(TOPIC_STATUS_PREFIX):
            connector, topic = parse_topic_status_key(key)
            if value is None:
                self._topics.get(connector, set()).discard(topic)
            else:
                self._topics.setdefault(connector, set()).add(topic)
        else:
            raise RecordFormatError("unknown status key")
