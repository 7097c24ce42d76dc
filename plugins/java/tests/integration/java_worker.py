"""The standalone kconnect worker the Java-plugin test modules share: their plugin folders on its
``plugin.path``, file offsets flushed every 500 ms, one key and value converter."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

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
