"""The test harness every test folder shares, `tests/` and each plugin's `plugins/<name>/tests/`.

The fixtures (a real Kafka broker, schema registry, HDFS, S3, Spark, workers) and the hook that fails a
skip under CI live in `tests.harness` and `tests.integration.harness`; registering them here, at the
checkout's root, makes them reach the plugins' folders too.
"""

pytest_plugins = ["tests.harness", "tests.integration.harness"]
