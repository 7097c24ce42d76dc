"""Unit tests of kconnect_java.connector's pure parts: the requests KIP-875's question and the answer
to a Java connector's offset read send, with a facade that records them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from kconnect.errors import ConnectError
from kconnect_java.connector import JavaConnector, alter_offsets


class RecordingFacade:
    """A facade that records requests and answers each with `answer`."""

    def __init__(self, answer: dict[str, Any]) -> None:
        self.answer = answer
        self.requests: list[dict[str, Any]] = []

    def call(self, request: dict[str, Any]) -> dict[str, Any]:
        """Record `request`."""
        self.requests.append(request)
        return self.answer

    def call_beside(self, request: dict[str, Any]) -> dict[str, Any]:
        """Record `request`."""
        return self.call(request)


class StoreContext:
    """A worker context whose offset reader answers from a dict keyed by the partition's ``file``."""

    def __init__(self, stored: Mapping[str, Mapping[str, Any]]) -> None:
        self.stored = stored

    def request_task_reconfiguration(self) -> None:
        """Not used here."""

    def raise_error(self, error: Exception) -> None:
        """Not used here."""

    @property
    def offset_storage_reader(self) -> StoreContext:
        """Itself: it reads offsets too."""
        return self

    def offsets(
        self, partitions: Sequence[Mapping[str, Any]]
    ) -> list[tuple[Mapping[str, Any], Mapping[str, Any] | None]]:
        """The stored offsets; KeyError for a partition without ``file``."""
        return [(p, self.stored.get(p["file"])) for p in partitions]


def test_source_offsets_go_as_partition_and_offset_pairs() -> None:
    facade = RecordingFacade({"answered": True})
    answered = alter_offsets(facade, "S", "1.0", False, {"name": "s", "x": "1"}, {_Key(file="a"): {"p": 3}})
    assert answered is True
    assert facade.requests == [
        {
            "op": "connector_alter_offsets",
            "class": "S",
            "version": "1.0",
            "name": "s",
            "config": {"name": "s", "x": "1"},
            "offsets": [{"partition": {"file": "a"}, "offset": {"p": 3}}],
        }
    ]


def test_sink_offsets_go_as_topic_partition_offset() -> None:
    facade = RecordingFacade({"answered": False})
    assert alter_offsets(facade, "K", "1.0", True, {"name": "k"}, {("t", 0): 5, ("t", 1): None}) is False
    assert facade.requests[0]["offsets"] == [
        {"topic": "t", "partition": 0, "offset": 5},
        {"topic": "t", "partition": 1, "offset": None},
    ]


def test_a_refusal_is_a_connect_error_with_the_connectors_message() -> None:
    facade = RecordingFacade({"refused": "Partition objects should contain the key 'filename'"})
    with pytest.raises(ConnectError) as refused:
        alter_offsets(facade, "S", "1.0", False, {}, {_Key(file="a"): None})
    assert str(refused.value) == "Partition objects should contain the key 'filename'"


def test_an_offset_read_is_answered_from_the_workers_reader() -> None:
    facade = RecordingFacade({})
    connector = JavaConnector(facade, "S", "1.0")
    connector.initialize(StoreContext({"a": {"position": 7}}))
    connector._deliver({"type": "offsets", "request": 3, "partitions": [{"file": "a"}, {"file": "b"}]})
    connector._deliver({"type": "offsets", "request": 4, "partitions": [{"other": "a"}]})
    first, second = facade.requests
    assert first == {"op": "connector_offsets_answer", "id": connector._id, "request": 3,
                     "offsets": [{"position": 7}, None]}  # fmt: skip
    assert (
        second["request"] == 4
        and "KeyError" not in second
        and second["error"].startswith("The worker could not read the offsets")
    )


class _Key(dict[str, Any]):
    """A hashable source partition, as the herder's `kconnect.herder.offsets.Partition`."""

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(sorted(self.items())))
