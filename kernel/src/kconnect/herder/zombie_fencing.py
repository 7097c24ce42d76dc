"""Zombie fencing (KIP-618): the leader fences a source connector's previous task generation.

Under ``exactly.once.source.support=enabled`` a source task writes in transactions under the
``transactional.id`` ``<group.id>-<connector>-<task>``. A new task fences the previous producer of
its own id when it starts, but a new generation of task configs may give one task's work to
another id, or drop ids (fewer tasks): a task of the old generation still running somewhere (a
frozen or partitioned worker) could then keep writing. So before the leader writes a source
connector's new task configs, it fences out the producers of every id of the generation in force
(Kafka's ``DistributedHerder`` zombie fencing, ``Admin.fenceProducers``); the new tasks start only
once the new configs are committed, after the fencing. As in Kafka, a generation of one task
followed by one task needs no round: the new task fences its only predecessor itself.

`LeaderRoutedConfigStore` calls `before_task_configs` on the leader, right before it writes.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from kconnect.config.connector_keys import CONNECTOR_CLASS_CONFIG
from kconnect.config.worker_keys import ExactlyOnceSourceSupport
from kconnect.kafka.fencing import fence_producers
from kconnect.plugin_host import PluginHost
from kconnect.plugin_registry import PluginType
from kconnect.runtime.exactly_once import task_transactional_id

log = logging.getLogger(__name__)


class ZombieFencing:
    """Decides which producers to fence before a connector's new task configs, and fences them."""

    def __init__(self, worker_props: Mapping[str, str], plugins: PluginHost) -> None:
        """Fence with the worker's own client settings; `plugins` tells source connectors apart."""
        self._worker = worker_props
        self._plugins = plugins
        self._group_id = worker_props.get("group.id", "")
        self._enabled = ExactlyOnceSourceSupport.from_props(worker_props).enabled

    def transactional_ids(
        self, connector: str, config: Mapping[str, str] | None, previous: int, new: int
    ) -> list[str]:
        """The ids to fence before `connector` goes from `previous` tasks to `new` ones (none for a
        sink, without exactly-once support, or from one task to one)."""
        if not self._enabled or config is None or not self._is_source(config) or previous == 0:
            return []
        if previous == 1 and new == 1:
            return []
        return [task_transactional_id(self._group_id, connector, task) for task in range(previous)]

    def _is_source(self, config: Mapping[str, str]) -> bool:
        try:
            return self._plugins.connector(config.get(CONNECTOR_CLASS_CONFIG, "")).type is PluginType.SOURCE
        except Exception:  # an unknown class has no tasks to fence
            return False

    async def before_task_configs(
        self, connector: str, config: Mapping[str, str] | None, previous: int, new: int
    ) -> bool:
        """Fence the previous generation's producers (see `transactional_ids`); raises if it fails,
        and the new task configs are then not written. True for a source connector under
        exactly-once support: its new generation's task count record is to be written."""
        ids = self.transactional_ids(connector, config, previous, new)
        if ids:
            log.info(
                "Fencing out %d task producers of source connector %s before new task configs",
                previous,
                connector,
            )
            await fence_producers(self._worker, ids)
        return self._enabled and config is not None and self._is_source(config)
