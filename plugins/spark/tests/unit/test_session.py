"""The SparkSession settings: user ``spark.*`` keys pass through, task retries and speculation never do."""

from __future__ import annotations

import logging
import sys

import pytest
from kconnect_spark.session import spark_conf, unreachable_control_host


def test_defaults_run_each_task_exactly_once() -> None:
    conf = spark_conf({})
    assert conf["spark.master"] == "local[32]"
    assert conf["spark.task.maxFailures"] == "1" and conf["spark.speculation"] == "false"


def test_the_driver_jvm_gets_the_quick_compiler_only_unless_java_tasks_may_run_in_it() -> None:
    assert spark_conf({})["spark.driver.extraJavaOptions"] == "-XX:TieredStopAtLevel=1"
    assert "spark.driver.extraJavaOptions" not in spark_conf({"plugin.path": "/opt/connectors"})
    assert "spark.driver.extraJavaOptions" in spark_conf({"plugin.path": " "})
    mine = {"plugin.path": "/opt/connectors", "spark.driver.extraJavaOptions": "-Dmine=1"}
    assert spark_conf(mine)["spark.driver.extraJavaOptions"] == "-Dmine=1"


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


def test_executors_run_this_interpreter_unless_pyspark_python_says_otherwise() -> None:
    assert spark_conf({}, environ={})["spark.pyspark.python"] == sys.executable
    assert spark_conf({}, environ={"PYSPARK_PYTHON": "/opt/venv/bin/python"})["spark.pyspark.python"] == (
        "/opt/venv/bin/python"
    )
    # Spark's precedence: the property before the environment variable
    props = {"spark.pyspark.python": "/srv/kconnect/bin/python"}
    conf = spark_conf(props, environ={"PYSPARK_PYTHON": "/opt/venv/bin/python"})
    assert conf["spark.pyspark.python"] == "/srv/kconnect/bin/python"


def test_a_cluster_master_drops_the_loopback_driver_address_unless_the_user_set_it() -> None:
    local = spark_conf({}, environ={})
    assert local["spark.driver.host"] == "127.0.0.1"
    cluster = spark_conf({"spark.master": "spark://spark-master:7077"}, environ={})
    assert "spark.driver.host" not in cluster and "spark.driver.bindAddress" not in cluster
    pinned = spark_conf(
        {"spark.master": "spark://127.0.0.1:7077", "spark.driver.host": "127.0.0.1"}, environ={}
    )
    assert pinned["spark.driver.host"] == "127.0.0.1"


@pytest.mark.parametrize(
    ("master", "control_host", "warned"),
    [
        ("local[4]", "127.0.0.1", False),
        ("spark://127.0.0.1:7077", "127.0.0.1", False),  # a cluster on this machine's loopback
        ("spark://localhost:7077", "localhost", False),
        ("spark://spark-master:7077", "10.0.0.5", False),
        ("spark://spark-master:7077", "127.0.1.1", True),  # Debian's hostname entry
        ("yarn", "localhost", True),
    ],
)
def test_a_loopback_control_host_with_a_remote_master_is_warned_about(
    master: str, control_host: str, warned: bool
) -> None:
    warning = unreachable_control_host({"spark.master": master}, control_host)
    assert (warning is not None) is warned
    if warning is not None:
        assert warning.startswith(f"executor.control.host is {control_host}, a loopback address")
