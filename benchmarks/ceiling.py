"""Scenario 6: the broker's own ceiling for the pipeline's records, to set the engines' rates against.

Kafka's own perf-test tools from the same jars as the broker (`kafka-producer-perf-test`, i.e.
``org.apache.kafka.tools.ProducerPerformance``, and ``ConsumerPerformance``) produce and consume
1,000,000 records of 102 bytes (a 100-byte line as JsonConverter writes it with schemas off) on a
one-partition topic of the same broker, with ``acks=all`` as Connect's producers use. The rates
are what the broker and a tuned Java client reach with no connector in between.

    tox -e bench -- ceiling.py
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from typing import Any

from engines import KafkaBroker, Progress, create_topic, fresh_topic
from kafka_broker import java_connect_classpath
from report import summarize

RECORDS = 1_000_000
RECORD_SIZE = 102


def _tool(main_class: str, *args: str) -> str:
    command = ["java", "-Xmx1g", "-cp", java_connect_classpath(fetch=False), main_class, *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{main_class} failed ({done.returncode}): {done.stderr[-2000:]}")
    return done.stdout


def produce_rate(broker: KafkaBroker, topic: str, records: int) -> float:
    """Records per second `ProducerPerformance` reaches (its final summary line)."""
    out = _tool(
        "org.apache.kafka.tools.ProducerPerformance",
        "--topic", topic,
        "--num-records", str(records),
        "--record-size", str(RECORD_SIZE),
        "--throughput", "-1",
        "--producer-props", f"bootstrap.servers={broker.bootstrap_servers}", "acks=all",
    )  # fmt: skip
    match = re.search(rf"{records} records sent, ([\d.]+) records/sec", out)
    if match is None:
        raise RuntimeError(f"no summary in ProducerPerformance's output: {out[-1000:]}")
    return float(match.group(1))


def consume_rate(broker: KafkaBroker, topic: str, records: int) -> float:
    """Records per second `ConsumerPerformance` reaches (``nMsg.sec`` of its result line)."""
    out = _tool(
        "org.apache.kafka.tools.ConsumerPerformance",
        "--bootstrap-server", broker.bootstrap_servers,
        "--topic", topic,
        "--num-records", str(records),
        "--timeout", "60000",
    )  # fmt: skip
    header, values = [line for line in out.splitlines() if line.strip()][-2:]
    fields = dict(
        zip((h.strip() for h in header.split(",")), (v.strip() for v in values.split(",")), strict=False)
    )
    return float(fields["nMsg.sec"])


def run_ceiling(
    broker: KafkaBroker, rounds: int, progress: Progress, records: int = RECORDS
) -> dict[str, Any]:
    """Scenario 6: produce and consume rates per round (one 'engine': Kafka's tools)."""
    raw: dict[str, list[float]] = {"produce_per_s": [], "consume_per_s": []}
    for r in range(rounds):
        topic = fresh_topic("ceiling")
        create_topic(broker, topic, 1)
        progress(f"ceiling, round {r + 1}/{rounds}: producing {records:,} records")
        raw["produce_per_s"].append(produce_rate(broker, topic, records))
        progress(f"ceiling, round {r + 1}/{rounds}: consuming them")
        raw["consume_per_s"].append(consume_rate(broker, topic, records))
        progress(f"  {raw['produce_per_s'][-1]:,.0f} produced/s, {raw['consume_per_s'][-1]:,.0f} consumed/s")
    return {"1 partition": {"kafka tools": raw}}


def main() -> int:
    """Run the scenario on a broker of its own and print the summary."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with KafkaBroker(heap="1g") as broker:
        print(json.dumps(summarize(run_ceiling(broker, args.rounds, print)), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
