"""A third opinion on Confluent's wire format: Apicurio's Java AvroConverter on Java Kafka Connect.

Apicurio publishes a Kafka Connect converter on Maven Central
(``io.apicurio:apicurio-registry-utils-converter``, 2.6.13.Final: its Avro mapping is a fork of
Confluent's ``AvroData``). With ``apicurio.registry.as-confluent=true`` and content ids it writes and
reads Confluent's wire format (magic byte, 4-byte id) against the same Apicurio registry, through
its native v2 API, whose content ids are the ids of the ccompat API kconnect's converter uses.

`fetch_apicurio_converter` puts its jars (without Kafka's own, which Java Connect brings) into a
plugin folder under the cache once; `JavaStandalone` runs Kafka 4.3.1's ``ConnectStandalone`` with
connector files and waits for what a test expects of it.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType

from kconnect_java.maven import fetch
from kconnect_testkit.jars import cache_root, java_connect_command

VERSION = "2.6.13.Final"
CONVERTER_CLASS = "io.apicurio.registry.utils.converter.AvroConverter"


def cache_dir() -> Path:
    """The folder holding the converter's plugin folder, next to Kafka's jars."""
    return cache_root() / f"apicurio-converter-{VERSION}"


def fetch_apicurio_converter() -> Path:
    """Fetch the converter and its dependencies, less Kafka's and SLF4J's (Java Connect brings them),
    with Maven once; return the ``plugin.path`` folder."""
    plugin = fetch(
        [f"io.apicurio:apicurio-registry-utils-converter:{VERSION}"],
        cache_dir() / "plugins" / "apicurio-converter",
        exclusions=["org.apache.kafka:*", "org.slf4j:*"],
    )
    return plugin.parent


def converter_properties(prefix: str, registry_base_url: str) -> dict[str, str]:
    """The converter's settings for Confluent's wire format against `registry_base_url` (``http://host:port``)."""
    return {
        prefix: CONVERTER_CLASS,
        f"{prefix}.apicurio.registry.url": f"{registry_base_url}/apis/registry/v2",
        f"{prefix}.apicurio.registry.auto-register": "true",
        f"{prefix}.apicurio.registry.as-confluent": "true",
        f"{prefix}.apicurio.registry.use-id": "contentId",
        f"{prefix}.apicurio.registry.headers.enabled": "false",
    }


def _properties(path: Path, props: Mapping[str, str]) -> Path:
    path.write_text("".join(f"{k}={v}\n" for k, v in props.items()), encoding="utf-8")
    return path


class JavaStandalone:
    """Kafka 4.3.1's ``ConnectStandalone`` with connector files and Apicurio's converter."""

    def __init__(
        self,
        folder: Path,
        bootstrap: str,
        connectors: Mapping[str, Mapping[str, str]],
        converter: Mapping[str, str],
    ) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        worker = {
            "bootstrap.servers": bootstrap,
            "offset.storage.file.filename": str(folder / "offsets"),
            "offset.flush.interval.ms": "1000",
            "plugin.path": str(fetch_apicurio_converter()),
            "listeners": "http://127.0.0.1:0",
            "key.converter": "org.apache.kafka.connect.storage.StringConverter",
            **converter,
        }
        files = [_properties(folder / "worker.properties", worker)]
        files += [
            _properties(folder / f"{name}.properties", {"name": name, **props})
            for name, props in connectors.items()
        ]
        self.log = folder / "java-connect.log"
        self._command = java_connect_command(*files, log_level="INFO")
        self._process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> JavaStandalone:
        with self.log.open("wb") as out:
            self._process = subprocess.Popen(
                # UTC, so that Java's Date.toString in a sink file does not depend on the machine.
                [self._command[0], "-Duser.timezone=UTC", *self._command[1:]],
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._process is not None:
            self._process.terminate()
            try:
                self._process.wait(30)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()

    def wait_for(self, what: str, check: Callable[[], bool], timeout: float = 180.0) -> None:
        """Poll `check` until true; fail with the worker's log tail when it exits or time runs out."""
        deadline = time.monotonic() + timeout
        while not check():
            assert self._process is not None
            if self._process.poll() is not None or time.monotonic() > deadline:
                tail = self.log.read_text(errors="replace")[-4000:]
                state = "exited" if self._process.poll() is not None else "still running"
                raise AssertionError(f"Java Connect ({state}) did not {what}; log tail:\n{tail}")
            time.sleep(0.5)
