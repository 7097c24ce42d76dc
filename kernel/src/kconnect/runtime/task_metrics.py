"""A task loop's metrics, with Kafka Connect's groups and names, gathered where the task runs.

Each loop owns one `TaskMetrics`, counts what it does (cheap additions on the loop's own thread)
and sends a `snapshot` to the worker over the control channel every `REPORT_INTERVAL_S` and when
it ends (`MetricsReporter`). The worker keeps the last snapshot of each task; a metrics REST
extension serves them. Kafka's rates (``source-record-poll-rate``...) are not computed here:
their totals are, and a scraper derives rates from totals, as Prometheus does.

Groups and names (Kafka's): ``connector-task-metrics``, ``source-task-metrics``,
``sink-task-metrics``, ``task-error-metrics``.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field

from kconnect.runtime.error_handling import ErrorCounts

#: How often a running loop sends its metrics to the worker.
REPORT_INTERVAL_S = 1.0

#: A snapshot: group -> metric name -> value.
MetricsSnapshot = Mapping[str, Mapping[str, float]]


@dataclass
class Timing:
    """Durations of one repeated operation, in ms: count, sum and maximum."""

    count: int = 0
    total_ms: float = 0.0
    max_ms: float = 0.0

    def add(self, started: float) -> None:
        """One operation that began at monotonic time `started` ended now."""
        elapsed = (time.monotonic() - started) * 1000
        self.count += 1
        self.total_ms += elapsed
        self.max_ms = max(self.max_ms, elapsed)

    @property
    def avg_ms(self) -> float:
        """Mean duration; 0 before the first operation."""
        return self.total_ms / self.count if self.count else 0.0


@dataclass
class TaskMetrics:
    """Counters of one task run; the loop updates them, `snapshot` names them as Kafka does."""

    kind: str
    """``source`` or ``sink``."""
    errors: ErrorCounts = field(default_factory=ErrorCounts)
    #: Records the task returned from poll (source) or the loop read from Kafka (sink).
    records_in: int = 0
    #: Records Kafka acknowledged (source) or `put` accepted (sink).
    records_out: int = 0
    #: Records handed on and not yet acknowledged (source) or read and not yet put (sink), now.
    active: Callable[[], int] = lambda: 0
    batches: Timing = field(default_factory=Timing)
    batch_size_max: int = 0
    batch_size_total: int = 0
    commits: Timing = field(default_factory=Timing)
    commit_failures: int = 0
    partitions: Callable[[], int] = lambda: 0
    dlq_requests: Callable[[], int] = lambda: 0
    dlq_failures: Callable[[], int] = lambda: 0

    def batch(self, started: float, size: int) -> None:
        """A poll (source) or a put (sink) of `size` records that began at `started` returned."""
        self.batches.add(started)
        self.batch_size_total += size
        self.batch_size_max = max(self.batch_size_max, size)

    def commit(self, started: float, ok: bool) -> None:
        """An offset commit that began at `started` ended."""
        self.commits.add(started)
        if not ok:
            self.commit_failures += 1

    def snapshot(self) -> dict[str, dict[str, float]]:
        """Every metric by group, with Kafka's names."""
        commits = self.commits.count
        succeeded = commits - self.commit_failures
        failed_share = 100.0 * self.commit_failures / commits if commits else 0.0
        batches = self.batches.count
        snapshot: dict[str, dict[str, float]] = {
            "connector-task-metrics": {
                "batch-size-max": self.batch_size_max,
                "batch-size-avg": self.batch_size_total / batches if batches else 0.0,
                "offset-commit-avg-time-ms": self.commits.avg_ms,
                "offset-commit-max-time-ms": self.commits.max_ms,
                "offset-commit-success-percentage": 100.0 * succeeded / commits if commits else 0.0,
                "offset-commit-failure-percentage": failed_share,
            },
            "task-error-metrics": {
                "total-record-errors": self.errors.failures,
                "total-record-failures": self.errors.failures + self.errors.retries,
                "total-records-skipped": self.errors.skipped,
                "total-retries": self.errors.retries,
                "total-errors-logged": self.errors.errors_logged,
                "deadletterqueue-produce-requests": self.dlq_requests(),
                "deadletterqueue-produce-failures": self.dlq_failures(),
                "last-error-timestamp": self.errors.last_error_ms,
            },
        }
        if self.kind == "source":
            snapshot["source-task-metrics"] = {
                "source-record-poll-total": self.records_in,
                "source-record-write-total": self.records_out,
                "source-record-active-count": self.active(),
                "poll-batch-avg-time-ms": self.batches.avg_ms,
                "poll-batch-max-time-ms": self.batches.max_ms,
            }
        else:
            snapshot["sink-task-metrics"] = {
                "sink-record-read-total": self.records_in,
                "sink-record-send-total": self.records_out,
                "sink-record-active-count": self.active(),
                "partition-count": self.partitions(),
                "offset-commit-completion-total": succeeded,
                "offset-commit-seq-no": commits,
                "put-batch-avg-time-ms": self.batches.avg_ms,
                "put-batch-max-time-ms": self.batches.max_ms,
            }
        return snapshot


class MetricsReporter:
    """Sends a loop's metrics to the worker at most every `REPORT_INTERVAL_S`, and once at the end."""

    def __init__(self, metrics: TaskMetrics, send: Callable[[MetricsSnapshot], Awaitable[None]]) -> None:
        self.metrics = metrics
        self._send = send
        self._next = 0.0

    async def maybe_report(self) -> None:
        """Report if the interval has passed since the last report."""
        now = time.monotonic()
        if now >= self._next:
            self._next = now + REPORT_INTERVAL_S
            await self._send(self.metrics.snapshot())

    async def final_report(self) -> None:
        """Report the last figures; a worker that cannot be told any more is no reason to fail."""
        try:
            await self._send(self.metrics.snapshot())
        except Exception:  # the channel may be gone when a task ends because the worker went away
            pass
