"""Jars from Maven Central, fetched with Maven into the cache for the tests (as Kafka's jars are)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests.harness import kafka_broker_script


def fetched(folder: Path, *artifacts: str) -> Path:
    """`folder` holding the jars of `artifacts` (``group:artifact:version``, no transitive
    dependencies), fetched with Maven unless they are there: into a partial folder renamed when
    complete, so an interrupted fetch is redone."""
    jars = [f"{artifact.split(':')[1]}-{artifact.split(':')[2]}.jar" for artifact in artifacts]
    if not all((folder / jar).is_file() for jar in jars):
        partial = folder.with_name(folder.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        mvn = shutil.which("mvn")
        assert mvn is not None, f"Maven is needed to fetch {', '.join(artifacts)}"
        for artifact in artifacts:
            where = f"-DoutputDirectory={partial}"
            subprocess.run(
                [mvn, "-B", "-q", "dependency:copy", f"-Dartifact={artifact}", where], check=True, cwd=partial
            )
        shutil.rmtree(folder, ignore_errors=True)
        partial.rename(folder)
    return folder


def plugin_path_folder() -> Path:
    """Where the tests' plugin folders are cached."""
    return kafka_broker_script.jars.cache_root() / "plugin-path"


def fetch_connect_mirror(version: str) -> Path:
    """A ``plugin.path`` directory holding one plugin folder, MirrorMaker 2's connectors:
    ``connect-mirror`` and what it needs beyond Kafka Connect's runtime, ``connect-mirror-client``
    (its other dependencies are the runtime's), so both load in one ``PluginClassLoader``."""
    name = f"connect-mirror-{version}"
    plugin = fetched(
        plugin_path_folder() / name / name,
        f"org.apache.kafka:connect-mirror:{version}",
        f"org.apache.kafka:connect-mirror-client:{version}",
    )
    return plugin.parent
