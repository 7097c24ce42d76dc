"""KIP-976 cluster-wide logger levels on the herder side: the reducer's rule, the worker's `Loggers`,
and scope=cluster on a standalone worker (the whole cluster)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator

import pytest
from kconnect.herder import events as ev
from kconnect.herder.loggers import Loggers
from kconnect.herder.machine import apply
from kconnect.herder.state import HerderState, Owned
from kconnect.model import ConnectorTaskId
from kconnect.plugin_host import PluginHost

from tests.unit.kconnect.herder.herder_fakes import load_plugins, running_herder
from tests.unit.kconnect.herder.test_machine import STATES

NAMESPACE = "kconnect.test_cluster_logger_levels"


@pytest.fixture
def namespace() -> Iterator[str]:
    """A logger namespace of this module, its levels reset afterwards."""
    yield NAMESPACE
    for name, logger in list(logging.Logger.manager.loggerDict.items()):
        if name.startswith(NAMESPACE) and isinstance(logger, logging.Logger):
            logger.setLevel(logging.NOTSET)


# --- the reducer: a level read from the config topic is set on this worker, nothing else changes --------


def _distributed() -> HerderState:
    """A distributed worker that owns nothing."""
    return HerderState("w2:8083", owned=Owned(frozenset(), frozenset({ConnectorTaskId("c", 0)})))


READERS: dict[str, Callable[[], HerderState]] = {
    "empty standalone": lambda: HerderState("w1:8083"),
    "distributed owning nothing": _distributed,
    **STATES,
}


@pytest.mark.parametrize("reader", list(READERS))
@pytest.mark.parametrize("level", ["DEBUG", "trace", "NOT-A-LEVEL"])
def test_a_level_read_is_set_and_changes_no_connector(reader: str, level: str) -> None:
    before = READERS[reader]()
    after, effects = apply(before, ev.LoggerLevelRead("org.x", level))
    assert after == before
    assert effects == [ev.SetLoggerLevel("org.x", level)]


# --- the worker's Loggers: a level by its name, as the effect runner sets it ----------------------------


@pytest.mark.parametrize(("text", "expected"), [("DEBUG", "DEBUG"), ("trace", "TRACE"), (" error ", "ERROR")])
def test_set_level_named(namespace: str, text: str, expected: str) -> None:
    loggers = Loggers(clock=lambda: 1700000000.0)
    assert loggers.set_level_named(namespace, text) == [namespace]
    assert loggers.level(namespace) == (expected, 1700000000000)


def test_an_unknown_level_name_is_ignored_with_kafkas_warning(
    namespace: str, caplog: pytest.LogCaptureFixture
) -> None:
    loggers = Loggers()
    before = loggers.level("root")
    with caplog.at_level(logging.WARNING, logger="kconnect.herder.loggers"):
        assert loggers.set_level_named(namespace, "LOUD") == []
    assert f"Ignoring request to set invalid level 'LOUD' for namespace {namespace}" in caplog.messages
    assert namespace not in loggers.all_levels()
    assert loggers.level("root") == before


# --- standalone: this worker is the whole cluster, as in Kafka --------------------------------------------


@pytest.fixture(scope="module")
def plugins() -> PluginHost:
    return load_plugins()


async def test_standalone_sets_the_level_on_itself(plugins: PluginHost, namespace: str) -> None:
    async with running_herder(plugins) as (herder, _):
        await herder.set_cluster_logger_level(namespace, "DEBUG")
        level, modified = herder.loggers.level(namespace)
        assert level == "DEBUG" and isinstance(modified, int)
        assert logging.getLogger(namespace).getEffectiveLevel() == logging.DEBUG
