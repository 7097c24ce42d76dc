"""Picks the task loop for a task spec: the one entry point executors call."""

from __future__ import annotations

from kconnect.executor import TaskSpec
from kconnect.plugin_host import PluginHost
from kconnect.runtime.control import TaskControl
from kconnect.runtime.sink_loop import SinkLoop
from kconnect.runtime.source_loop import SourceLoop


async def run_task(spec: TaskSpec, control: TaskControl, host: PluginHost | None = None) -> None:
    """Run the spec's task (source or sink loop) until STOPPED; raises the task's error if it fails."""
    plugins = host or PluginHost.load(disabled=spec.plugins_disabled or None)
    loop = SourceLoop(spec, control, plugins) if spec.kind == "source" else SinkLoop(spec, control, plugins)
    await loop.run()
