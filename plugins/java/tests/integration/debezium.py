"""Debezium's PostgreSQL connector plugin archive from Maven Central, fetched with Maven for the tests."""

from __future__ import annotations

import shutil
import subprocess
import tarfile
from pathlib import Path

from plugins.java.tests.integration.maven_plugin import plugin_path_folder

DEBEZIUM_VERSION = "3.6.1.Final"


def fetch_debezium_postgres(version: str = DEBEZIUM_VERSION) -> Path:
    """A ``plugin.path`` directory holding one plugin folder, ``debezium-connector-postgres``: the
    archive Maven Central serves as ``io.debezium:debezium-connector-postgres:<version>:tar.gz:plugin``,
    fetched with Maven (``dependency:copy``) and unpacked with ``tarfile`` as Debezium's install guide
    does with ``tar xzf`` (Maven's ``dependency:unpack`` reads the archive's PAX headers as files
    named ``*.jar``). Unpacked into a partial folder renamed when complete, so an interrupted fetch
    is redone."""
    root = plugin_path_folder() / f"debezium-postgres-{version}"
    if not (root / "debezium-connector-postgres" / f"debezium-connector-postgres-{version}.jar").is_file():
        partial = root.with_name(root.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        mvn = shutil.which("mvn")
        assert mvn is not None, "Maven is needed to fetch Debezium's PostgreSQL connector"
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
