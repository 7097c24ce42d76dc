#!/usr/bin/env bash
# Regenerates plugins/transforms/tests/unit/java_expected.json: compiles TransformOracle.java
# against Apache Kafka's jars and runs it on cases.json (from make_cases.py). Run by hand after
# changing the cases;
# the unit tests only read the committed output and never run Java.
#
#   bash tests/java_oracle/generate.sh            # jars from .cache/kafka-4.3.1/libs
#   KAFKA_LIBS=/path/to/kafka/libs bash tests/java_oracle/generate.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
libs=${KAFKA_LIBS:-$repo/.cache/kafka-4.3.1/libs}
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
javac -d "$build" -cp "$libs/*" "$here/TransformOracle.java"
java -cp "$build:$libs/*" TransformOracle "$here/cases.json" \
    >"$repo/plugins/transforms/tests/unit/java_expected.json"
echo "wrote plugins/transforms/tests/unit/java_expected.json"
