"""Kafka's `Loggers` (runtime/Loggers.java) over Python logging: the worker's logger levels.

The herder owns one `Loggers` per worker: `/admin/loggers` reads and sets levels through it
(``scope=worker``), and a distributed worker sets the levels it reads from the config topic
(``scope=cluster``, KIP-976) through it too, so ``last_modified`` tells every change apart.

Levels are shown and accepted with log4j's names: ``OFF FATAL ERROR WARN INFO DEBUG TRACE ALL``
(case-insensitive; Python's ``WARNING`` and ``CRITICAL`` are accepted too). ``root`` names the root
logger. A logger's ``last_modified`` is set only when a change actually alters its level.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from kconnect.errors import NotFoundError

log = logging.getLogger(__name__)

ROOT_LOGGER_NAME = "root"
TRACE = 5
"""Python has no TRACE level; log4j's TRACE maps to 5."""

_LEVELS: dict[str, int] = {
    "OFF": logging.CRITICAL + 50,
    "FATAL": logging.CRITICAL,
    "CRITICAL": logging.CRITICAL,
    "ERROR": logging.ERROR,
    "WARN": logging.WARNING,
    "WARNING": logging.WARNING,
    "INFO": logging.INFO,
    "DEBUG": logging.DEBUG,
    "TRACE": TRACE,
    "ALL": 1,
}
_NAMES: list[tuple[int, str]] = [
    (logging.CRITICAL + 50, "OFF"),
    (logging.CRITICAL, "FATAL"),
    (logging.ERROR, "ERROR"),
    (logging.WARNING, "WARN"),
    (logging.INFO, "INFO"),
    (logging.DEBUG, "DEBUG"),
    (TRACE, "TRACE"),
]


def level_name(level: int) -> str:
    """The log4j name of a Python level (a custom level takes the next standard one below it)."""
    for threshold, name in _NAMES:
        if level >= threshold:
            return name
    return "ALL"


def parse_level(text: str) -> int | None:
    """The Python level for a log4j (or Python) level name, or None if it is not one."""
    return _LEVELS.get(text.strip().upper())


class Loggers:
    """Reads and sets logger levels, remembering when each was last changed (epoch milliseconds).

    One instance per worker, held by the herder; the `/admin/loggers` controller and the herder's
    effect runner call it (both on the event loop; the lock guards against any other thread).
    """

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._last_modified: dict[str, int] = {}
        self._lock = threading.Lock()

    def all_levels(self) -> dict[str, tuple[str, int | None]]:
        """Loggers with an explicitly set level, and root: name -> (level, last_modified)."""
        result = {
            name: self._describe(name, logger)
            for name, logger in sorted(_current_loggers().items())
            if logger.level != logging.NOTSET
        }
        result[ROOT_LOGGER_NAME] = self._describe(ROOT_LOGGER_NAME, logging.getLogger())
        return result

    def level(self, name: str) -> tuple[str, int | None]:
        """One logger's effective level; NotFoundError if no such logger exists yet."""
        logger = logging.getLogger() if name == ROOT_LOGGER_NAME else _current_loggers().get(name)
        if logger is None:
            raise NotFoundError(f"Logger {name} not found.")
        return self._describe(name, logger)

    def set_level(self, namespace: str, level: int) -> list[str]:
        """Set `level` on `namespace` and every logger whose name starts with it; the sorted names.

        As Kafka does, the namespace's own logger is created if it does not exist yet, and a
        logger whose level already equals `level` keeps its last-modified time.
        """
        with self._lock:
            targets = self._targets(namespace)
            now = int(self._clock() * 1000)
            root_level = logging.getLogger().level
            for name, logger in targets.items():
                # Kafka compares with the logger's own level, or root's when it has none.
                current = logger.level if logger.level != logging.NOTSET else root_level
                if current != level:
                    self._last_modified[name] = now
                    logger.setLevel(level)
        log.info("Set level of %s to %s (%d loggers)", namespace, level_name(level), len(targets))
        return sorted(targets)

    def set_level_named(self, namespace: str, level_text: str) -> list[str]:
        """`set_level` with a level's name, as read from the config topic (Kafka's setWorkerLoggerLevel):
        an unknown name is logged with Kafka's warning and changes nothing."""
        level = parse_level(level_text)
        if level is None:
            log.warning("Ignoring request to set invalid level '%s' for namespace %s", level_text, namespace)
            return []
        return self.set_level(namespace, level)

    def _targets(self, namespace: str) -> dict[str, logging.Logger]:
        current = _current_loggers()
        if namespace == ROOT_LOGGER_NAME:
            return {**current, ROOT_LOGGER_NAME: logging.getLogger()}
        targets = {name: logger for name, logger in current.items() if name.startswith(namespace)}
        if namespace not in targets:
            targets[namespace] = logging.getLogger(namespace)
        return targets

    def _describe(self, name: str, logger: logging.Logger) -> tuple[str, int | None]:
        return level_name(logger.getEffectiveLevel()), self._last_modified.get(name)


def _current_loggers() -> dict[str, logging.Logger]:
    manager = logging.Logger.manager
    return {name: lg for name, lg in list(manager.loggerDict.items()) if isinstance(lg, logging.Logger)}
