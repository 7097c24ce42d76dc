"""Picks the task loop for a task spec: the one entry point executors call."""

from __future__ import annotations

import gc

from kconnect.executor import TaskSpec
from kconnect.plugin_host import PluginHost
from kconnect.runtime.control import TaskControl
from kconnect.runtime.sink_loop import SinkLoop
from kconnect.runtime.source_loop import SourceLoop

#: The task process's collector thresholds: a young collection every 20,000 allocations, not 700.
GC_THRESHOLDS = (20_000, 10, 10)
_settled = False


def settle_heap() -> None:
    """Tune the garbage collector of the process that runs task loops, when its first task is built.

    A record costs several allocations (the consumed message, the SinkRecord, its Headers, the
    converted values), so with Python's defaults the collector runs every few hundred records and
    its older generations walk everything the process holds: Spark's, aiokafka's and the plugins'
    objects, which live as long as the process. Freezing what exists after a task is built takes
    those out of every later collection, and a larger young generation makes collections rarer.
    Records are freed by reference counting as before; only cycles wait for a collection. Done
    once per process: a full collection takes a moment, and a host may start hundreds of tasks.
    """
    global _settled
    if _settled:
        return
    _settled = True
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


async def run_task(spec: TaskSpec, control: TaskControl, host: PluginHost | None = None) -> None:
    """Run the spec's task (source or sink loop) until STOPPED; raises the task's error if it fails."""
    plugins = host or PluginHost.load(disabled=spec.plugins_disabled or None)
    loop = SourceLoop(spec, control, plugins) if spec.kind == "source" else SinkLoop(spec, control, plugins)
    settle_heap()
    await loop.run()
