"""A ``plugin.path`` folder of test plugins compiled from Java sources into one jar, with the
``ServiceLoader`` manifests Kafka's ``plugin.discovery=service_load`` reads (a Java task's quick first
look, before a full scan)."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from tests.java_connect import compile_java


def plugin_folder(folder: Path, name: str, sources: Sequence[Path], services: Mapping[str, str]) -> Path:
    """`sources` compiled into ``<folder>/plugins/<name>/<name>.jar`` with a manifest per entry of
    `services` (the plugin interface, e.g. ``org.apache.kafka.connect.source.SourceConnector`` ->
    the class implementing it); returns ``<folder>/plugins``, for ``plugin.path``."""
    classes = compile_java(folder / f"{name}-classes", *sources)
    manifests = classes / "META-INF" / "services"
    manifests.mkdir(parents=True, exist_ok=True)
    for interface, implementation in services.items():
        (manifests / interface).write_text(implementation + "\n", encoding="utf-8")
    plugin = folder / "plugins" / name
    plugin.mkdir(parents=True)
    subprocess.run(["jar", "cf", str(plugin / f"{name}.jar"), "-C", str(classes), "."], check=True)
    return plugin.parent
