"""The standalone workers the Java-plugin test modules share: a kconnect worker with their plugin
folders on its ``plugin.path`` (`java_worker`), and a Java Connect 4.3.1 worker beside a kconnect one
with the same ``plugin.path`` and Kafka's connect-file jar off Java's class path (`side_by_side`)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import httpx

from tests.java_connect import JavaConnectWorker
from tests.worker_process import WorkerProcess


@contextmanager
def java_worker(
    folder: Path,
    bootstrap: str,
    plugin_path: str,
    converter: str,
    spark_master: str = "local[3]",
    extra: Mapping[str, str] | None = None,
) -> Iterator[WorkerProcess]:
    """A started standalone worker in `folder` on `bootstrap` plus `extra` properties, stopped at the end."""
    props = {
        "bootstrap.servers": bootstrap,
        "offset.storage.file.filename": str(folder / "offsets"),
        "offset.flush.interval.ms": "500",
        "key.converter": converter,
        "value.converter": converter,
        "plugin.path": plugin_path,
        "spark.master": spark_master,
        **(extra or {}),
    }
    ours = WorkerProcess(folder, props)
    ours.start(timeout=300)  # the first start builds the Java part with Maven
    try:
        yield ours
    finally:
        ours.stop()


@contextmanager
def side_by_side(
    folder: Path, java_props: Mapping[str, str], kconnect_props: Mapping[str, str]
) -> Iterator[tuple[JavaConnectWorker, WorkerProcess]]:
    """A Java 4.3.1 and a kconnect standalone worker in `folder`, both ready, stopped at the end.

    Kafka's jars go on Java's class path without connect-file, so its classes come from
    ``plugin.path`` alone, as on kconnect, whose Python FileStream plugin is disabled.
    """
    java = JavaConnectWorker(folder, dict(java_props), standalone=True)
    where = java.command.index("-cp") + 1
    libs = Path(java.command[where].removesuffix("/*"))
    java.command[where] = ":".join(str(j) for j in sorted(libs.glob("*.jar")) if "connect-file" not in j.name)
    ours = WorkerProcess(folder, dict(kconnect_props), env={"KCONNECT_DISABLE_PLUGINS": "file"})
    java.start()
    try:
        ours.start(timeout=300)  # the first start builds the Java part with Maven
        try:
            java.wait_ready()
            yield java, ours
        finally:
            ours.stop()
    finally:
        java.stop()


def create_validated(worker: WorkerProcess, name: str, config: Mapping[str, str]) -> httpx.Response:
    """Validate `config` (no key may have errors), then ``PUT`` it as connector `name`; the answer."""
    plugin = config["connector.class"].rsplit(".", 1)[-1]
    validated = worker.request(
        "PUT", f"/connector-plugins/{plugin}/config/validate", {"name": name, **config}
    )
    errors = {
        c["value"]["name"]: c["value"]["errors"] for c in validated.json()["configs"] if c["value"]["errors"]
    }
    assert errors == {}, errors
    return worker.request("PUT", f"/connectors/{name}/config", {"name": name, **config})
