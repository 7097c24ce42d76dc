"""What handlers receive by injection: the herder, the worker config, the loggers, the commit id.

Handlers declare them with these aliases; ``skip_validation`` because the herder is a Protocol
(litestar would otherwise try an ``isinstance`` check against it).
"""

from __future__ import annotations

from typing import Annotated

from kconnect.herder.api import Herder
from kconnect.rest.loggers import Loggers
from kconnect.worker_config import WorkerConfig
from litestar.di import Provide
from litestar.params import Dependency

HerderDep = Annotated[Herder, Dependency(skip_validation=True)]
"""The herder: the one front door to the connectors."""

WorkerConfigDep = Annotated[WorkerConfig, Dependency(skip_validation=True)]
"""The worker's configuration."""

LoggersDep = Annotated[Loggers, Dependency(skip_validation=True)]
"""The app's `/admin/loggers` state."""

CommitDep = Annotated[str, Dependency(skip_validation=True)]
"""The git commit kconnect runs from."""


def provide(value: object) -> Provide:
    """A cached provider that always answers `value` (one object for the app's life)."""
    return Provide(lambda: value, use_cache=True, sync_to_thread=False)
