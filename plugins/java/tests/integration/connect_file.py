"""Kafka's ``connect-file`` jar of a version, fetched from Maven Central with Maven for the tests."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests.harness import kafka_broker_script


def fetch_connect_file(version: str) -> Path:
    """A folder holding only ``connect-file-<version>.jar``, fetched once with Maven into the cache
    (into a partial folder renamed when complete, so an interrupted fetch is redone)."""
    folder = kafka_broker_script.jars.cache_root() / "plugin-path" / f"connect-file-{version}"
    if not (folder / f"connect-file-{version}.jar").is_file():
        partial = folder.with_name(folder.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        mvn = shutil.which("mvn")
        assert mvn is not None, "Maven is needed to fetch connect-file"
        artifact = f"-Dartifact=org.apache.kafka:connect-file:{version}"
        command = [mvn, "-B", "-q", "dependency:copy", artifact, f"-DoutputDirectory={partial}"]
        subprocess.run(command, check=True, cwd=partial)
        shutil.rmtree(folder, ignore_errors=True)
        partial.rename(folder)
    return folder
