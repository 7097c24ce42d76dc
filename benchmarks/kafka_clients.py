"""aiokafka against confluent-kafka (librdkafka, in C): the CPU one process spends per message.

Issue 24 asks whether a faster Kafka client would move the data path before choosing one. kconnect's
task hosts use aiokafka; confluent-kafka wraps librdkafka, whose fetching, decompression and batching
run in C threads. This measures each client the way kconnect's task loops use aiokafka, on one real
broker, in the same process, one after the other:

- ``produce``: N values of 100 bytes into one partition. aiokafka as ``BatchSender`` sends them
  (``create_batch``, ``append`` per record, ``send_batch`` when full, kconnect's producer settings:
  ``acks=all``, ``linger_ms=5``, 256 KiB batches); confluent-kafka with ``produce`` per record and a
  ``poll(0)`` per thousand, the same acks, linger and batch size, then ``flush``;
- ``consume``: the same N messages read back from the start, as the sink loop reads them
  (aiokafka ``getmany`` of up to 4,096 records; confluent-kafka ``consume(4096)``), touching each
  message's key, value, headers, offset and timestamp, which building a ``SinkRecord`` reads.

The figure is the process's CPU time per message (``time.process_time``: every thread, librdkafka's
included), the median of ``--rounds``. It is not the wall time: the broker's share is not counted.
CPU time moves less than wall time with what else runs on the machine, but it still moves (caches,
frequency), so compare the two clients within one run.

    tox -e bench -- kafka_clients.py                       # 500,000 messages, 3 rounds
    tox -e bench -- kafka_clients.py --messages 100000 --rounds 1

Writes ``docs/performance/kafka_clients.{json,md,png}`` (``--out`` elsewhere).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "scripts"))
from kafka_broker import KafkaBroker  # noqa: E402
from report import bar_chart, summarize, table  # noqa: E402

VALUE = b"x" * 100
BATCH_BYTES = 256 * 1024
FETCH_RECORDS = 4096
CLIENTS = (("aiokafka", "aiokafka 0.14 (asyncio)"), ("confluent", "confluent-kafka (librdkafka, C)"))


def _create_topic(bootstrap: str, topic: str) -> None:
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})  # kept until the result: it dies with its handle
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(30)


async def _aiokafka_produce(bootstrap: str, topic: str, count: int) -> None:
    from aiokafka import AIOKafkaProducer

    producer = AIOKafkaProducer(
        bootstrap_servers=bootstrap, acks="all", linger_ms=5, max_batch_size=BATCH_BYTES
    )
    await producer.start()
    try:
        pending = []
        batch = producer.create_batch()
        for _ in range(count):
            if batch.append(key=None, value=VALUE, timestamp=None) is None:
                pending.append(await producer.send_batch(batch, topic, partition=0))
                batch = producer.create_batch()
                batch.append(key=None, value=VALUE, timestamp=None)
        pending.append(await producer.send_batch(batch, topic, partition=0))
        await asyncio.gather(*pending)
    finally:
        await producer.stop()


def _confluent_produce(bootstrap: str, topic: str, count: int) -> None:
    from confluent_kafka import Producer

    producer = Producer(
        {
            "bootstrap.servers": bootstrap,
            "acks": "all",
            "linger.ms": 5,
            "batch.size": BATCH_BYTES,
            "queue.buffering.max.messages": 1_000_000,
        }
    )
    for n in range(count):
        producer.produce(topic, VALUE, partition=0)
        if n % 1000 == 999:
            producer.poll(0)
    if producer.flush(60) != 0:
        raise RuntimeError("confluent-kafka did not deliver every message within 60 s")


async def _aiokafka_consume(bootstrap: str, topic: str, count: int) -> None:
    from aiokafka import AIOKafkaConsumer, TopicPartition

    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    await consumer.start()
    try:
        partition = TopicPartition(topic, 0)
        consumer.assign([partition])
        await consumer.seek_to_beginning(partition)
        seen = 0
        while seen < count:
            fetched = await consumer.getmany(timeout_ms=1000, max_records=FETCH_RECORDS)
            for messages in fetched.values():
                for message in messages:
                    _touch(message.key, message.value, message.headers, message.offset, message.timestamp)
            seen += sum(map(len, fetched.values()))
    finally:
        await consumer.stop()


def _confluent_consume(bootstrap: str, topic: str, count: int) -> None:
    from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": f"{topic}-read", "enable.auto.commit": False}
    )
    try:
        consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
        seen = 0
        while seen < count:
            messages = consumer.consume(FETCH_RECORDS, timeout=1.0)
            for message in messages:
                if message.error():
                    raise RuntimeError(str(message.error()))
                _touch(
                    message.key(), message.value(), message.headers(), message.offset(), message.timestamp()
                )
            seen += len(messages)
    finally:
        consumer.close()


def _touch(*fields: Any) -> None:
    """What building a record reads of a message (a call, as the record constructor is one)."""


def _aiokafka_produce_run(bootstrap: str, topic: str, count: int) -> None:
    asyncio.run(_aiokafka_produce(bootstrap, topic, count))


def _aiokafka_consume_run(bootstrap: str, topic: str, count: int) -> None:
    asyncio.run(_aiokafka_consume(bootstrap, topic, count))


Work = Callable[[str, str, int], None]
#: Each client's (produce, consume), both taking (bootstrap, topic, count).
WORK: dict[str, tuple[Work, Work]] = {
    "aiokafka": (_aiokafka_produce_run, _aiokafka_consume_run),
    "confluent": (_confluent_produce, _confluent_consume),
}


def _cpu_us_per_message(work: Work, bootstrap: str, topic: str, count: int) -> float:
    started = time.process_time()
    work(bootstrap, topic, count)
    return (time.process_time() - started) * 1e6 / count


def one_round(bootstrap: str, count: int) -> dict[str, dict[str, float]]:
    """Each client's CPU µs per message producing `count` values into a fresh topic, then reading them."""
    figures: dict[str, dict[str, float]] = {}
    for client, _ in CLIENTS:
        topic = f"clients-{client}-{uuid.uuid4().hex[:8]}"
        _create_topic(bootstrap, topic)
        produce, consume = WORK[client]
        figures[client] = {
            "produce_cpu_us": _cpu_us_per_message(produce, bootstrap, topic, count),
            "consume_cpu_us": _cpu_us_per_message(consume, bootstrap, topic, count),
        }
        print(
            f"  {client:9} produce {figures[client]['produce_cpu_us']:.2f} µs, "
            f"consume {figures[client]['consume_cpu_us']:.2f} µs of CPU per message",
            flush=True,
        )
    return figures


def main() -> int:
    """Start a broker, run the rounds, write the table, the chart and the raw figures."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--messages", type=int, default=500_000, help="messages per client and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=HERE.parent / "docs" / "performance" / "kafka_clients")
    args = parser.parse_args()
    raw: dict[str, dict[str, dict[str, list[float]]]] = {
        case: {client: {"cpu_us": []} for client, _ in CLIENTS} for case in ("produce", "consume")
    }
    with KafkaBroker(heap="1g") as broker:
        for n in range(args.rounds):
            print(f"round {n + 1}/{args.rounds}, {args.messages:,} messages", flush=True)
            for client, figures in one_round(broker.bootstrap_servers, args.messages).items():
                raw["produce"][client]["cpu_us"].append(figures["produce_cpu_us"])
                raw["consume"][client]["cpu_us"].append(figures["consume_cpu_us"])
    summary = summarize(raw)
    markdown = table(summary, [("cpu_us", "CPU per message", "µs", False)], "direction", CLIENTS)
    print(markdown)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(
        json.dumps({"messages": args.messages, "rounds": args.rounds, "summary": summary}, indent=2) + "\n"
    )
    args.out.with_suffix(".md").write_text(markdown)
    bar_chart(
        summary,
        [("cpu_us", "CPU µs per message (lower is better)")],
        f"One process's CPU per message, {args.messages:,} messages of 100 bytes",
        args.out.with_suffix(".png"),
        columns=CLIENTS,
    )
    print(f"wrote {args.out}.{{json,md,png}}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
