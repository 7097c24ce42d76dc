"""`group_partitions`: Kafka's ``ConnectorUtils.groupPartitions`` for splitting work among tasks."""

from __future__ import annotations

import pytest
from kconnect import group_partitions

FIVE = [1, 2, 3, 4, 5]


@pytest.mark.parametrize(
    ("num_groups", "groups"),
    [
        (1, [[1, 2, 3, 4, 5]]),
        (2, [[1, 2, 3], [4, 5]]),
        (3, [[1, 2], [3, 4], [5]]),
        (4, [[1, 2], [3], [4], [5]]),
        (5, [[1], [2], [3], [4], [5]]),
        (7, [[1], [2], [3], [4], [5], [], []]),
    ],
)
def test_contiguous_groups_sizes_differ_by_at_most_one_larger_first(
    num_groups: int, groups: list[list[int]]
) -> None:
    assert group_partitions(FIVE, num_groups) == groups


def test_no_elements_gives_empty_groups() -> None:
    assert group_partitions([], 3) == [[], [], []]


def test_keeps_the_callers_order_and_any_sequence() -> None:
    assert group_partitions(("t3", "t1", "t2"), 2) == [["t3", "t1"], ["t2"]]
    assert group_partitions("abcd", 2) == [["a", "b"], ["c", "d"]]


@pytest.mark.parametrize("num_groups", [0, -1])
def test_groups_must_be_positive(num_groups: int) -> None:
    with pytest.raises(ValueError, match=r"^Number of groups must be positive\.$"):
        group_partitions(FIVE, num_groups)


def test_every_element_lands_in_exactly_one_group() -> None:
    elements = list(range(103))
    for num_groups in range(1, 120):
        groups = group_partitions(elements, num_groups)
        assert len(groups) == num_groups
        assert [e for group in groups for e in group] == elements
        sizes = [len(group) for group in groups]
        assert max(sizes) - min(sizes) <= 1 and sizes == sorted(sizes, reverse=True)
