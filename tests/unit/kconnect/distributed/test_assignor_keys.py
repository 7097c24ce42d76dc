"""The assignor's keys: ConnectorTaskIds built in bulk are the class's own (issue 24)."""

from __future__ import annotations

import pickle

import pytest
from kconnect.distributed.assignor.keys import Keys
from kconnect.distributed.protocol import ConnectorsAndTasks
from kconnect.model import ConnectorTaskId as T

KEYS = [("b", 1), ("a", 0), ("a", 300), ("long-connector-name", 7)]


def test_ids_built_in_bulk_equal_hash_order_and_print_as_the_classs_own() -> None:
    built = T.many(KEYS)
    called = tuple(T(c, i) for c, i in KEYS)
    assert built == called
    assert [hash(t) for t in built] == [hash(t) for t in called]
    assert sorted(built) == sorted(called)
    assert [repr(t) for t in built] == [repr(t) for t in called]
    assert [str(t) for t in built] == ["b-1", "a-0", "a-300", "long-connector-name-7"]
    assert pickle.loads(pickle.dumps(built)) == called
    assert list(built) == KEYS


def test_ids_stay_frozen_and_equal_their_keys() -> None:
    with pytest.raises(AttributeError):
        T.many(KEYS)[0].task = 5  # type: ignore[misc]
    assert list(T.many(KEYS)) == KEYS
    assert {T("a", 0)} == {("a", 0)}


def test_an_empty_set_of_keys_keeps_nothing_and_drops_nothing() -> None:
    work = ConnectorsAndTasks(("a",), (T("a", 0),))
    none = Keys(frozenset(), frozenset())
    assert none.within(work) == ConnectorsAndTasks()
    assert none.outside(work) is work
    assert Keys.of(work).within(work) == work
    assert Keys.of(work).outside(work) == ConnectorsAndTasks()
