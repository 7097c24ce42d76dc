"""Automatic restarts (self-healing, a kconnect extension): the timers and writes around the pure
schedule of `kconnect.herder.restart_schedule`.

The effect runner tells the scheduler each status it writes (`on_status`); it writes only the
statuses of instances this worker runs, so in distributed mode the worker that runs a connector or
task is the one that schedules its restarts. A FAILED instance of a connector with
``auto.restart.enable=true`` gets a timer; when it fires, the scheduler posts `AutoRestartDue` to
the herder's owner, and the reducer restarts the instance as a manual restart does (from the
committed offsets) if it is still FAILED and still runs here. The schedule (count, last failure,
next attempt, gave up) is kept in the status store beside the instance's status, so REST on any
worker shows it and the next worker to run the instance after a rebalance continues the count.

Others may ask for a restart for a reason of their own (a stalled task): `schedule_restart` is the
one entry point, on the same schedule.

One log line per scheduled restart, per restart carried out, per give-up and per reset count.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping

from kconnect.config.auto_restart_keys import AUTO_RESTART_MAX_ATTEMPTS_CONFIG, AutoRestartPolicy
from kconnect.herder import events as ev
from kconnect.herder import restart_schedule as schedule
from kconnect.model import AutoRestarts, ConnectorTaskId, State
from kconnect.storage.base import StatusBackingStore

log = logging.getLogger(__name__)

Instance = str | ConnectorTaskId
"""A connector's instance (its name) or one task."""


def describe(instance: Instance) -> str:
    """``connector <name>`` or ``task <name>-<n>``, for log lines."""
    return f"connector {instance}" if isinstance(instance, str) else f"task {instance}"


def _connector(instance: Instance) -> str:
    return instance if isinstance(instance, str) else instance.connector


class RestartScheduler:
    """Schedules and counts the automatic restarts of the instances this worker runs; the herder's
    front door builds one and the effect runner feeds it (`on_status`), on the herder's event loop."""

    def __init__(
        self,
        statuses: StatusBackingStore,
        config_of: Callable[[str], Mapping[str, str] | None],
        post: Callable[[ev.Event], None],
        clock_ms: Callable[[], int] = lambda: int(time.time() * 1000),
        runs_here: Callable[[Instance], bool] = lambda _instance: True,
    ) -> None:
        """`config_of` gives a connector's current config (None once deleted); `post` queues an event
        for the herder's owner; `clock_ms` is the wall clock the schedule's times are written in;
        `runs_here` says whether this worker still runs an instance (a rebalance may have moved it
        without a status write here, so a late timer must not write its schedule)."""
        self._statuses = statuses
        self._config_of = config_of
        self._post = post
        self._clock_ms = clock_ms
        self._runs_here = runs_here
        self._timers: dict[Instance, tuple[asyncio.TimerHandle, bool]] = {}
        self._settling: dict[Instance, asyncio.TimerHandle] = {}
        self._fired: set[Instance] = set()

    def policy(self, connector: str) -> AutoRestartPolicy:
        """The connector's policy from its current config (off when it has none)."""
        config = self._config_of(connector)
        return AutoRestartPolicy.of(config) if config is not None else AutoRestartPolicy()

    def get(self, instance: Instance) -> AutoRestarts | None:
        """Where the instance's automatic restarts stand (from the status store: any worker's write)."""
        return self._statuses.get_auto_restarts(instance)

    # --- fed by the effect runner ------------------------------------------------------------------

    def on_status(self, instance: Instance, state: State, trace: str | None) -> None:
        """Called after the status of an instance this worker runs was written."""
        automatic = instance in self._fired
        self._fired.discard(instance)
        self._cancel_settling(instance)
        policy = self.policy(_connector(instance))
        current = self.get(instance)
        if state is State.FAILED:
            if policy.active:
                self._schedule(instance, policy, trace or "", only_failed=True)
            else:
                self._cancel_timer(instance)
                if current is not None and current.next_attempt_ms is not None:
                    self._put(instance, schedule.unscheduled(current))
            return
        if state in (State.RUNNING, State.RESTARTING):
            self._cancel_timer(instance, only_failed=True)
        else:
            self._cancel_timer(instance)
        if current is None:
            return
        if state is State.RESTARTING:
            self._restarting(instance, current, automatic)
        elif state is State.RUNNING:
            if current.next_attempt_ms is not None and instance not in self._timers:
                current = self._put(instance, schedule.unscheduled(current))
            # A RUNNING task with a trace is stalled (task.stall.timeout.ms): it has not settled.
            if (current.count or current.gave_up) and trace is None:
                self._settle_later(instance, policy, current)
        elif current.next_attempt_ms is not None and instance not in self._timers:
            self._put(instance, schedule.unscheduled(current))

    # --- the entry point for other parts of the worker ------------------------------------------------

    def schedule_restart(self, instance: Instance, reason: str) -> None:
        """Schedule an automatic restart of `instance` (this worker runs it) because of `reason`, on its
        connector's schedule, whatever its state: e.g. a task that stalled. Nothing when the connector
        does not enable automatic restarts."""
        policy = self.policy(_connector(instance))
        if policy.active:
            self._schedule(instance, policy, reason, only_failed=False)

    def cancel_restart(self, instance: Instance) -> None:
        """Drop a restart `schedule_restart` asked for that has not run yet, its reason gone (the stalled
        task moves again); the next status written clears its next attempt."""
        timer = self._timers.get(instance)
        if timer is not None and not timer[1]:
            self._cancel_timer(instance)

    def close(self) -> None:
        """Cancel every timer (the herder is stopping)."""
        for handle, _only_failed in self._timers.values():
            handle.cancel()
        for handle in self._settling.values():
            handle.cancel()
        self._timers.clear()
        self._settling.clear()

    # --- the schedule ----------------------------------------------------------------------------------

    def _schedule(
        self, instance: Instance, policy: AutoRestartPolicy, reason: str, only_failed: bool
    ) -> None:
        self._cancel_timer(instance)
        now = self._clock_ms()
        before = self.get(instance) or AutoRestarts()
        after = self._put(instance, schedule.failed(before, policy, reason, now))
        if after.gave_up:
            log.warning(
                "Giving up automatic restarts of %s: it failed again after %d automatic restarts (%s=%d)",
                describe(instance), after.count, AUTO_RESTART_MAX_ATTEMPTS_CONFIG, policy.max_attempts,
            )  # fmt: skip
            return
        delay_ms = max(0, (after.next_attempt_ms or now) - now)
        limit = "unlimited" if policy.max_attempts < 0 else str(policy.max_attempts)
        log.info(
            "Automatic restart %d (of %s) of %s scheduled in %d ms: %s",
            after.count + 1, limit, describe(instance), delay_ms, _gist(reason),
        )  # fmt: skip
        handle = asyncio.get_running_loop().call_later(delay_ms / 1000, self._fire, instance, only_failed)
        self._timers[instance] = (handle, only_failed)

    def _fire(self, instance: Instance, only_failed: bool) -> None:
        self._timers.pop(instance, None)
        self._fired.add(instance)
        if isinstance(instance, str):
            self._post(ev.AutoRestartDue(instance, None, only_failed))
        else:
            self._post(ev.AutoRestartDue(instance.connector, instance.task, only_failed))

    def _restarting(self, instance: Instance, current: AutoRestarts, automatic: bool) -> None:
        after = self._put(instance, schedule.restarted(current, automatic))
        if automatic:
            log.info("Automatic restart %d of %s: restarting it now", after.count, describe(instance))
        elif current.count or current.gave_up:
            log.info("Manual restart of %s: its automatic restart count starts again", describe(instance))

    def _settle_later(self, instance: Instance, policy: AutoRestartPolicy, current: AutoRestarts) -> None:
        delay_ms = schedule.settle_ms(policy, current)
        handle = asyncio.get_running_loop().call_later(delay_ms / 1000, self._settled, instance, delay_ms)
        self._settling[instance] = handle

    def _settled(self, instance: Instance, running_ms: int) -> None:
        self._settling.pop(instance, None)
        current = self.get(instance)
        if current is None or not self._runs_here(instance):
            return
        self._put(instance, schedule.settled(current))
        log.info(
            "%s stayed RUNNING for %d ms: its automatic restart count starts again",
            _sentence(describe(instance)), running_ms,
        )  # fmt: skip

    def _put(self, instance: Instance, restarts: AutoRestarts) -> AutoRestarts:
        self._statuses.put_auto_restarts(instance, restarts)
        return restarts

    def _cancel_timer(self, instance: Instance, only_failed: bool = False) -> None:
        timer = self._timers.get(instance)
        if timer is not None and (not only_failed or timer[1]):
            timer[0].cancel()
            del self._timers[instance]

    def _cancel_settling(self, instance: Instance) -> None:
        handle = self._settling.pop(instance, None)
        if handle is not None:
            handle.cancel()


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def _gist(trace: str) -> str:
    """The line of a trace that says what failed: a Python traceback's last, any other trace's first."""
    lines = [line.strip() for line in trace.strip().splitlines() if line.strip()]
    if not lines:
        return "no reason given"
    return lines[-1] if lines[0].startswith("Traceback (most recent call last)") else lines[0]
