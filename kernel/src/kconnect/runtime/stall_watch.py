"""Stall detection for a task loop: is a call that moves records stuck? (kconnect's extension)

A task that shows RUNNING while nothing moves is the failure operators find last. Each loop marks
the calls through which its records and offsets move: a source's ``poll()`` and the producer taking
its records, a sink's ``put()`` (and a batch `put` keeps refusing with RetriableError), every offset
commit (``SourceTask.commit()``, storing source offsets at the worker, ``pre_commit()``, the
consumer's commit). `StallWatch.begin` is called before such a call and `StallWatch.end` after it.
A call in flight for ``task.stall.timeout.ms`` or longer is a stall; the loop is waiting, not idle,
since an idle source's ``poll()`` returns (empty) and an idle sink waits in the consumer, which is
never marked.

`StallWatch` is bookkeeping without I/O, its clock injected, so the rule is unit-tested without a
loop. `watch_for_stalls` runs beside a loop (one asyncio task) and reports each change through the
task's control channel: the worker turns it into the task's status trace, a metric and a log line.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from kconnect.config.extension_keys import task_stall_timeout_ms
from kconnect.executor import TaskSpec
from kconnect.runtime.control import TaskControl

log = logging.getLogger(__name__)

#: The longest a watchdog waits between two checks (a short timeout makes it check more often).
MAX_CHECK_INTERVAL_S = 1.0


@dataclass(frozen=True)
class Stalled:
    """The task is stalled: `reason` says which call waits and for how long (``poll() has not
    returned for 63 s``); `stalled_s` is how long that call has been in flight."""

    reason: str
    stalled_s: float


@dataclass(frozen=True)
class Recovered:
    """The call the task was stalled in ended; `stalled_s` is how long it had been in flight."""

    stalled_s: float


StallChange = Stalled | Recovered


@dataclass(frozen=True)
class _Call:
    what: str
    began: float


class StallWatch:
    """Which marked calls are in flight, and whether the oldest has been for `timeout_s` or longer.

    The loop's coroutines call `begin` and `end` (one event loop: no lock); the watchdog calls
    `check`, which answers each change once: `Stalled` when a call passes the timeout (again with a
    new reason if, the first call over, another one is still over it), `Recovered` when the call
    reported ended and no other call is over the timeout. A `timeout_s` of 0 turns it off.
    """

    def __init__(self, timeout_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        """Watch with `timeout_s` (0: never a stall); `clock` gives monotonic seconds."""
        self.timeout_s = timeout_s
        self._clock = clock
        self._tokens = itertools.count(1)
        self._calls: dict[int, _Call] = {}
        #: The token of the call last reported as stalled, and when that call began.
        self._reported: tuple[int, float] | None = None
        #: When the reported call ended, once it has.
        self._reported_end: float | None = None
        #: Set when the reported call ends, so a watchdog can report the recovery at once.
        self.on_reported_end: Callable[[], None] = lambda: None

    @property
    def enabled(self) -> bool:
        """Whether stalls are detected at all."""
        return self.timeout_s > 0

    @property
    def stalled(self) -> bool:
        """Whether the last change `check` answered was `Stalled`."""
        return self._reported is not None

    def begin(self, what: str, since: float | None = None) -> int:
        """A marked call starts now (or started at `since`, a clock time); `what` says what a stall
        of it means (``poll() has not returned``). Returns the token `end` takes."""
        token = next(self._tokens)
        self._calls[token] = _Call(what, self._clock() if since is None else since)
        return token

    @contextmanager
    def marking(self, what: str) -> Iterator[None]:
        """`begin` on entry, `end` on exit, however the block ends."""
        token = self.begin(what)
        try:
            yield
        finally:
            self.end(token)

    def end(self, token: int) -> None:
        """The call `token` names returned (or raised); ending it twice does nothing."""
        if self._calls.pop(token, None) is None:
            return
        if self._reported is not None and self._reported[0] == token:
            self._reported_end = self._clock()
            self.on_reported_end()

    def check(self) -> StallChange | None:
        """The change since the last check: `Stalled`, `Recovered` or None."""
        if not self.enabled:
            return None
        now = self._clock()
        overdue = self._oldest_overdue(now)
        if overdue is not None:
            token, call = overdue
            if self._reported is not None and self._reported[0] == token:
                return None
            self._reported, self._reported_end = (token, call.began), None
            stalled_s = now - call.began
            return Stalled(f"{call.what} for {_seconds(stalled_s)} s", stalled_s)
        if self._reported is None:
            return None
        began = self._reported[1]
        ended = self._reported_end if self._reported_end is not None else now
        self._reported, self._reported_end = None, None
        return Recovered(ended - began)

    def seconds_to_next_check(self) -> float:
        """How long a watchdog may wait before `check` can answer something new (at most
        `MAX_CHECK_INTERVAL_S`, at least a twentieth of the timeout)."""
        interval = min(MAX_CHECK_INTERVAL_S, max(self.timeout_s / 4, 0.05))
        if not self._calls or self._reported is not None:
            return interval
        now = self._clock()
        oldest = min(call.began for call in self._calls.values())
        return max(min(interval, oldest + self.timeout_s - now), self.timeout_s / 20)

    def _oldest_overdue(self, now: float) -> tuple[int, _Call] | None:
        overdue = [(t, c) for t, c in self._calls.items() if now - c.began >= self.timeout_s]
        return min(overdue, key=lambda item: item[1].began) if overdue else None


def count_records(count: int) -> str:
    """``1 record``, ``12 records``: how the loops' stall reasons count records."""
    return f"{count} record" if count == 1 else f"{count} records"


def _seconds(seconds: float) -> str:
    """Whole seconds, or tenths below ten seconds (a short timeout should not read "0 s")."""
    return f"{seconds:.1f}" if seconds < 10 else f"{seconds:.0f}"


class StallWatchdog:
    """A task loop's `StallWatch` (its timeout from the task's ``task.stall.timeout.ms``) and the
    asyncio task that reports its changes to the worker (`TaskControl.report_stall`).

    The loop builds one per run, calls `start` once its task started and `stop` when it ends, and
    marks its calls with `marking`. ConfigException (naming the key) when the timeout is no number.
    """

    def __init__(
        self, spec: TaskSpec, control: TaskControl, clock: Callable[[], float] = time.monotonic
    ) -> None:
        timeout_ms = task_stall_timeout_ms(spec.worker.props, spec.connector_config)
        self.watch = StallWatch(timeout_ms / 1000, clock)
        self._control = control
        self._task = str(spec.id)
        self._running: asyncio.Task[None] | None = None

    def marking(self, what: str) -> contextlib.AbstractContextManager[None]:
        """Mark a call (`StallWatch.marking`)."""
        return self.watch.marking(what)

    def start(self) -> None:
        """Start watching (nothing runs when detection is off)."""
        if self.watch.enabled and self._running is None:
            report = self._report
            self._running = asyncio.create_task(
                watch_for_stalls(self.watch, report, self._task), name=f"kconnect-stall-watch-{self._task}"
            )

    def stop(self) -> None:
        """Stop watching; a task that ends is not reported as moving again (its state says it all)."""
        if self._running is not None:
            self._running.cancel()
            self._running = None

    async def _report(self, change: StallChange) -> None:
        reason = change.reason if isinstance(change, Stalled) else None
        await self._control.report_stall(reason, change.stalled_s)


async def watch_for_stalls(
    watch: StallWatch, report: Callable[[StallChange], Awaitable[None]], task: str
) -> None:
    """Runs beside a task loop until cancelled: checks `watch` and reports each change through
    `report` (the loop's control channel). A report that fails is logged; the next change is
    reported as usual."""
    if not watch.enabled:
        return
    woken = asyncio.Event()
    watch.on_reported_end = woken.set
    while True:
        try:
            await asyncio.wait_for(woken.wait(), watch.seconds_to_next_check())
        except TimeoutError:
            pass
        woken.clear()
        change = watch.check()
        if change is None:
            continue
        try:
            await report(change)
        except Exception:
            log.warning("Task %s could not report a stall change (%s)", task, change, exc_info=True)
