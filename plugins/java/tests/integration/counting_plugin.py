"""The plugin folder of ``CountingSourceConnector`` (``multi_task/*.java``): a source connector of
many tasks, each writing its numbered records once, for the tests and the benchmark of Java hosts."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.java_connect import compile_java

SOURCES = Path(__file__).resolve().parent / "multi_task"
CONNECTOR = "kconnect.test.CountingSourceConnector"


def counting_plugin_path(folder: Path) -> Path:
    """A ``plugin.path`` folder in `folder` with the connector compiled into one jar, with the
    ``ServiceLoader`` manifest Kafka's ``plugin.discovery=service_load`` reads (a Java task's quick
    first look, before a full scan)."""
    classes = compile_java(folder / "classes", *sorted(SOURCES.glob("*.java")))
    services = classes / "META-INF" / "services"
    services.mkdir(parents=True, exist_ok=True)
    manifest = services / "org.apache.kafka.connect.source.SourceConnector"
    manifest.write_text(CONNECTOR + "\n", encoding="utf-8")
    plugin = folder / "plugins" / "counting"
    plugin.mkdir(parents=True)
    subprocess.run(["jar", "cf", str(plugin / "counting.jar"), "-C", str(classes), "."], check=True)
    return plugin.parent
