"""Spark task slots from the worker's settings (`kconnect_spark.slots`)."""

from __future__ import annotations

import os

import pytest
from kconnect_spark.slots import (
    local_threads,
    not_started_reason,
    task_slots,
    waiting_reason,
    watched_slots,
    without_slot,
)


@pytest.mark.parametrize(
    ("conf", "slots"),
    [
        ({"spark.master": "local"}, 1),
        ({"spark.master": "local[2]"}, 2),
        ({"spark.master": "local[32]"}, 32),
        ({"spark.master": "local[4,1]"}, 4),
        ({"spark.master": "local[*]"}, os.cpu_count()),
        ({"spark.master": "local[8]", "spark.task.cpus": "2"}, 4),
        ({"spark.master": "local-cluster[2, 3, 1024]"}, 6),
        ({"spark.master": "spark://h:7077", "spark.cores.max": "12"}, 12),
        (
            {"spark.master": "yarn", "spark.executor.instances": "3", "spark.executor.cores": "4"},
            12,
        ),
    ],
)
def test_slots_follow_the_master_and_the_core_settings(conf: dict[str, str], slots: int) -> None:
    assert task_slots(conf) == slots


def test_a_cluster_counts_the_slots_of_its_registered_executors_first() -> None:
    cluster = {"spark.master": "spark://h:7077"}
    assert task_slots(cluster, registered=6) == 6
    assert task_slots(cluster) is None and task_slots(cluster, registered=0) is None
    # spark.cores.max is a cap: a cluster may grant fewer cores; before executors register it is the guess
    capped = {**cluster, "spark.cores.max": "12", "spark.task.cpus": "2"}
    assert task_slots(capped, registered=3) == 3
    assert task_slots(capped, registered=0) == 6
    dynamic = {
        "spark.master": "yarn",
        "spark.dynamicAllocation.enabled": "true",
        "spark.executor.instances": "3",
        "spark.executor.cores": "4",
    }
    assert task_slots(dynamic, registered=2) is None


@pytest.mark.parametrize(
    ("master", "watched"),
    [
        ("local[4]", False),
        ("local", False),
        ("local-cluster[2, 1, 512]", False),
        ("spark://h:7077", True),
        ("yarn", True),
    ],
)
def test_only_cluster_slots_are_watched(master: str, watched: bool) -> None:
    assert watched_slots({"spark.master": master}) is watched
    assert not watched_slots({"spark.master": master, "spark.dynamicAllocation.enabled": "true"})


def test_non_local_masters_have_no_local_threads() -> None:
    assert local_threads("yarn") is None and local_threads("localhost") is None


def test_the_waiting_reason_names_both_counts() -> None:
    assert waiting_reason(2, 3).startswith(
        "Waiting for a Spark task slot: Spark has 2 task slots and 3 Spark tasks hosting "
        "connector tasks need one"
    )


@pytest.mark.parametrize(
    ("slots", "active", "pending", "waiting"),
    [
        (2, 2, [1, 2], []),  # every run has a slot, some are still starting
        (2, 3, [3], [3]),  # two run, the third waits
        (2, 3, [1, 2, 3], [3]),  # all started at once: Spark serves jobs in order
        (2, 5, [2, 4, 5], [5, 4, 2]),
        (0, 1, [1], [1]),
    ],
)
def test_the_latest_pending_runs_are_the_ones_without_a_slot(
    slots: int, active: int, pending: list[int], waiting: list[int]
) -> None:
    assert without_slot(slots, active, pending, lambda order: order) == waiting


def test_the_not_started_reason_says_how_long_and_what_is_known() -> None:
    assert not_started_reason(30, None, 3) == (
        "Spark has not started the task's Spark task 30 s after its job was submitted: it waits for "
        "a free task slot or executor (Spark has an unknown number of task slots and 3 Spark tasks "
        "hosting connector tasks need one)"
    )
    assert "4 task slots and 5 Spark tasks hosting connector tasks" in not_started_reason(30, 4, 5)
