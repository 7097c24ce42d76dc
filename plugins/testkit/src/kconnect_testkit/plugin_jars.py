"""Java Kafka Connect plugins from Maven Central for a worker's ``plugin.path``, fetched once with Maven.

Each plugin is kept under ``<cache>/plugin-path`` (the cache of `jars.cache_root`), beside Kafka's own
jars; a fetch goes into a partial folder renamed when complete, so an interrupted fetch is redone.
kconnect's Java-plugin tests and its benchmarks put the same folders on both engines' ``plugin.path``.
"""

from __future__ import annotations

import shutil
import subprocess
import tarfile
from pathlib import Path

from kconnect_testkit.jars import cache_root

DEBEZIUM_VERSION = "3.6.1.Final"


def plugin_path_folder() -> Path:
    """Where the plugin folders are cached."""
    return cache_root() / "plugin-path"


def _mvn(what: str) -> str:
    mvn = shutil.which("mvn")
    assert mvn is not None, f"Maven is needed to fetch {what}"
    return mvn


def fetched(folder: Path, *artifacts: str) -> Path:
    """`folder` holding the jars of `artifacts` (``group:artifact:version``, no transitive
    dependencies), fetched with Maven unless they are there."""
    jars = [f"{artifact.split(':')[1]}-{artifact.split(':')[2]}.jar" for artifact in artifacts]
    if not all((folder / jar).is_file() for jar in jars):
        partial = folder.with_name(folder.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        mvn = _mvn(", ".join(artifacts))
        for artifact in artifacts:
            where = f"-DoutputDirectory={partial}"
            subprocess.run(
                [mvn, "-B", "-q", "dependency:copy", f"-Dartifact={artifact}", where], check=True, cwd=partial
            )
        shutil.rmtree(folder, ignore_errors=True)
        partial.rename(folder)
    return folder


def fetch_connect_file(version: str) -> Path:
    """A folder holding only Kafka's ``connect-file-<version>.jar`` (FileStreamSource and FileStreamSink)."""
    return fetched(
        plugin_path_folder() / f"connect-file-{version}", f"org.apache.kafka:connect-file:{version}"
    )


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


def fetch_debezium_postgres(version: str = DEBEZIUM_VERSION) -> Path:
    """A ``plugin.path`` directory holding one plugin folder, ``debezium-connector-postgres``: the
    archive Maven Central serves as ``io.debezium:debezium-connector-postgres:<version>:tar.gz:plugin``,
    fetched with Maven (``dependency:copy``) and unpacked with ``tarfile`` as Debezium's install guide
    does with ``tar xzf`` (Maven's ``dependency:unpack`` reads the archive's PAX headers as files
    named ``*.jar``)."""
    root = plugin_path_folder() / f"debezium-postgres-{version}"
    if not (root / "debezium-connector-postgres" / f"debezium-connector-postgres-{version}.jar").is_file():
        partial = root.with_name(root.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        mvn = _mvn("Debezium's PostgreSQL connector")
        artifact = f"io.debezium:debezium-connector-postgres:{version}:tar.gz:plugin"
        download = partial / "download"
        subprocess.run(
            [mvn, "-B", "-q", "dependency:copy", f"-Dartifact={artifact}", f"-DoutputDirectory={download}"],
            check=True,
            cwd=partial,
        )
        for archive in download.glob("*.tar.gz"):
            with tarfile.open(archive) as tar:
                tar.extractall(partial, filter="data")
        shutil.rmtree(download)
        shutil.rmtree(root, ignore_errors=True)
        partial.rename(root)
    return root
