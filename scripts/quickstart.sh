#!/usr/bin/env bash
# Set everything up on a fresh machine and run the quickstart end to end:
# a virtualenv with kconnect and its bundled plugins, Apache Kafka's jars from Maven Central,
# then file source -> Kafka -> file sink through Spark with 100,000 lines.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${KCONNECT_VENV:-.venv}"
if [ ! -x "$VENV/bin/python" ]; then
    echo "==> creating virtualenv $VENV"
    python3 -m venv "$VENV"
fi
echo "==> installing kconnect and its plugins (first run downloads pyspark: a few minutes)"
# Every version from the lock (requirements.lock), as the tests install them.
"$VENV/bin/python" -m pip install --quiet --constraint requirements.lock pip
"$VENV/bin/python" -m pip install --quiet --constraint requirements.lock -e kernel -e rest -e ctl -e plugins/converters -e plugins/file -e plugins/spark -e plugins/basic_auth -e plugins/transforms -e plugins/config_providers -e plugins/metrics -e plugins/jdbc -e plugins/schema_registry -e plugins/storage -e plugins/testkit -e plugins/dashboard -e plugins/java
echo "==> fetching Apache Kafka from Maven Central"
"$VENV/bin/python" scripts/kafka_broker.py fetch
exec "$VENV/bin/python" scripts/quickstart.py "$@"
