"""The worker process's event loop: uvloop when it is installed, asyncio's own otherwise.

uvicorn serves the REST API inside the worker's loop (`kconnect_rest.server`), next to the herder,
the stores and the executor's reports, so the loop the ``kconnect`` command runs the worker on is
the loop every request is served by. uvloop is a dependency of kconnect-rest where it has wheels
(not on Windows); without it the worker runs on asyncio's default loop, unchanged.

The Spark tasks that host connector tasks keep asyncio's loop: measured on the file pipeline,
uvloop saved no CPU per record there (aiokafka's and the task loops' Python work dominates).
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run(main: Coroutine[Any, Any, T]) -> T:
    """Run `main` to completion on a new uvloop loop, or with ``asyncio.run`` without uvloop.

    Called once per process by the ``kconnect`` command with the worker's ``run()``.
    """
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main)
    return uvloop.run(main)
