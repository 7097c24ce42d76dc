"""A Java connector instance as the worker sees a Python one: the object behind a `JavaPlugin` call.

The worker's connector instances (`kconnect.herder.connectors`) call ``initialize(context)``,
``start(config)``, ``task_class()``, ``task_configs(max_tasks)`` and ``stop()`` on it, each in a
thread of their own; here each call is one facade request, and the connector runs in the facade
JVM, in its plugin's class loader (``ConnectorInstances.java``). What the Java connector asks through
its ``ConnectorContext`` (``requestTaskReconfiguration``, ``raiseError``) is read back by one
daemon thread per started instance and handed to the worker's context.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

log = logging.getLogger(__name__)

#: How long one wait for the Java connector's context calls lasts; the reader loops until stopped.
EVENT_WAIT_MS = 1000


class Facade(Protocol):
    """The facade JVM as this module calls it (`kconnect_java.jvm.FacadeJvm`)."""

    def call(self, request: dict[str, Any]) -> dict[str, Any]:
        """One request, serialized with the others."""

    def call_beside(self, request: dict[str, Any]) -> dict[str, Any]:
        """One thread-safe request that may wait, beside the others."""


class ConnectorContext(Protocol):
    """The worker's context of one connector instance (`kconnect.herder.connectors._Context`)."""

    def request_task_reconfiguration(self) -> None:
        """Ask for `task_configs` again."""

    def raise_error(self, error: Exception) -> None:
        """Fail the connector."""


class JavaConnectorError(RuntimeError):
    """The Java connector raised (``raiseError``): the message is the Java stack trace."""


@dataclass(frozen=True)
class JavaTaskClass:
    """The Java task class a connector names: the worker writes ``java_class_names[0]`` as ``task.class``."""

    name: str

    @property
    def java_class_names(self) -> tuple[str, ...]:
        """The class name, as `kconnect.plugin_registry.shown_class_name` reads it."""
        return (self.name,)


class JavaConnector:
    """One running instance of a Java connector class (one version of it) in the facade JVM."""

    def __init__(self, facade: Facade, class_name: str, version: str) -> None:
        self._facade = facade
        self._class_name = class_name
        self._version = version
        self._id = f"{class_name}-{uuid.uuid4().hex}"
        self._context: ConnectorContext | None = None
        self._task_class = ""
        self._stopped = threading.Event()

    def initialize(self, context: ConnectorContext) -> None:
        """Keep the worker's context: the Java connector's context calls are handed to it."""
        self._context = context

    def start(self, config: Mapping[str, str]) -> None:
        """Instantiate the Java connector, initialize it and call its ``start(config)``."""
        request = {
            "op": "connector_start",
            "id": self._id,
            "class": self._class_name,
            "version": self._version,
            "config": {k: v for k, v in config.items() if v is not None},
        }
        self._task_class = str(self._facade.call(request)["task_class"])
        threading.Thread(target=self._read_events, name=f"kconnect-java-{self._id}", daemon=True).start()

    def task_class(self) -> JavaTaskClass:
        """The connector's Java task class (its name is what the task configs carry)."""
        return JavaTaskClass(self._task_class)

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        """The Java connector's ``taskConfigs(max_tasks)``."""
        answer = self._facade.call({"op": "connector_task_configs", "id": self._id, "max_tasks": max_tasks})
        return [{str(k): str(v) for k, v in config.items()} for config in answer["configs"]]

    def stop(self) -> None:
        """The Java connector's ``stop()``; the instance is forgotten in the JVM."""
        self._stopped.set()
        self._facade.call({"op": "connector_stop", "id": self._id})

    def _read_events(self) -> None:
        """Event thread: hand the Java context's calls to the worker's context until stopped."""
        request = {"op": "connector_events", "id": self._id, "wait_ms": EVENT_WAIT_MS}
        while not self._stopped.is_set():
            try:
                answer = self._facade.call_beside(request)
            except Exception:
                if not self._stopped.is_set():  # a JVM gone after a stop is expected, not news
                    log.exception("Java connector %s: its context can no longer be read", self._class_name)
                return
            if answer.get("gone"):
                return
            for event in answer.get("events") or ():
                self._deliver(event)

    def _deliver(self, event: Mapping[str, Any]) -> None:
        if self._context is None or self._stopped.is_set():
            return
        if event.get("type") == "reconfigure":
            self._context.request_task_reconfiguration()
        elif event.get("type") == "error":
            self._context.raise_error(JavaConnectorError(str(event.get("trace", ""))))
