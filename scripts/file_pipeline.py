"""The file source -> Kafka -> file sink pipeline's files, shared by the quickstart and the benchmark."""

from __future__ import annotations

import socket
import sys
from pathlib import Path


def free_port() -> int:
    """A free loopback TCP port."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LineCounter:
    """Newlines in a file that only grows, reading only what was appended since the last call.

    A watcher polling a sink file many times a second must not read it whole each time: at
    hundreds of megabytes that takes a core from the engine it measures."""

    def __init__(self, path: Path) -> None:
        self.path = path
        #: Newlines and bytes counted so far.
        self.lines = 0
        self.offset = 0

    def __call__(self) -> int:
        """Newlines in the file now (0 when it does not exist yet); `offset` is then its size."""
        if not self.path.exists():
            return 0
        with self.path.open("rb") as f:
            f.seek(self.offset)
            for chunk in iter(lambda: f.read(1 << 22), b""):
                self.lines += chunk.count(b"\n")
                self.offset += len(chunk)
        return self.lines


def write_worker_file(out: Path, *, bootstrap: str, rest_port: int) -> Path:
    """Write a standalone worker file into `out` (Kafka's keys, JsonConverter with schemas)."""
    worker = out / "worker.properties"
    worker.write_text(
        f"bootstrap.servers={bootstrap}\n"
        "key.converter=org.apache.kafka.connect.json.JsonConverter\n"
        "value.converter=org.apache.kafka.connect.json.JsonConverter\n"
        "key.converter.schemas.enable=true\n"
        "value.converter.schemas.enable=true\n"
        f"offset.storage.file.filename={out / 'connect.offsets'}\n"
        "offset.flush.interval.ms=10000\n"
        f"listeners=http://127.0.0.1:{rest_port}\n"
    )
    return worker


def kconnect_command(worker: Path, *connectors: Path) -> list[str]:
    """The command that runs a kconnect standalone worker on these files, logging warnings only."""
    return [
        sys.executable,
        "-m",
        "kconnect_rest.cli",
        "--log-level",
        "WARNING",
        "standalone",
        str(worker),
        *map(str, connectors),
    ]


def write_pipeline_files(
    out: Path, *, bootstrap: str, rest_port: int, source: Path, sink: Path, topic: str
) -> tuple[Path, Path, Path]:
    """Write the worker and the two connector files (Kafka's keys and sample settings) into `out`.

    The connectors use Java's class names, so the same files run under Java Kafka Connect.
    """
    worker = write_worker_file(out, bootstrap=bootstrap, rest_port=rest_port)
    source_file = out / "file-source.properties"
    source_file.write_text(
        "name=local-file-source\n"
        "connector.class=org.apache.kafka.connect.file.FileStreamSourceConnector\n"
        f"tasks.max=1\nfile={source}\ntopic={topic}\n"
    )
    sink_file = out / "file-sink.properties"
    sink_file.write_text(
        "name=local-file-sink\n"
        "connector.class=org.apache.kafka.connect.file.FileStreamSinkConnector\n"
        f"tasks.max=1\nfile={sink}\ntopics={topic}\n"
    )
    return worker, source_file, sink_file
