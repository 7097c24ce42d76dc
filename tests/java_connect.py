"""A Java Kafka Connect 4.3.1 worker for tests that compare kconnect with Java, call by call.

`compile_java` builds test classes (``tests/java_oracle/*.java``) against Kafka's cached jars;
`JavaConnectWorker` runs ``ConnectDistributed`` (or ``ConnectStandalone``) with them on its classpath
(Connect finds plugins on the classpath too), its log in a file, and answers REST calls through ``httpx``.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx
from kconnect_testkit.jars import CONNECT_STANDALONE, java_connect_classpath, java_connect_command

from tests.worker_process import POLL_INTERVAL_S, free_port, write_properties

JAVA_ORACLE = Path(__file__).resolve().parent / "java_oracle"
CONNECT_DISTRIBUTED = "org.apache.kafka.connect.cli.ConnectDistributed"


def compile_java(build: Path, *sources: Path) -> Path:
    """Compile `sources` into `build` against Kafka's jars; return `build` (a classpath entry)."""
    build.mkdir(parents=True, exist_ok=True)
    classpath = java_connect_classpath()
    subprocess.run(["javac", "-d", str(build), "-cp", classpath, *map(str, sources)], check=True)
    return build


class JavaConnectWorker:
    """One Java Connect worker with `props` (its listener added), and `classes` on its classpath:
    ``ConnectDistributed``, or ``ConnectStandalone`` (without connector files) when `standalone`;
    its INFO log goes to ``java-<port>.log`` in `folder`."""

    def __init__(
        self, folder: Path, props: Mapping[str, str], classes: Path | None = None, standalone: bool = False
    ) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = folder / f"java-{self.port}.log"
        worker_file = write_properties(
            folder / f"java-{self.port}.properties", {**props, "listeners": self.url}
        )
        self.command = java_connect_command(worker_file, log_level="INFO")
        if not standalone:
            self.command[self.command.index(CONNECT_STANDALONE)] = CONNECT_DISTRIBUTED
        if classes is not None:
            where = self.command.index("-cp") + 1
            self.command[where] = f"{classes}:{self.command[where]}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> JavaConnectWorker:
        """Start the JVM (without waiting for it: see `wait_ready`)."""
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(self.command, stdout=out, stderr=subprocess.STDOUT)
        return self

    def wait_ready(self, timeout: float = 180.0) -> None:
        """Wait until ``GET /connectors`` answers 200 (a distributed herder has joined its group)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process is not None and self.process.poll() is None, (
                f"Java Connect exited:\n{self.log.read_text()[-3000:]}"
            )
            try:
                if httpx.get(self.url + "/connectors", timeout=5).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(POLL_INTERVAL_S * 5)
        raise AssertionError(f"Java Connect did not answer:\n{self.log.read_text()[-3000:]}")

    def request(self, method: str, path: str, body: Any = None) -> httpx.Response:
        """One REST call to the worker."""
        return httpx.request(method, self.url + path, json=body, timeout=60)

    def stop(self) -> None:
        """SIGTERM, then wait; kill after a minute."""
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
