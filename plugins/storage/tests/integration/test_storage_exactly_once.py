"""The storage sink's exactly-once delivery under failure, end to end (issue 19).

* SIGKILL of a standalone worker (and every Spark process it started) five times while HDFS files
  are being committed, restarted each time: every id is in exactly one committed file, file names
  are contiguous per partition, nothing staged is visible to readers and the consumer group's
  offsets never run ahead of the files;
* a rebalance moving partitions between two distributed workers while they write;
* HDFS frozen mid-stream: the task retries ``retry.backoff.ms`` apart, then FAILS naming the
  store's error; after the store is back a task restart resumes, exactly once. A short outage
  (back within the retries) never fails the task.

The records are the orders of ``conftest.py`` (JsonConverter envelopes) spread round robin over the
partitions; a partition's record count is a multiple of ``flush.size`` so that every record ends in a
committed file.
"""

from __future__ import annotations

import itertools
import re
import threading
import time
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from confluent_kafka import Consumer
from confluent_kafka import TopicPartition as KafkaPartition

from plugins.storage.tests.integration.conftest import (
    ORDERS,
    ORDERS_PARTITIONS,
    create_topic,
    order_value,
    produce,
)
from tests.integration.test_distributed import create, group_props, task_states, wait_healthy
from tests.worker_process import WorkerProcess, kill_worker_and_its_processes, stop_all, write_properties

pytestmark = pytest.mark.integration

PARQUET = "io.confluent.connect.hdfs.parquet.ParquetFormat"
#: A consumer that died with its worker leaves the group after this long, so a restart gets its partitions.
FAST_GROUP = {"consumer.session.timeout.ms": "6000", "consumer.heartbeat.interval.ms": "1000"}
NAME = re.compile(r"^(?P<topic>.+)\+(?P<partition>\d+)\+(?P<first>\d{10})\+(?P<last>\d{10})\.parquet$")


# --- Kafka ---------------------------------------------------------------------------------------------


def produce_ids(bootstrap: str, topic: str, start: int, stop: int, partitions: int) -> None:
    """Produce orders ``start..stop-1`` (`order_value`), order ``i`` to partition ``i % partitions``."""
    assert start % partitions == 0, "`produce` counts partitions from the batch's first record"
    produce(bootstrap, topic, (order_value(i) for i in range(start, stop)), partitions)


def group_offsets(bootstrap: str, connector: str, topic: str, partitions: int) -> dict[int, int]:
    """The consumer group offsets of a sink connector (group ``connect-<name>``), read from the broker."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"connect-{connector}"})
    try:
        committed = consumer.committed([KafkaPartition(topic, p) for p in range(partitions)], timeout=30)
    finally:
        consumer.close()
    return {tp.partition: tp.offset for tp in committed if tp.offset >= 0}


def rest_offsets(worker: WorkerProcess, connector: str) -> dict[int, int]:
    """``GET /connectors/<name>/offsets`` of a sink: Kafka partition -> committed offset."""
    response = worker.get(f"/connectors/{connector}/offsets")
    response.raise_for_status()
    return {
        entry["partition"]["kafka_partition"]: entry["offset"]["kafka_offset"]
        for entry in response.json()["offsets"]
    }


# --- the files, as a reader sees them ------------------------------------------------------------------


class HdfsFiles:
    """What a reader of ``<root>/topics/<topic>`` on the test HDFS sees."""

    def __init__(self, hdfs_cluster: Any, root: str, topic: str) -> None:
        self.fs = hdfs_cluster.webhdfs()
        self.root = root
        self.topic = topic
        self.topic_dir = f"{root}/topics/{topic}"

    def names(self) -> list[str]:
        """Every file under the topic's folder, relative to it (nothing yet: empty)."""
        if not self.fs.exists(self.topic_dir):
            return []
        return sorted(path.removeprefix(self.topic_dir + "/") for path in self.fs.find(self.topic_dir))

    def committed(self) -> dict[int, list[tuple[int, int, str]]]:
        """Kafka partition -> its files' (first offset, last offset, path), in offset order; a file
        that is not a committed data file of this topic fails the test (staged leftovers included)."""
        found: dict[int, list[tuple[int, int, str]]] = {}
        for relative in self.names():
            folder, _, name = relative.rpartition("/")
            match = NAME.match(name)
            assert match is not None and match["topic"] == self.topic, f"not a committed file: {relative}"
            partition = int(match["partition"])
            assert folder == f"partition={partition}", f"file in the wrong folder: {relative}"
            found.setdefault(partition, []).append(
                (int(match["first"]), int(match["last"]), f"{self.topic_dir}/{relative}")
            )
        return {p: sorted(files) for p, files in found.items()}

    def count(self) -> int:
        """How many files a reader sees."""
        return len(self.names())

    def ids(self, path: str) -> list[int]:
        """The ``id`` column of one Parquet file."""
        with self.fs.open(path, "rb") as stream:
            return list(pq.read_table(stream).column("id").to_pylist())

    def staged(self) -> list[str]:
        """Staged data files left for this topic (under ``<root>/topics/+tmp/topics/<topic>``).

        Not the commit log's temporary files (``+tmp/logs/...``): a kill between writing one and
        renaming it leaves it there for good (nothing reads or removes it; see the report of issue 19)."""
        staging = f"{self.root}/topics/+tmp/topics/{self.topic}"
        return list(self.fs.find(staging)) if self.fs.exists(staging) else []


def assert_contiguous(files: Mapping[int, list[tuple[int, int, str]]]) -> None:
    """Each partition's files start at offset 0 and follow each other without gap or overlap."""
    for partition, spans in files.items():
        expected = 0
        for first, last, path in spans:
            assert first == expected, f"partition {partition}: {path} starts at {first}, expected {expected}"
            assert last >= first, path
            expected = last + 1


def assert_offsets_within_files(
    offsets: Mapping[int, int], files: Mapping[int, list[tuple[int, int, str]]]
) -> None:
    """No committed consumer offset lies beyond the end of its partition's committed files."""
    for partition, offset in offsets.items():
        end = files[partition][-1][1] + 1 if files.get(partition) else 0
        assert offset <= end, f"partition {partition}: group offset {offset} beyond the files (end {end})"


def assert_exactly_once(
    files: HdfsFiles, ids: range, partitions: int
) -> dict[int, list[tuple[int, int, str]]]:
    """Every id of `ids` in exactly one committed file, in its partition, nothing else; returns the files."""
    committed = files.committed()
    assert_contiguous(committed)
    seen: list[int] = []
    for partition, spans in committed.items():
        for first, last, path in spans:
            in_file = files.ids(path)
            assert len(in_file) == last - first + 1, f"{path} holds {len(in_file)} records"
            assert all(i % partitions == partition for i in in_file), f"{path} holds another partition's ids"
            seen += in_file
    assert len(seen) == len(set(seen)), f"{len(seen) - len(set(seen))} duplicates"
    missing = set(ids) - set(seen)
    assert not missing, f"{len(missing)} ids lost, e.g. {sorted(missing)[:5]}"
    assert len(seen) == len(ids)
    return committed


def hdfs_connector(name: str, topic: str, hdfs_cluster: Any, root: str, **extra: str) -> dict[str, str]:
    """An HdfsSink connector writing Parquet under `root` of the test HDFS."""
    return {
        "name": name,
        "connector.class": "io.confluent.connect.hdfs.HdfsSinkConnector",
        "tasks.max": "1",
        "topics": topic,
        "hdfs.url": f"webhdfs://127.0.0.1:{hdfs_cluster.http_port}{root}",
        "format.class": PARQUET,
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        **extra,
    }


def unique_root(stem: str) -> str:
    """A fresh HDFS folder for one test."""
    return f"/{stem}-{uuid.uuid4().hex[:8]}"


# --- 1. SIGKILL five times ------------------------------------------------------------------------------

RECORDS = ORDERS
KILL_PARTITIONS = ORDERS_PARTITIONS
#: Fifty files whatever `ORDERS` is, so each kill lands at the same point of the run at any size.
FLUSH = RECORDS // 50
#: Kill once this many files are committed (of 50), a little later each time.
KILL_AT = ((4, 0.0), (13, 0.1), (22, 0.3), (31, 0.6), (40, 1.0))


@pytest.mark.timeout(900)
def test_sigkill_of_the_worker_five_times_while_files_commit_writes_every_record_once(
    start_worker: Any, hdfs_cluster: Any, tmp_path: Path, many_orders: str, kafka_bootstrap: str
) -> None:
    began = time.monotonic()
    topic = many_orders  # orders 0..ORDERS-1, order i in partition i % 2 (KILL_PARTITIONS)
    root = unique_root("killed")
    name = "hdfs-killed"
    connector = write_properties(
        tmp_path / "hdfs.properties",
        hdfs_connector(name, topic, hdfs_cluster, root, **{"flush.size": str(FLUSH)}),
    )
    files = HdfsFiles(hdfs_cluster, root, topic)
    total_files = RECORDS // FLUSH
    killed_at: list[int] = []
    for threshold, delay in KILL_AT:
        worker = start_worker(FAST_GROUP, connector_files=[connector])
        worker.wait_for(f"{threshold} files committed", lambda t=threshold: files.count() >= t, timeout=300)
        time.sleep(delay)  # lands each kill at another point of the commit cycle
        kill_worker_and_its_processes(worker)
        committed = files.committed()
        killed_at.append(sum(len(spans) for spans in committed.values()))
        assert_contiguous(committed)
        assert_offsets_within_files(group_offsets(kafka_bootstrap, name, topic, KILL_PARTITIONS), committed)
    worker = start_worker(FAST_GROUP, connector_files=[connector])
    worker.wait_for("every file committed", lambda: files.count() >= total_files, timeout=600)
    committed = assert_exactly_once(files, range(RECORDS), KILL_PARTITIONS)
    assert sum(len(spans) for spans in committed.values()) == total_files
    assert files.staged() == [], "staged files left behind"
    end = RECORDS // KILL_PARTITIONS
    worker.wait_for(
        "the group offsets at the end of the files",
        lambda: rest_offsets(worker, name) == dict.fromkeys(range(KILL_PARTITIONS), end),
        timeout=120,
    )
    assert worker.status(name)["tasks"][0]["state"] == "RUNNING"
    logs = "".join(path.read_text(errors="replace") for path in tmp_path.glob("worker-*.log"))
    thrown = sum(int(n) for n in re.findall(r"Threw away (\d+) unpublished files", logs))
    replayed = sum(
        int(n) for n in re.findall(r"Published (\d+) files of .* whose commit was interrupted", logs)
    )
    # Every kill came with a backlog (fewer files than the topic fills), so the task was between
    # rotations with records in an open file: lost with the process (HDFS shows a staged file only once
    # its client sent a first 8 MiB block, so `thrown` counts only some of them) and read again.
    assert all(count < total_files for count in killed_at), f"a kill came after the last file: {killed_at}"
    print(
        f"{RECORDS} records, {len(KILL_AT)} SIGKILLs after "
        f"{killed_at} of {total_files} files; recovery threw away {thrown} staged files and finished "
        f"{replayed} interrupted publications; whole test {time.monotonic() - began:.1f} s"
    )


# --- 3. the store unreachable mid-stream -----------------------------------------------------------------

OUTAGE_FLUSH = 5_000
BACKOFF_MS = 500
#: A frozen namenode costs each attempt this long; with 3 retries the task fails within seconds.
REQUEST_TIMEOUT_MS = 2_000
RETRY_LINE = re.compile(
    r"^(?P<time>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) WARNING kconnect_storage\.task: "
    r"Writing \('(?P<topic>[^']+)', 0\) "
    r"to (?P<store>\S+) failed \((?P<error>.*)\); its open files are dropped and it is paused, "
    r"retry (?P<attempt>\d+) of (?P<of>\d+) in (?P<backoff>\d+) ms$",
    re.MULTILINE,
)


def retries_logged(worker: WorkerProcess, topic: str) -> list[re.Match[str]]:
    """The retry warnings the storage task logged for partition 0 of `topic`."""
    text = worker.log_path.read_text(errors="replace")
    return [m for m in RETRY_LINE.finditer(text) if m["topic"] == topic]


def logged_at(match: re.Match[str]) -> float:
    """A log line's time in seconds (same day is enough for the gaps between retries)."""
    clock = match["time"].split(" ")[1]
    hours, minutes, rest = clock.split(":")
    seconds, millis = rest.split(",")
    return int(hours) * 3600 + int(minutes) * 60 + int(seconds) + int(millis) / 1000


@pytest.mark.timeout(600)
def test_a_frozen_hdfs_fails_the_task_after_its_retries_and_a_short_outage_does_not(
    start_worker: Any, hdfs_cluster: Any, tmp_path: Path, kafka_bootstrap: str
) -> None:
    """One outage, two connectors: `long` (max.retries=3) runs out of retries and FAILS naming the
    store; `short` (max.retries=30) sees the store back within its retries and never fails. After a
    task restart of `long`, both hold every record exactly once."""
    began = time.monotonic()
    suffix = uuid.uuid4().hex[:8]
    topics = {"long": f"outage-long-{suffix}", "short": f"outage-short-{suffix}"}
    roots = {kind: unique_root(f"outage-{kind}") for kind in topics}
    files = {kind: HdfsFiles(hdfs_cluster, roots[kind], topics[kind]) for kind in topics}
    connector_files = []
    for kind, max_retries in (("long", "3"), ("short", "30")):
        create_topic(kafka_bootstrap, topics[kind], 1)
        produce_ids(kafka_bootstrap, topics[kind], 0, 2 * OUTAGE_FLUSH, 1)
        config = hdfs_connector(
            f"hdfs-{kind}",
            topics[kind],
            hdfs_cluster,
            roots[kind],
            **{
                "flush.size": str(OUTAGE_FLUSH),
                "retry.backoff.ms": str(BACKOFF_MS),
                "max.retries": max_retries,
                "store.request.timeout.ms": str(REQUEST_TIMEOUT_MS),
            },
        )
        connector_files.append(write_properties(tmp_path / f"{kind}.properties", config))
    worker = start_worker(FAST_GROUP, connector_files=connector_files)
    for kind in topics:
        worker.wait_for(f"{kind}: 2 files committed", lambda k=kind: files[k].count() == 2, timeout=180)

    states_seen: dict[str, set[str]] = {kind: set() for kind in topics}

    def long_failed() -> bool:
        for kind in topics:
            states_seen[kind].add(worker.status(f"hdfs-{kind}")["tasks"][0]["state"])
        return "FAILED" in states_seen["long"]

    hdfs_cluster.halt()
    try:
        halted = time.monotonic()
        for kind in topics:
            produce_ids(kafka_bootstrap, topics[kind], 2 * OUTAGE_FLUSH, 4 * OUTAGE_FLUSH, 1)
        worker.wait_for("hdfs-long FAILED", long_failed, timeout=120)
        outage_s = time.monotonic() - halted
    finally:
        hdfs_cluster.resume()

    status = worker.status("hdfs-long")
    task = status["tasks"][0]
    store = f"webhdfs://127.0.0.1:{hdfs_cluster.http_port}{roots['long']}"
    assert task["state"] == "FAILED"
    assert status["connector"]["state"] == "RUNNING"
    assert f"Could not write {topics['long']}-0 to {store} after 3 retries" in task["trace"], task["trace"]
    assert "timed out" in task["trace"].lower(), task["trace"]
    retries = retries_logged(worker, topics["long"])
    assert [int(m["attempt"]) for m in retries] == [1, 2, 3], [m[0] for m in retries]
    assert all(m["store"] == store and m["of"] == "3" and m["backoff"] == str(BACKOFF_MS) for m in retries)
    gaps = [logged_at(b) - logged_at(a) for a, b in itertools.pairwise(retries)]
    assert all(gap >= BACKOFF_MS / 1000 for gap in gaps), gaps

    post = worker.request("POST", "/connectors/hdfs-long/tasks/0/restart")
    assert post.status_code in (200, 202, 204), (post.status_code, post.text)
    worker.wait_for_state("hdfs-long", "RUNNING", tasks=1, timeout=120)
    for kind in topics:
        worker.wait_for(f"{kind}: 4 files committed", lambda k=kind: files[k].count() == 4, timeout=180)
        assert_exactly_once(files[kind], range(4 * OUTAGE_FLUSH), 1)
    assert "FAILED" not in states_seen["short"], states_seen
    assert worker.status("hdfs-short")["tasks"][0]["state"] == "RUNNING"
    short_retries = retries_logged(worker, topics["short"])
    assert short_retries, "the short outage was never noticed: nothing was tested"
    short_store = f"webhdfs://127.0.0.1:{hdfs_cluster.http_port}{roots['short']}"
    recovered = f"('{topics['short']}', 0) recovered from {short_store}"
    assert recovered in worker.log_path.read_text(errors="replace")
    print(
        f"outage {outage_s:.1f} s; long: {len(retries)} retries then FAILED; short: "
        f"{len(short_retries)} retries, never failed; whole test {time.monotonic() - began:.1f} s"
    )


# --- 2. a rebalance between two distributed workers ------------------------------------------------------

REBALANCE_FLUSH = 10_000
#: The steady producer's batch, every `STEADY_EVERY_S`. 3,700 records a partition never lines up with
#: flush.size (10,000) before 370,000 a partition, so at any moment, however fast the workers write, each
#: partition has an open file that is not yet committed when a task moves: the rebalance always happens
#: mid-file, whatever the machine's speed. `finish` tops the total up to a multiple of 2 x flush.size.
STEADY_BATCH = 7_400
STEADY_EVERY_S = 1.0


class SteadyProducer(threading.Thread):
    """Produces `STEADY_BATCH` orders every `STEADY_EVERY_S` s until `finish`; `produced` counts them."""

    def __init__(self, bootstrap: str, topic: str, partitions: int) -> None:
        super().__init__(daemon=True)
        self.bootstrap, self.topic, self.partitions = bootstrap, topic, partitions
        self.produced = 0
        self.done = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        """Produce batch after batch until told to finish."""
        try:
            while not self.done.is_set():
                produce_ids(
                    self.bootstrap, self.topic, self.produced, self.produced + STEADY_BATCH, self.partitions
                )
                self.produced += STEADY_BATCH
                self.done.wait(STEADY_EVERY_S)
        except BaseException as exc:
            self.error = exc

    def finish(self) -> int:
        """Stop producing, top up to whole files in both partitions; how many were produced in all."""
        if self.ident is not None and not self.done.is_set():
            self.done.set()
            self.join(180)
            assert self.error is None, self.error
            whole = -self.produced % (self.partitions * REBALANCE_FLUSH)
            produce_ids(self.bootstrap, self.topic, self.produced, self.produced + whole, self.partitions)
            self.produced += whole
        return self.produced


@pytest.mark.timeout(600)
def test_partitions_moving_between_two_distributed_workers_while_writing_keep_every_record_once(
    hdfs_cluster: Any, tmp_path: Path, unique_topic: str, kafka_bootstrap: str
) -> None:
    """A runs both tasks (tasks.max=2, one partition each); B joins and takes one while they write;
    then A stops while they write again and B runs both: every record in exactly one file."""
    began = time.monotonic()
    create_topic(kafka_bootstrap, unique_topic, 2)
    props = group_props(
        kafka_bootstrap,
        "storage-rebalance",
        **{"scheduled.rebalance.max.delay.ms": "2000", "spark.master": "local[2]"},
        **FAST_GROUP,
    )
    root = unique_root("rebalance")
    name = "hdfs-rebalance"
    files = HdfsFiles(hdfs_cluster, root, unique_topic)
    producer = SteadyProducer(kafka_bootstrap, unique_topic, 2)
    a = WorkerProcess(tmp_path, props, mode="distributed").start()
    b = WorkerProcess(tmp_path, props, mode="distributed")
    try:
        wait_healthy([a])
        config = hdfs_connector(
            name, unique_topic, hdfs_cluster, root, **{"flush.size": str(REBALANCE_FLUSH)}
        )
        producer.start()
        create(a, name, {**config, "tasks.max": "2"})
        a.wait_for_state(name, "RUNNING", tasks=2, timeout=180)
        a.wait_for("A's first file", lambda: files.count() >= 1, timeout=180)

        b.start()
        wait_healthy([b])

        def spread() -> bool:
            states = task_states(b, name)
            running = {where for state, where in states.values() if state == "RUNNING"}
            return len(states) == 2 and running == {f"127.0.0.1:{a.port}", f"127.0.0.1:{b.port}"}

        b.wait_for("one task on each worker", spread, timeout=120)
        moved_at, produced_then = files.count(), producer.produced
        assert moved_at * REBALANCE_FLUSH < produced_then, "nothing left to write when B took a task"
        a.wait_for("two more files, written by both", lambda: files.count() >= moved_at + 2, timeout=300)
        a.stop()
        stopped_at, produced_then = files.count(), producer.produced
        assert stopped_at * REBALANCE_FLUSH < produced_then, "nothing left to write when A stopped"

        def b_runs_both() -> bool:
            states = task_states(b, name)
            return len(states) == 2 and all(s == ("RUNNING", f"127.0.0.1:{b.port}") for s in states.values())

        b.wait_for("both tasks on B", b_runs_both, timeout=120)
        b.wait_for("B writes a file", lambda: files.count() > stopped_at, timeout=300)
        total = producer.finish()
        b.wait_for("every file committed", lambda: files.count() >= total // REBALANCE_FLUSH, timeout=300)
        committed = assert_exactly_once(files, range(total), 2)
        assert sum(len(spans) for spans in committed.values()) == total // REBALANCE_FLUSH
        assert files.staged() == [], "staged files left behind"
    finally:
        producer.finish()
        stop_all([a, b])
    print(
        f"{total} records; a task moved to B after {moved_at} files, A stopped after {stopped_at} of "
        f"{total // REBALANCE_FLUSH}; whole test {time.monotonic() - began:.1f} s"
    )
