"""Automatic restarts' schedule as pure functions: when the next restart is due, when to give up, when
the count resets. No I/O, no clock: the caller passes the time (`kconnect.herder.restart_scheduler`
carries the timers and the writes).

Strimzi's schedule: the n-th automatic restart since the count last reset (n from 0) waits
``auto.restart.backoff.ms`` x n x (n + 1), capped at ``auto.restart.backoff.max.ms``, so 0, 2, 6,
12, 20 ... minutes with a one-minute unit. After ``auto.restart.max.attempts`` restarts (-1: never)
the next failure gives up. The count resets once the instance has stayed RUNNING for as long as its
next restart would wait (at least one unit), and at a manual restart (the user took over).
"""

from __future__ import annotations

from dataclasses import replace

from kconnect.config.auto_restart_keys import AutoRestartPolicy
from kconnect.model import AutoRestarts


def backoff_ms(policy: AutoRestartPolicy, made: int) -> int:
    """How long the restart after `made` restarts waits: unit x made x (made + 1), at most the cap."""
    return min(policy.backoff_ms * made * (made + 1), policy.backoff_max_ms)


def settle_ms(policy: AutoRestartPolicy, schedule: AutoRestarts) -> int:
    """How long the instance must stay RUNNING before its count resets: as long as its next restart
    would wait, and at least one unit."""
    return max(backoff_ms(policy, schedule.count), policy.backoff_ms)


def failed(schedule: AutoRestarts, policy: AutoRestartPolicy, trace: str, now_ms: int) -> AutoRestarts:
    """The instance FAILED at `now_ms` with `trace`: the next restart is due after its backoff, or the
    worker gives up (`gave_up`, nothing due) when `max_attempts` restarts were made already."""
    noted = replace(schedule, last_failure=trace, last_failure_ms=now_ms, next_attempt_ms=None)
    if 0 <= policy.max_attempts <= schedule.count:
        return replace(noted, gave_up=True)
    return replace(noted, gave_up=False, next_attempt_ms=now_ms + backoff_ms(policy, schedule.count))


def restarted(schedule: AutoRestarts, automatic: bool) -> AutoRestarts:
    """The instance is restarting: an automatic restart counts one more, a manual one resets the count."""
    count = schedule.count + 1 if automatic else 0
    return replace(schedule, count=count, next_attempt_ms=None, gave_up=False)


def settled(schedule: AutoRestarts) -> AutoRestarts:
    """The instance stayed RUNNING for `settle_ms`: the count starts again (the last failure stays shown)."""
    return replace(schedule, count=0, next_attempt_ms=None, gave_up=False)


def unscheduled(schedule: AutoRestarts) -> AutoRestarts:
    """Nothing is due any more (the instance left FAILED another way, or restarts were turned off)."""
    return replace(schedule, next_attempt_ms=None)
