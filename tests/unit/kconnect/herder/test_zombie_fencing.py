"""Which producers the leader fences before a connector's new task configs (KIP-618 zombie fencing).

The fencing itself (InitProducerId per id) is the real broker's: see
`tests/integration/test_exactly_once_source.py`.
"""

from __future__ import annotations

import pytest
from kconnect.herder.zombie_fencing import ZombieFencing
from kconnect.plugin_host import PluginHost

WORKER = {"group.id": "cluster", "exactly.once.source.support": "enabled"}
SOURCE = {"connector.class": "FileStreamSource"}
SINK = {"connector.class": "FileStreamSink"}


@pytest.fixture(scope="module")
def plugins() -> PluginHost:
    return PluginHost.load()


@pytest.mark.parametrize(
    ("worker", "config", "previous", "new", "fenced"),
    [
        (WORKER, SOURCE, 3, 2, ["cluster-c-0", "cluster-c-1", "cluster-c-2"]),
        (WORKER, SOURCE, 2, 2, ["cluster-c-0", "cluster-c-1"]),  # the work may move between ids
        (WORKER, SOURCE, 1, 3, ["cluster-c-0"]),
        (WORKER, SOURCE, 1, 1, []),  # the new task fences its only predecessor itself
        (WORKER, SOURCE, 0, 2, []),  # a first generation has no predecessor
        (WORKER, SINK, 3, 2, []),
        (WORKER, {"connector.class": "NoSuchConnector"}, 3, 2, []),
        (WORKER, None, 3, 2, []),  # deleted meanwhile
        ({**WORKER, "exactly.once.source.support": "preparing"}, SOURCE, 3, 2, []),
        ({"group.id": "cluster"}, SOURCE, 3, 2, []),
    ],
)
def test_the_previous_generation_of_a_source_connector_is_fenced_under_exactly_once_support(
    plugins: PluginHost,
    worker: dict[str, str],
    config: dict[str, str] | None,
    previous: int,
    new: int,
    fenced: list[str],
) -> None:
    assert ZombieFencing(worker, plugins).transactional_ids("c", config, previous, new) == fenced
