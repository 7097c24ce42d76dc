"""What handlers receive by injection: the herder, the worker config, the loggers.

Handlers declare them with these aliases: named dependencies, exempt from validation because the
herder is a Protocol (litestar would otherwise try an ``isinstance`` check against it).
"""

from __future__ import annotations

from kconnect.herder.api import Herder
from kconnect.herder.loggers import Loggers
from kconnect.worker_config import WorkerConfig
from litestar.di import NamedDependency, Provide
from litestar.params import SkipValidation

HerderDep = NamedDependency[SkipValidation[Herder]]
"""The herder: the one front door to the connectors."""

WorkerConfigDep = NamedDependency[SkipValidation[WorkerConfig]]
"""The worker's configuration."""

LoggersDep = NamedDependency[SkipValidation[Loggers]]
"""The worker's logger levels (`/admin/loggers`), held by the herder."""


def provide(value: object) -> Provide:
    """A cached provider that always answers `value` (one object for the app's life)."""
    return Provide(lambda: value, use_cache=True, sync_to_thread=False)
