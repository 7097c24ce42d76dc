"""The herder's owner task: the one asyncio task that holds the reducer state and carries out effects.

Front-door writes (`Owner.call`) and adapter reports (`Owner.post`) share one queue; the owner
takes one item at a time. For each event it calls the reducer and runs the effects
first-in-first-out (`fold`): events an effect answers with queue behind the remaining effects.
The owner never runs plugin code itself (connector calls run in their own threads,
`kconnect.herder.connectors`), so a hanging connector cannot stall it.

When an effect fails (`fold`):

* a store write, while only store writes have run for the event (the reducer puts them first):
  the event is dropped. The state stays as it was and nothing outside the stores was touched.
  A front-door write gets the error (a StoreError names the file); an adapter event fails its
  connector, with the error as the trace, so status shows it.
* any other effect (a stop or start went wrong): the remaining effects still run, so that what
  runs matches the state, and the first error is reported the same way.

Every write answers within `REQUEST_TIMEOUT_S`: after that the caller gets RequestTimeoutError
("Request timed out", Kafka's answer after its 90 s), while the write itself goes on.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from kconnect.errors import RequestTimeoutError
from kconnect.herder import events as ev
from kconnect.herder.machine import apply
from kconnect.herder.state import HerderState, awaiting_task_configs

log = logging.getLogger(__name__)

T = TypeVar("T")

REQUEST_TIMEOUT_S = 90.0
"""How long a write (create, update, pause, restart, delete...) may take before the caller gets
"Request timed out": Kafka's REST request timeout. It bounds waiting for a connector's `start` and
`task_configs`, which a create or config update answers after (with the connector's tasks)."""

TIMEOUT_MESSAGE = "Request timed out"

_WHAT_FAILED: dict[type[Any], str] = {
    ev.PersistConfig: "store the connector's config",
    ev.PersistTargetState: "store the connector's target state",
    ev.PersistTaskConfigs: "store the connector's task configs",
    ev.RemoveConfig: "remove the connector's config",
}

RunEffect = Callable[[ev.Effect], Awaitable[list[ev.Event]]]
_Work = tuple[Callable[[], Awaitable[Any]], "asyncio.Future[Any] | None"]


@dataclass(frozen=True)
class Folded:
    """What `fold` left: the new state and, if an effect failed, the first failure and its effect."""

    state: HerderState
    error: Exception | None = None
    failed: ev.Effect | None = None


async def fold(state: HerderState, event: ev.Event, run: RunEffect) -> Folded:
    """Fold `event`, and every event its effects answer with, into `state`; effects run FIFO.

    See the module docstring for what happens when an effect fails.
    """
    pending: deque[ev.Event] = deque([event])
    first: tuple[Exception, ev.Effect] | None = None
    while pending:
        current = pending.popleft()
        new_state, effects = apply(state, current)
        only_stores = True
        for effect in effects:
            try:
                pending.extend(await run(effect))
            except Exception as exc:
                log.error("Herder: %s failed: %s", type(effect).__name__, exc, exc_info=True)
                first = first or (exc, effect)
                if only_stores and isinstance(effect, ev.STORE_WRITES):
                    new_state = state  # drop the event: nothing but stores has been touched
                    break
            only_stores = only_stores and isinstance(effect, ev.STORE_WRITES)
        state = new_state
    return Folded(state, *first) if first else Folded(state)


class Owner:
    """Holds the herder's state and serializes every change to it through one asyncio task."""

    def __init__(
        self, state: HerderState, run: RunEffect, request_timeout_s: float = REQUEST_TIMEOUT_S
    ) -> None:
        self.state = state
        self.request_timeout_s = request_timeout_s
        self._run = run
        self._queue: asyncio.Queue[_Work] = asyncio.Queue()
        self._waiters: list[tuple[str, asyncio.Future[None]]] = []
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> None:
        """Start the owner task on the running loop."""
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.create_task(self._serve(), name="kconnect-herder")
        self._task.add_done_callback(_fail_loudly)

    def stop(self) -> None:
        """Cancel the owner task (after the herder's shutdown has been folded in)."""
        if self._task is not None:
            self._task.remove_done_callback(_fail_loudly)
            self._task.cancel()
            self._task = None

    # --- entry points ------------------------------------------------------------------------------

    def deadline(self) -> float:
        """The loop time by which a write starting now must answer."""
        return asyncio.get_running_loop().time() + self.request_timeout_s

    async def call(self, work: Callable[[], Awaitable[T]], deadline: float | None = None) -> T:
        """Run `work` on the owner task and return its result; RequestTimeoutError after `deadline`
        (none: wait as long as it takes, for start-up and shutdown)."""
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((work, future))
        return await self.wait(future, deadline)

    async def wait(self, future: asyncio.Future[T], deadline: float | None) -> T:
        """Await `future` until `deadline` (loop time); RequestTimeoutError after it. The work goes on."""
        if deadline is None:
            return await future
        remaining = max(0.0, deadline - asyncio.get_running_loop().time())
        try:
            return await asyncio.wait_for(asyncio.shield(future), remaining)
        except asyncio.TimeoutError:
            log.warning("A herder write did not complete within %.1f s", self.request_timeout_s)
            future.add_done_callback(_log_late_failure)
            raise RequestTimeoutError(TIMEOUT_MESSAGE) from None

    def post(self, event: ev.Event) -> None:
        """Queue an adapter's report (on the owner's loop)."""
        self._queue.put_nowait((lambda: self._report(event), None))

    def post_threadsafe(self, event: ev.Event) -> None:
        """Queue an adapter's report from any thread."""
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self.post, event)

    # --- on the owner task -------------------------------------------------------------------------

    async def command(self, event: ev.Event) -> None:
        """Fold a front-door event in; raise the first effect failure to the caller (owner task only)."""
        folded = await self._fold(event)
        if folded.error is not None:
            raise folded.error

    def settled(self, name: str) -> asyncio.Future[None] | None:
        """A future done once the connector's instance has started and produced task configs (or
        failed, or was replaced or removed); None if there is nothing to wait for (owner task only)."""
        if not awaiting_task_configs(self.state, name):
            return None
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append((name, future))
        return future

    async def _fold(self, event: ev.Event) -> Folded:
        folded = await fold(self.state, event, self._run)
        self.state = folded.state
        waiting = []
        for name, future in self._waiters:
            if future.done():
                continue
            if awaiting_task_configs(self.state, name):
                waiting.append((name, future))
            else:
                future.set_result(None)
        self._waiters = waiting
        return folded

    async def _report(self, event: ev.Event) -> None:
        folded = await self._fold(event)
        name = getattr(folded.failed, "name", None)
        record = self.state.connectors.get(name) if isinstance(name, str) else None
        if folded.error is None or record is None or not record.instance:
            return
        what = _WHAT_FAILED.get(type(folded.failed), f"carry out {type(folded.failed).__name__}")
        trace = f"The worker could not {what}: {folded.error}"
        await self._fold(ev.ConnectorFailed(record.name, record.instance, trace))

    async def _serve(self) -> None:
        while True:
            work, future = await self._queue.get()
            try:
                result = await work()
            except Exception as exc:
                if future is None:
                    log.error("Herder event failed", exc_info=True)
                elif not future.done():
                    future.set_exception(exc)
                continue
            if future is not None and not future.done():
                future.set_result(result)


def _log_late_failure(future: asyncio.Future[Any]) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.error("A herder write that timed out failed later: %s", future.exception())


def _fail_loudly(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.critical("The herder's owner task died", exc_info=task.exception())
