"""Running connector instances: the adapter behind StartConnector, GenerateTaskConfigs and StopConnector.

A connector's methods are user code that may be slow or hang (a `start` that connects to a dead
database). The herder's owner task must never wait for them, so every call of one connector
instance runs on that instance's *lane*: one call at a time, in the order the herder asked for
them, each in its own daemon thread (never the event loop's default thread pool, which a few
hanging connectors would exhaust). The effect returns at once; the outcome arrives later as an
event (ConnectorStarted, TaskConfigsGenerated, ConnectorFailed with the traceback,
ConnectorStopped). A new instance of a connector starts after the previous instance's `stop`
returned, or after `shutdown_timeout_s` if it does not, as Kafka's worker gives up waiting.

The connector's context may be called from any thread; its calls are posted back as events. Its
``offset_storage_reader`` (Kafka's SourceConnectorContext) reads the worker's offset store, the one
the connector's tasks read, when the worker hands the instances that store.

Config-provider references (docs/secrets.md) are resolved in the instance's thread just before
`start`: the connector sees the values, the herder keeps the references. The task configs the
connector generates get the references back before they are posted, so stored task configs never
hold a resolved value (Kafka's reverseTransform). A trace of the connector's failure, in its status
and in the log, shows the connector's PASSWORD values as ``[hidden]``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import logging
import threading
import traceback
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from kconnect.config.connector_keys import CONNECTOR_CLASS_CONFIG, CONNECTOR_VERSION_CONFIG
from kconnect.config.providers_worker import WorkerConfigTransformer
from kconnect.herder import events as ev
from kconnect.herder.tasks_max import TooManyTasksError, enforces_tasks_max, tasks_max, too_many_tasks_warning
from kconnect.model import RestartRequest
from kconnect.plugin_host import PluginHost, shown_class_name
from kconnect.runtime.task_context import LoopOffsetReader
from kconnect.storage import OffsetBackingStore

log = logging.getLogger(__name__)

T = TypeVar("T")

TASK_CLASS_CONFIG = "task.class"


def _trace(exc: BaseException) -> str:
    return "".join(traceback.format_exception(exc))


async def in_thread(name: str, call: Callable[..., T], *args: Any) -> T:
    """Run `call(*args)` in a new daemon thread named `name` and await its result.

    A call that never returns keeps only its own thread (and lets the process exit).
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(result: T | None, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)  # type: ignore[arg-type]

    def run() -> None:
        try:
            result, error = call(*args), None
        except BaseException as exc:
            result, error = None, exc
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody is waiting
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=run, name=name, daemon=True).start()
    return await future


def hiding_secrets(
    post: Callable[[ev.Event], None], transformer: WorkerConfigTransformer
) -> Callable[[ev.Event], None]:
    """`post`, with the trace of a ConnectorFailed or TaskFailed scrubbed of its connector's secrets.

    The front door wraps the executor's reports (task failures) with it; connector instances post
    through it too, so no status the herder keeps holds a resolved PASSWORD value.
    """

    def post_hidden(event: ev.Event) -> None:
        if isinstance(event, ev.ConnectorFailed):
            event = dataclasses.replace(event, trace=transformer.scrub(event.name, event.trace) or "")
        elif isinstance(event, ev.TaskFailed):
            event = dataclasses.replace(event, trace=transformer.scrub(event.id.connector, event.trace) or "")
        post(event)

    return post_hidden


class _Context:
    """The SourceConnectorContext of one connector instance; calls after the instance ended are dropped."""

    def __init__(
        self,
        name: str,
        generation: int,
        post: Callable[[ev.Event], None],
        offsets: LoopOffsetReader | None = None,
    ) -> None:
        self._name = name
        self._generation = generation
        self._post = post
        self._offsets = offsets
        self.closed = False

    @property
    def offset_storage_reader(self) -> LoopOffsetReader:
        """The connector's committed source offsets, from the worker's offset store."""
        if self._offsets is None:
            raise RuntimeError(f"Connector {self._name}: this worker has no offset store for connectors")
        return self._offsets

    def request_task_reconfiguration(self) -> None:
        """Ask the herder to call `task_configs` again."""
        if not self.closed:
            self._post(ev.ReconfigurationRequested(self._name))

    def raise_error(self, error: Exception) -> None:
        """Fail the connector with this error."""
        if not self.closed:
            self._post(ev.ConnectorFailed(self._name, self._generation, _trace(error)))


class _Instance:
    """One connector instance and its lane: a queue of calls run one at a time by one asyncio task."""

    def __init__(self, name: str, generation: int, config: Mapping[str, str], context: _Context) -> None:
        self.name = name
        self.generation = generation
        self.raw_config = dict(config)
        """The config as stored: references unresolved."""
        self.config = dict(config)
        """The config the connector was started with: references resolved."""
        self.context = context
        self.connector: Any = None
        self.started = False
        self._calls: asyncio.Queue[Callable[[], Awaitable[None]] | None] = asyncio.Queue()
        self.lane = asyncio.create_task(self._run(), name=f"kconnect-connector-{name}-{generation}")

    def call(self, work: Callable[[], Awaitable[None]]) -> None:
        """Queue `work` behind the instance's earlier calls."""
        self._calls.put_nowait(work)

    def close(self) -> None:
        """End the lane after the calls already queued."""
        self._calls.put_nowait(None)

    def thread(self, call: Callable[..., T], *args: Any) -> Awaitable[T]:
        """Run one of the connector's methods in its own thread."""
        return in_thread(f"kconnect-connector-{self.name}", call, *args)

    async def _run(self) -> None:
        while (work := await self._calls.get()) is not None:
            try:
                await work()
            except Exception:
                log.error("Connector %s: unexpected error in its lane", self.name, exc_info=True)


class ConnectorInstances:
    """The worker's connector instances, one per running connector.

    `post` delivers an event to the herder's owner task from any thread (the herder passes a
    ``loop.call_soon_threadsafe`` wrapper). Every method returns at once with no events: outcomes
    are posted when the connector's code returns. `transformer` holds the worker's config providers
    (none by default); `stop_all` closes it.
    """

    def __init__(
        self,
        plugins: PluginHost,
        post: Callable[[ev.Event], None],
        shutdown_timeout_s: float = 5.0,
        transformer: WorkerConfigTransformer | None = None,
        offsets: OffsetBackingStore | None = None,
    ) -> None:
        self._plugins = plugins
        self._offsets = offsets
        self.transformer = transformer or WorkerConfigTransformer()
        self._post = hiding_secrets(post, self.transformer)
        self._shutdown_timeout_s = shutdown_timeout_s
        self._running: dict[str, _Instance] = {}
        self._stopping: dict[str, asyncio.Task[None]] = {}

    def names(self) -> list[str]:
        """Names of connectors with a live instance."""
        return sorted(self._running)

    def request_restart(self, name: str) -> None:
        """Ask the herder to restart connector `name` if this worker runs it (a config value it used
        expired); from any thread. As Kafka's, a worker that does not run the connector does nothing."""
        if name in self._running:
            self._post(RestartRequest(name))

    async def start(self, effect: ev.StartConnector) -> list[ev.Event]:
        """Queue: wait for the previous instance to stop, then instantiate, initialize and `start`."""
        await self.stop(ev.StopConnector(effect.name))
        previous = self._stopping.get(effect.name)
        reader = None
        if self._offsets is not None:
            reader = LoopOffsetReader(
                functools.partial(self._offsets.get, effect.name), asyncio.get_running_loop()
            )
        context = _Context(effect.name, effect.generation, self._post, reader)
        instance = _Instance(effect.name, effect.generation, effect.config, context)
        self._running[effect.name] = instance

        async def start() -> None:
            if previous is not None:
                await self._await_stopped(effect.name, previous)
            try:
                instance.config = await instance.thread(
                    self.transformer.resolve_connector, effect.name, instance.raw_config
                )
                named = (
                    instance.config.get(CONNECTOR_CLASS_CONFIG, ""),
                    instance.config.get(CONNECTOR_VERSION_CONFIG),
                )
                cls = self._plugins.connector(*named).cls
                instance.connector = cls()
                instance.connector.initialize(context)
                await instance.thread(instance.connector.start, instance.config)
            except Exception as exc:
                self._failed(effect.name, effect.generation, "failed to start", exc)
                return
            instance.started = True
            log.info("Connector %s started", effect.name)
            self._post(ev.ConnectorStarted(effect.name, effect.generation))

        instance.call(start)
        return []

    async def task_configs(self, effect: ev.GenerateTaskConfigs) -> list[ev.Event]:
        """Queue: ask the connector for up to ``tasks.max`` task configs, each with ``task.class`` added.

        More than ``tasks.max`` fail the connector with `TooManyTasksError` (KIP-1004), nothing posted
        but the failure; with ``tasks.max.enforce=false`` all of them are posted, with Kafka's warning.
        """
        instance = self._running.get(effect.name)
        if instance is None or instance.generation != effect.generation:
            return []

        async def generate() -> None:
            if not instance.started or instance.context.closed:
                return
            try:
                max_tasks = tasks_max(instance.config)
                task_class = shown_class_name(await instance.thread(instance.connector.task_class))
                configs = await instance.thread(instance.connector.task_configs, max_tasks)
                if len(configs) > max_tasks:
                    if enforces_tasks_max(instance.config):
                        raise TooManyTasksError(effect.name, len(configs), max_tasks)
                    log.warning("%s", too_many_tasks_warning(effect.name, len(configs), max_tasks))
                result = self.transformer.reverse_transform(
                    instance.raw_config,
                    [
                        {**{str(k): str(v) for k, v in c.items()}, TASK_CLASS_CONFIG: task_class}
                        for c in configs
                    ],
                )
            except Exception as exc:
                self._failed(effect.name, effect.generation, "failed to generate task configs", exc)
                return
            self._post(ev.TaskConfigsGenerated(effect.name, effect.generation, result))

        instance.call(generate)
        return []

    async def stop(self, effect: ev.StopConnector) -> list[ev.Event]:
        """Queue: `stop` and drop the connector's instance (a no-op without one); posts ConnectorStopped."""
        instance = self._running.pop(effect.name, None)
        if instance is None:
            return []
        instance.context.closed = True

        async def stop() -> None:
            if instance.started:
                try:
                    await instance.thread(instance.connector.stop)
                except Exception:
                    log.error("Connector %s failed to stop", effect.name, exc_info=True)
            log.info("Connector %s stopped", effect.name)
            self._post(ev.ConnectorStopped(effect.name, instance.generation))

        instance.call(stop)
        instance.close()
        self._stopping[effect.name] = instance.lane
        instance.lane.add_done_callback(lambda lane: self._forget(effect.name, lane))
        return []

    def _failed(self, name: str, generation: int, what: str, exc: BaseException) -> None:
        """Log and post the connector's failure, its trace scrubbed of the connector's secrets."""
        trace = self.transformer.scrub(name, _trace(exc)) or ""
        log.error("Connector %s %s: %s", name, what, trace)
        self._post(ev.ConnectorFailed(name, generation, trace))

    def _forget(self, name: str, lane: asyncio.Task[None]) -> None:
        if self._stopping.get(name) is lane:
            del self._stopping[name]

    async def _await_stopped(self, name: str, lane: asyncio.Task[None]) -> None:
        try:
            await asyncio.wait_for(asyncio.shield(lane), self._shutdown_timeout_s)
        except asyncio.TimeoutError:
            log.error(
                "Connector %s: the previous instance did not stop within %.1f s; starting the new one anyway",
                name, self._shutdown_timeout_s,
            )  # fmt: skip

    async def stop_all(self) -> None:
        """Stop every instance and wait for them (worker shutdown), each at most `shutdown_timeout_s`;
        then close the config providers."""
        for name in self.names():
            await self.stop(ev.StopConnector(name))
        for name, lane in list(self._stopping.items()):
            await self._await_stopped(name, lane)
            if not lane.done():
                lane.cancel()
        self.transformer.close()
