"""A Java connector instance as the worker sees a Python one: the object behind a `JavaPlugin` call.

The worker's connector instances (`kconnect.herder.connectors`) call ``initialize(context)``,
``start(config)``, ``task_class()``, ``task_configs(max_tasks)`` and ``stop()`` on it, each in a
thread of their own; here each call is one facade request, and the connector runs in the facade
JVM, in its plugin's class loader (``ConnectorInstances.java``). What the Java connector asks through
its ``ConnectorContext`` (``requestTaskReconfiguration``, ``raiseError``, and a source connector's
``offsetStorageReader()`` reads, which wait for an answer) is read back by one daemon thread per
instance, from before its ``start`` on, and handed to the worker's context. `alter_offsets` is
KIP-875's question to a STOPPED Java connector; `source_support` the exactly-once questions (KIP-618)
a distributed worker's validate asks a source connector.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from kconnect.errors import ConnectError
from kconnect.task import OffsetStorageReader

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

    @property
    def offset_storage_reader(self) -> OffsetStorageReader:
        """The connector's committed source offsets (`kconnect.connector.SourceConnectorContext`)."""


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
        """Instantiate and initialize the Java connector, read its context's calls from then on, and
        call its ``start(config)`` (which may read its offsets: the event thread answers them)."""
        create = {
            "op": "connector_create",
            "id": self._id,
            "class": self._class_name,
            "version": self._version,
            "name": str(config.get("name") or self._id),
        }
        self._facade.call(create)
        threading.Thread(target=self._read_events, name=f"kconnect-java-{self._id}", daemon=True).start()
        start = {"op": "connector_start", "id": self._id, "config": _strings(config)}
        try:
            self._task_class = str(self._facade.call(start)["task_class"])
        except Exception:
            self._stopped.set()  # the JVM forgot the instance: the event thread ends
            raise

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
        elif event.get("type") == "offsets":
            self._answer_offsets(self._context, event)

    def _answer_offsets(self, context: ConnectorContext, event: Mapping[str, Any]) -> None:
        """Answer the Java connector's read of its offsets from the worker's offset store."""
        answer: dict[str, Any] = {
            "op": "connector_offsets_answer",
            "id": self._id,
            "request": event["request"],
        }
        try:
            read = context.offset_storage_reader.offsets(list(event.get("partitions") or ()))
            answer["offsets"] = [offset for _partition, offset in read]
        except Exception as exc:
            log.warning("Java connector %s: its offsets could not be read: %s", self._class_name, exc)
            answer["error"] = f"The worker could not read the offsets: {exc}"
        self._facade.call_beside(answer)


def alter_offsets(
    facade: Facade,
    class_name: str,
    version: str,
    sink: bool,
    config: Mapping[str, str],
    offsets: Mapping[Any, Any],
) -> bool:
    """KIP-875: the Java connector's ``alterOffsets(config, offsets)`` on a fresh instance in its class
    loader, as Kafka's worker calls it before it writes altered or reset offsets.

    The herder calls it (`kconnect.herder.offsets`) with the parsed offsets: a sink's keyed by
    ``(topic, partition)``, a source's by partition maps (None: remove that offset). True when the
    connector checked and accepts them; a refusal (Java's ConnectException) raises `ConnectError`
    with the connector's message, as a Python connector refuses.
    """
    if sink:
        items = [{"topic": t, "partition": p, "offset": o} for (t, p), o in offsets.items()]
    else:
        items = [{"partition": dict(p), "offset": o} for p, o in offsets.items()]
    request = {
        "op": "connector_alter_offsets",
        "class": class_name,
        "version": version,
        "name": str(config.get("name") or ""),
        "config": _strings(config),
        "offsets": items,
    }
    answer = facade.call(request)
    if "refused" in answer:
        raise ConnectError(str(answer["refused"]))
    return bool(answer.get("answered"))


def source_support(
    facade: Facade, class_name: str, version: str, question: str, config: Mapping[str, str]
) -> str | None:
    """A fresh instance of the Java source connector asked ``exactlyOnceSupport(config)`` (`question`
    ``exactly_once``) or ``canDefineTransactionBoundaries(config)`` (``transaction_boundaries``), as
    Kafka's distributed herder asks it at validate: ``SUPPORTED``, ``UNSUPPORTED`` or None (what Java
    returned). What the connector threw is raised again with its message, which the validator quotes
    as Kafka does (`kconnect.herder.source_validation`)."""
    request = {
        "op": "source_support",
        "class": class_name,
        "version": version,
        "question": question,
        "config": _strings(config),
    }
    answer = facade.call(request)
    if "raised" in answer:
        raise JavaConnectorError(str(answer["raised"]))
    said = answer.get("answer")
    return None if said is None else str(said)


def _strings(config: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in config.items() if v is not None}
