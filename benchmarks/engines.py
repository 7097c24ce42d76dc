"""The two engines under test, run the same way: kconnect and Apache Kafka Connect (Java), standalone.

`EngineRun` writes one worker file and any connector files, starts the engine's process, and stops
it; both engines get the same files, so every difference measured is the engine's. `CONVERTERS` are
the converter settings the scenarios compare.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "scripts"))
from file_pipeline import LineCounter, free_port, kconnect_command  # noqa: E402
from kafka_broker import KafkaBroker, java_connect_command  # noqa: E402

ENGINES = ("java", "kconnect")

_JSON = "org.apache.kafka.connect.json.JsonConverter"
_STRING = "org.apache.kafka.connect.storage.StringConverter"

#: Converter settings by the name the reports use.
CONVERTERS: Mapping[str, Mapping[str, str]] = {
    "json, schemas off": {
        "key.converter": _JSON,
        "value.converter": _JSON,
        "key.converter.schemas.enable": "false",
        "value.converter.schemas.enable": "false",
    },
    "json, schemas on": {
        "key.converter": _JSON,
        "value.converter": _JSON,
        "key.converter.schemas.enable": "true",
        "value.converter.schemas.enable": "true",
    },
    "string": {"key.converter": _STRING, "value.converter": _STRING},
}

FILE_SOURCE = "org.apache.kafka.connect.file.FileStreamSourceConnector"
FILE_SINK = "org.apache.kafka.connect.file.FileStreamSinkConnector"

Progress = Callable[[str], None]

#: The tree counts as idle below this many cores, before the input appears.
IDLE_CORES = 0.15


def line(i: int) -> str:
    """Input line `i`: 100 bytes with its newline, numbered so a sink file can be checked."""
    head = f"line {i:09d} "
    return head + "x" * (99 - len(head)) + "\n"


def write_lines(path: Path, count: int, start: int = 0) -> None:
    """Write lines `start` .. `start + count - 1` to `path`."""
    with path.open("w") as out:
        for chunk in range(start, start + count, 10_000):
            out.write("".join(line(i) for i in range(chunk, min(chunk + 10_000, start + count))))


def write_properties(path: Path, props: Mapping[str, str]) -> Path:
    """Write a Java properties file (keys and values without characters that need escaping)."""
    path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
    return path


def create_topic(broker: KafkaBroker, topic: str, partitions: int) -> None:
    """Create `topic` with `partitions` partitions (replication 1) before an engine writes to it."""
    from aiokafka.admin import AIOKafkaAdminClient, NewTopic

    async def create() -> None:
        admin = AIOKafkaAdminClient(bootstrap_servers=broker.bootstrap_servers)
        await admin.start()
        try:
            await admin.create_topics([NewTopic(topic, partitions, 1)])
        finally:
            await admin.close()

    asyncio.run(create())


def delete_topic(broker: KafkaBroker, topic: str) -> None:
    """Delete `topic` once a round is done with it: the broker's disk is not the measurement's."""
    from aiokafka.admin import AIOKafkaAdminClient

    async def delete() -> None:
        admin = AIOKafkaAdminClient(bootstrap_servers=broker.bootstrap_servers)
        await admin.start()
        try:
            await admin.delete_topics([topic])
        finally:
            await admin.close()

    asyncio.run(delete())


def processes() -> dict[int, tuple[int, str]]:
    """Every process now running: pid -> (parent pid, command line), from /proc."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                command = (entry / "cmdline").read_text().replace("\0", " ")
            except OSError:
                continue
            found[int(entry.name)] = (parent, command)
    return found


def process_tree(pid: int, table: dict[int, tuple[int, str]] | None = None) -> list[int]:
    """`pid` and all its descendants (from `table`, default: `processes()` now)."""
    children: dict[int, list[int]] = {}
    for child, (parent, _) in (processes() if table is None else table).items():
        children.setdefault(parent, []).append(child)
    result, todo = [], [pid]
    while todo:
        current = todo.pop()
        result.append(current)
        todo.extend(children.get(current, []))
    return result


def cpu_seconds(pid: int, *, children: bool = False) -> float:
    """User plus system CPU time of `pid` from /proc (0 once it is gone); with `children`, also that of
    its children it has waited for (their time is then no longer in any live process)."""
    try:
        fields = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = int(fields[11]) + int(fields[12])
    if children:
        ticks += int(fields[13]) + int(fields[14])
    return ticks / os.sysconf("SC_CLK_TCK")


def stop_process(process: subprocess.Popen[bytes], timeout: float = 60) -> None:
    """SIGTERM, wait up to `timeout` seconds, then SIGKILL and wait."""
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def pipeline_connectors(sources: list[Path], topic: str, sink: Path) -> list[dict[str, str]]:
    """The file pipeline's connectors: one FileStreamSource per source file, one sink with a task each.

    FileStreamSource runs one task per file, so N files need N source connectors; the sink gets
    ``tasks.max=N`` on a topic of N partitions.
    """
    connectors: list[dict[str, str]] = [
        {
            "name": f"source-{i}",
            "connector.class": FILE_SOURCE,
            "tasks.max": "1",
            "file": str(s),
            "topic": topic,
        }
        for i, s in enumerate(sources)
    ]
    connectors.append(
        {
            "name": "sink",
            "connector.class": FILE_SINK,
            "tasks.max": str(len(sources)),
            "file": str(sink),
            "topics": topic,
        }
    )
    return connectors


def fresh_topic(stem: str) -> str:
    """A topic name no earlier run used."""
    return f"{stem}-{time.monotonic_ns()}"


@dataclass
class EngineRun:
    """One engine's standalone worker on the broker, with connector files, in its own folder."""

    engine: str
    broker: KafkaBroker
    folder: Path
    worker_props: Mapping[str, str] = field(default_factory=dict)
    connectors: list[Mapping[str, str]] = field(default_factory=list)
    heap: str = "1g"
    #: Variables added to the worker's environment (``PYTHONPATH`` for a plugin of the benchmark's own).
    env: Mapping[str, str] = field(default_factory=dict)
    started: float = 0.0
    process: subprocess.Popen[bytes] | None = None

    def __post_init__(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"

    def start(self) -> EngineRun:
        """Write the files and start the worker process; `started` is when it was launched."""
        worker = write_properties(
            self.folder / "worker.properties",
            {
                "bootstrap.servers": self.broker.bootstrap_servers,
                "offset.storage.file.filename": str(self.folder / "connect.offsets"),
                "offset.flush.interval.ms": "10000",
                "listeners": f"http://127.0.0.1:{self.port}",
                **self.worker_props,
            },
        )
        files = [
            write_properties(self.folder / f"connector-{i}.properties", props)
            for i, props in enumerate(self.connectors)
        ]
        if self.engine == "kconnect":
            command = kconnect_command(worker, *files)
        else:
            command = java_connect_command(worker, *files, heap=self.heap)
        self._log = (self.folder / "worker.log").open("w")
        self.started = time.monotonic()
        self.process = subprocess.Popen(
            command,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            cwd=self.folder,
            env={**os.environ, **self.env} if self.env else None,
        )
        return self

    def alive(self) -> None:
        """Raise if the worker exited."""
        assert self.process is not None
        if self.process.poll() is not None:
            raise RuntimeError(
                f"{self.engine} exited with {self.process.returncode}; see {self.folder}/worker.log"
            )

    def wait_rest(self, timeout: float = 120) -> float:
        """Wait for the first 200 from ``GET /``; seconds since launch."""
        deadline = self.started + timeout
        while time.monotonic() < deadline:
            self.alive()
            try:
                if httpx.get(self.url + "/", timeout=1).status_code == 200:
                    return time.monotonic() - self.started
            except httpx.HTTPError:
                pass
            time.sleep(0.02)
        raise RuntimeError(f"{self.engine}: REST did not answer within {timeout} s")

    def stop(self) -> None:
        """Stop the worker (SIGTERM, then SIGKILL after 60 s)."""
        if self.process is None:
            return
        stop_process(self.process)
        self._log.close()
        self.process = None

    def __enter__(self) -> EngineRun:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def watch_sink(
    run: EngineRun,
    sink: Path,
    expected: int,
    progress: Progress,
    timeout: float = 900,
    cpu: Callable[[], Mapping[str, float]] | None = None,
) -> dict[str, float]:
    """Poll `sink` until it has `expected` lines; times since launch of the first and last line.

    With `cpu` (CPU seconds by process group), also each group's CPU seconds when the first line
    came (``cpu_first_<group>``) and when the last did (``cpu_last_<group>``)."""
    first: float | None = None
    figures: dict[str, float] = {}
    lines_in = LineCounter(sink)
    last_report = time.monotonic()
    while True:
        done = lines_in()
        now = time.monotonic()
        if done and first is None:
            first = now
            figures.update({f"cpu_first_{k}": v for k, v in (cpu() if cpu else {}).items()})
        if done >= expected:
            break
        run.alive()
        if now - run.started > timeout:
            raise RuntimeError(f"{run.engine}: {done:,} of {expected:,} lines after {timeout} s")
        if now - last_report > 5:
            progress(f"{run.engine}: {done:,} / {expected:,} lines in the sink")
            last_report = now
        time.sleep(0.05)
    assert first is not None
    figures.update({f"cpu_last_{k}": v for k, v in (cpu() if cpu else {}).items()})
    return {"first_line_s": first - run.started, "last_line_s": now - run.started, **figures}


def tree_cpu(root: int) -> float:
    """CPU seconds of `root` and every live process under it (and the children each has reaped)."""
    return sum(cpu_seconds(pid, children=True) for pid in process_tree(root))


def wait_running(run: EngineRun, names: list[str], timeout: float = 180) -> None:
    """Wait until each connector and its tasks are RUNNING (REST status)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run.alive()
        try:
            states = [httpx.get(f"{run.url}/connectors/{n}/status", timeout=5).json() for n in names]
            if all(
                s["connector"]["state"] == "RUNNING" and s["tasks"] and s["tasks"][0]["state"] == "RUNNING"
                for s in states
            ):
                return
        except (httpx.HTTPError, KeyError, ValueError):
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{run.engine}: {names} not RUNNING within {timeout} s; see {run.folder}/worker.log")


def wait_idle(root: int, timeout: float = 60) -> None:
    """Wait until the tree uses less than `IDLE_CORES` over a second (Spark's start-up has settled)."""
    deadline = time.monotonic() + timeout
    before, at = tree_cpu(root), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(1.0)
        now_cpu, now = tree_cpu(root), time.monotonic()
        if (now_cpu - before) / (now - at) < IDLE_CORES:
            return
        before, at = now_cpu, now
