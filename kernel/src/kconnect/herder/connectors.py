"""Running connector instances: the adapter behind StartConnector, GenerateTaskConfigs and StopConnector.

A connector's methods are user code: each runs in a worker thread (`asyncio.to_thread`) so a slow
`start` cannot stall the event loop, and any exception becomes a ConnectorFailed event carrying
the traceback. The connector's context may be called from any thread; its calls are posted back
to the herder's loop as events.
"""

from __future__ import annotations

import asyncio
import logging
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from kconnect.herder import events as ev
from kconnect.plugin_host import PluginHost

log = logging.getLogger(__name__)

TASK_CLASS_CONFIG = "task.class"
TASKS_MAX_CONFIG = "tasks.max"


def _python_path(cls: Any) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _trace(exc: BaseException) -> str:
    return "".join(traceback.format_exception(exc))


class _Context:
    """The ConnectorContext of one connector instance; calls after the instance ended are dropped."""

    def __init__(self, name: str, generation: int, post: Callable[[ev.Event], None]) -> None:
        self._name = name
        self._generation = generation
        self._post = post
        self.closed = False

    def request_task_reconfiguration(self) -> None:
        """Ask the herder to call `task_configs` again."""
        if not self.closed:
            self._post(ev.ReconfigurationRequested(self._name))

    def raise_error(self, error: Exception) -> None:
        """Fail the connector with this error."""
        if not self.closed:
            self._post(ev.ConnectorFailed(self._name, self._generation, _trace(error)))


@dataclass
class _Running:
    instance: Any
    config: Mapping[str, str]
    context: _Context
    generation: int
    started: bool = False


class ConnectorInstances:
    """The worker's connector instances, one per running connector.

    `post` delivers an event to the herder's loop from any thread (the herder passes a
    ``loop.call_soon_threadsafe`` wrapper).
    """

    def __init__(self, plugins: PluginHost, post: Callable[[ev.Event], None]) -> None:
        self._plugins = plugins
        self._post = post
        self._running: dict[str, _Running] = {}

    def names(self) -> list[str]:
        """Names of connectors with a live instance."""
        return sorted(self._running)

    async def start(self, effect: ev.StartConnector) -> list[ev.Event]:
        """Instantiate, initialize and start the connector; report ConnectorStarted or ConnectorFailed."""
        await self.stop(ev.StopConnector(effect.name))
        context = _Context(effect.name, effect.generation, self._post)
        try:
            cls = self._plugins.connector(effect.config.get("connector.class", "")).cls
            instance = cls()
            instance.initialize(context)
        except Exception as exc:
            log.error("Failed to create connector %s", effect.name, exc_info=True)
            return [ev.ConnectorFailed(effect.name, effect.generation, _trace(exc))]
        running = _Running(instance, dict(effect.config), context, effect.generation)
        self._running[effect.name] = running
        try:
            await asyncio.to_thread(instance.start, running.config)
        except Exception as exc:
            log.error("Connector %s failed to start", effect.name, exc_info=True)
            return [ev.ConnectorFailed(effect.name, effect.generation, _trace(exc))]
        running.started = True
        log.info("Connector %s started", effect.name)
        return [ev.ConnectorStarted(effect.name, effect.generation)]

    async def task_configs(self, effect: ev.GenerateTaskConfigs) -> list[ev.Event]:
        """Ask the connector for up to ``tasks.max`` task configs, each with ``task.class`` added."""
        running = self._running.get(effect.name)
        if running is None or not running.started or running.generation != effect.generation:
            return []
        try:
            max_tasks = int(running.config.get(TASKS_MAX_CONFIG, "1"))
            task_class = _python_path(await asyncio.to_thread(running.instance.task_class))
            configs = await asyncio.to_thread(running.instance.task_configs, max_tasks)
            if len(configs) > max_tasks:
                log.warning(
                    "Connector %s returned %d task configs, more than tasks.max=%d; using the first %d",
                    effect.name, len(configs), max_tasks, max_tasks,
                )  # fmt: skip
            result = [
                {**{str(k): str(v) for k, v in c.items()}, TASK_CLASS_CONFIG: task_class} for c in configs
            ]
        except Exception as exc:
            log.error("Connector %s failed to generate task configs", effect.name, exc_info=True)
            return [ev.ConnectorFailed(effect.name, effect.generation, _trace(exc))]
        return [ev.TaskConfigsGenerated(effect.name, effect.generation, result[:max_tasks])]

    async def stop(self, effect: ev.StopConnector) -> list[ev.Event]:
        """Stop and drop the connector's instance (a no-op without one); report ConnectorStopped."""
        running = self._running.pop(effect.name, None)
        if running is None:
            return []
        running.context.closed = True
        if running.started:
            try:
                await asyncio.to_thread(running.instance.stop)
            except Exception:
                log.error("Connector %s failed to stop", effect.name, exc_info=True)
        log.info("Connector %s stopped", effect.name)
        return [ev.ConnectorStopped(effect.name, running.generation)]

    async def stop_all(self) -> None:
        """Stop every instance (worker shutdown, after the reducer has asked for it)."""
        for name in self.names():
            await self.stop(ev.StopConnector(name))
