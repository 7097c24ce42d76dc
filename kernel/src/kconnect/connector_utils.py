"""Building blocks for connector authors (Kafka's ``org.apache.kafka.connect.util.ConnectorUtils``).

A connector's ``task_configs(max_tasks)`` usually splits a list of things to copy (tables, files,
topic partitions) among at most ``max_tasks`` tasks::

    from kconnect import group_partitions

    def task_configs(self, max_tasks):
        groups = group_partitions(sorted(self.tables), min(max_tasks, len(self.tables)))
        return [{**self.config, "tables": ",".join(group)} for group in groups]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def group_partitions(elements: Sequence[T], num_groups: int) -> list[list[T]]:
    """Split `elements` into `num_groups` groups of contiguous elements, as evenly as possible.

    Group sizes differ by at most one, the larger groups first, and the order of `elements` is kept
    (so sorted table names give each task an alphabetical run). There are always `num_groups` groups:
    with fewer elements than groups the last ones are empty, as in Kafka, so callers that must not
    start idle tasks pass ``min(max_tasks, len(elements))``. ValueError when `num_groups` is not
    positive (Kafka's IllegalArgumentException, with its text).
    """
    if num_groups <= 0:
        raise ValueError("Number of groups must be positive.")
    per_group, leftover = divmod(len(elements), num_groups)
    groups: list[list[T]] = []
    start = 0
    for index in range(num_groups):
        size = per_group + (1 if index < leftover else 0)
        groups.append(list(elements[start : start + size]))
        start += size
    return groups
