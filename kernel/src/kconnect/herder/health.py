"""`GET /health` for a worker: starting, healthy or unhealthy, with Kafka's messages (KIP-1017)."""

from __future__ import annotations

from kconnect.executor import Executor
from kconnect.herder.api import WorkerHealth

HEALTHY_MESSAGE = "Worker has completed startup and is ready to handle requests."
STARTING_MESSAGE = "Worker is still starting up."
UNHEALTHY_MESSAGE = "The worker's executor failed to start"


def worker_health(executor: Executor, loaded: bool) -> WorkerHealth:
    """Starting until the stores are `loaded` and the executor can run tasks, then healthy;
    unhealthy when the executor could not start (e.g. Spark failed), with its reason."""
    error = executor.startup_error()
    if error is not None:
        return WorkerHealth("unhealthy", f"{UNHEALTHY_MESSAGE}: {error}")
    if loaded and executor.ready():
        return WorkerHealth("healthy", HEALTHY_MESSAGE)
    if loaded:
        return WorkerHealth("starting", f"{STARTING_MESSAGE} Waiting for the {executor.name} executor.")
    return WorkerHealth("starting", STARTING_MESSAGE)
