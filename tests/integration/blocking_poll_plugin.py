"""A test-only kconnect plugin: a source connector whose task's `poll` blocks until `stop` wakes it.

This is the shape of many connectors ported from Java: `poll` waits on the external system (here a
`threading.Event`) and `stop`, called from another thread, wakes it. The task appends one line per
call to the file named by ``events.file`` (``<run> <event> <unix time>``), so a test can see when
each call happened, in which run, and that `stop` came once and no `poll` followed it.

`tests/integration/test_source_task_stop.py` installs this module under the name
`MODULE` on a worker's ``PYTHONPATH`` with a ``.dist-info`` holding its ``kconnect`` entry point
(`install`, through `tests.plugin_package`), which is how pip installs a third-party plugin.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Mapping
from pathlib import Path

from kconnect import ConfigDef, SourceConnector, SourceRecord, SourceTask, hookimpl
from kconnect.plugin_host import PluginRegistry

#: The module name the plugin is installed under, and its entry point's distribution.
MODULE = "kconnect_it_blocking_poll"
#: The connector key naming the events file.
EVENTS_FILE = "events.file"
#: The longest a poll blocks if nothing wakes it (so a broken stop cannot wedge the Spark task forever).
POLL_LIMIT_S = 120.0


class BlockingPollTask(SourceTask):
    """`poll` blocks until `stop`; each call is written to the events file."""

    def __init__(self) -> None:
        self._woken = threading.Event()
        self._lock = threading.Lock()
        self._run = uuid.uuid4().hex[:8]
        self._events: Path | None = None

    def start(self, config: Mapping[str, str]) -> None:
        """Remember the events file."""
        self._events = Path(config[EVENTS_FILE])
        self._write("start")

    def poll(self) -> list[SourceRecord] | None:
        """Block until `stop` is called (a poll after it is written down as a violation)."""
        if self._woken.is_set():
            self._write("poll-after-stop")
            return None
        self._write("poll")
        self._woken.wait(POLL_LIMIT_S)
        self._write("poll-returned")
        return None

    def stop(self) -> None:
        """Wake the blocked poll."""
        self._write("stop")
        self._woken.set()

    def _write(self, event: str) -> None:
        assert self._events is not None
        with self._lock, self._events.open("a", encoding="utf-8") as out:
            out.write(f"{self._run} {event} {time.time():.3f}\n")


class BlockingPollConnector(SourceConnector):
    """One task per connector, with the connector's config."""

    config_def = ConfigDef().define(
        EVENTS_FILE, type="STRING", importance="HIGH", documentation="Where the task writes its calls."
    )

    def start(self, config: Mapping[str, str]) -> None:
        """Keep the config for the task."""
        self._config = dict(config)

    def task_class(self) -> type[BlockingPollTask]:
        """The blocking task."""
        return BlockingPollTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        """One task."""
        return [dict(self._config)]

    def stop(self) -> None:
        """Nothing to release."""


@hookimpl
def register_connectors(registry: PluginRegistry) -> None:
    """Register the connector as ``BlockingPoll``."""
    registry.add(BlockingPollConnector, aliases=["BlockingPoll"])


def install(where: Path) -> Path:
    """Install this module as `MODULE` in the directory `where`, as pip would (`write_plugin`);
    returns `where` (put it on ``PYTHONPATH``: `plugin_env`)."""
    # Imported here: the installed copy of this module runs in workers, where `tests` is not importable.
    from tests.plugin_package import write_plugin

    return write_plugin(where, MODULE, Path(__file__).read_text(encoding="utf-8"), version="1.0")
