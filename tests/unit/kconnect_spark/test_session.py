"""The SparkSession settings: user ``spark.*`` keys pass through, task retries and speculation never do."""

from __future__ import annotations

import logging

import pytest
from kconnect_spark.session import spark_conf


def test_defaults_run_each_task_exactly_once() -> None:
    conf = spark_conf({})
    assert conf["spark.master"] == "local[32]"
    assert conf["spark.task.maxFailures"] == "1" and conf["spark.speculation"] == "false"


def test_user_retries_and_speculation_are_overridden_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="kconnect_spark.session"):
        conf = spark_conf(
            {
                "spark.speculation": "true",
                "spark.task.maxFailures": "4",
                "spark.master": "local[2, 3]",
                "spark.executor.memory": "2g",
                "bootstrap.servers": "k:9092",
            }
        )
    assert conf["spark.speculation"] == "false"
    assert conf["spark.task.maxFailures"] == "1"
    assert conf["spark.master"] == "local[2]"
    assert conf["spark.executor.memory"] == "2g" and "bootstrap.servers" not in conf
    warnings = [r.getMessage() for r in caplog.records]
    assert any("Ignoring spark.speculation=true" in w for w in warnings), warnings
    assert any("Ignoring spark.task.maxFailures=4" in w for w in warnings), warnings
    assert any("spark.master=local[2, 3]" in w and "spark.master=local[2]" in w for w in warnings), warnings


def test_settings_that_already_forbid_retries_need_no_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="kconnect_spark.session"):
        conf = spark_conf(
            {"spark.speculation": "false", "spark.task.maxFailures": "1", "spark.master": "local[3,1]"}
        )
    assert conf["spark.master"] == "local[3]"
    assert not caplog.records
