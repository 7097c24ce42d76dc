"""The assignor's caches in `AssignorState` always equal what they save recomputing (issue 24).

The keys of the previous assignment are derived at the end of each round from what ran, what was
revoked and what was added, not keyed from the assignment again, and marked as configured work when
members ran what was assigned; the configured work's keys are reused while the config is the same.
The pinned history's every round checks all three.
"""

from __future__ import annotations

from typing import Any

import pytest
from kconnect.distributed import assignor
from kconnect.distributed.assignor import AssignorState, ConfiguredWork, RoundResult
from kconnect.distributed.assignor.keys import Keys
from kconnect.distributed.assignor.state import ConfiguredKeys
from kconnect.distributed.protocol import ConnectorsAndTasks
from kconnect.model import ConnectorTaskId as T

from tests.unit.kconnect.distributed import test_assignor
from tests.unit.kconnect.distributed.test_assignor_pinned import history


def test_every_rounds_cached_keys_are_those_of_its_assignment_and_config(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    checked = within = 0

    def checking_assign(**kwargs: Any) -> RoundResult:
        nonlocal checked, within
        result = assignor.assign(**kwargs)
        state = result.state
        if state.assigned_keys is not None:
            assert state.assigned_keys.assignment is state.previous_assignment
            assert state.assigned_keys.keys == Keys.of(state.previous_assignment)
            configured = kwargs["configured"]
            fresh = ConfiguredKeys.of(configured, None)
            assert state.configured_keys == fresh
            assert state.configured_keys.tasks == fresh.tasks
            if state.assigned_keys.within is not None:
                assert state.assigned_keys.within is state.configured_keys
                assert set(state.previous_assignment.connectors) <= fresh.connectors
                assert Keys.of(state.previous_assignment).tasks <= fresh.tasks
                within += 1
            checked += 1
        return result

    monkeypatch.setattr(test_assignor, "assign", checking_assign)
    history()
    assert checked > 40
    assert 0 < within < checked


def test_a_state_given_another_assignment_keys_that_one() -> None:
    round_ = test_assignor.Cluster(ConfiguredWork(1, {"a": 2}))
    round_.join("w1")
    round_.round()
    other = ConnectorsAndTasks(("b",), (T("b", 0),))
    state = AssignorState(**{**vars(round_.state), "previous_assignment": other})
    assert state.previous_keys() == Keys(frozenset({"b"}), frozenset({("b", 0)}))


def test_configured_keys_are_rebuilt_when_the_counts_change_at_the_same_offset() -> None:
    first = ConfiguredKeys.of(ConfiguredWork(3, {"a": 2}), None)
    assert ConfiguredKeys.of(ConfiguredWork(3, {"a": 2}), first) is first
    changed = ConfiguredKeys.of(ConfiguredWork(3, {"a": 1}), first)
    assert changed.tasks == {("a", 0)}
    assert ConfiguredKeys.of(ConfiguredWork(4, {"a": 2}), first).config.offset == 4
