"""Java Kafka Connect plugins from Maven Central for a worker's ``plugin.path``, fetched once with Maven.

Each plugin is kept under ``<cache>/plugin-path`` (the cache of `jars.cache_root`), beside Kafka's own
jars, fetched by `kconnect_java.maven.fetch`: under a lock, into a partial folder renamed when complete.
kconnect's Java-plugin tests and its benchmarks put the same folders on both engines' ``plugin.path``.
"""

from __future__ import annotations

from pathlib import Path

from kconnect_java.maven import fetch

from kconnect_testkit.jars import cache_root

DEBEZIUM_VERSION = "3.6.1.Final"


def plugin_path_folder() -> Path:
    """Where the plugin folders are cached."""
    return cache_root() / "plugin-path"


def fetch_connect_file(version: str) -> Path:
    """A folder holding only Kafka's ``connect-file-<version>.jar`` (FileStreamSource and FileStreamSink)."""
    return fetch(
        [f"org.apache.kafka:connect-file:{version}"],
        plugin_path_folder() / f"connect-file-{version}",
        transitive=False,
    )


def fetch_connect_mirror(version: str) -> Path:
    """A ``plugin.path`` directory holding one plugin folder, MirrorMaker 2's connectors:
    ``connect-mirror`` and what it needs beyond Kafka Connect's runtime, ``connect-mirror-client``
    (its other dependencies are the runtime's), so both load in one ``PluginClassLoader``."""
    name = f"connect-mirror-{version}"
    plugin = fetch(
        [f"org.apache.kafka:connect-mirror:{version}", f"org.apache.kafka:connect-mirror-client:{version}"],
        plugin_path_folder() / name / name,
        transitive=False,
    )
    return plugin.parent


def fetch_debezium_postgres(version: str = DEBEZIUM_VERSION) -> Path:
    """A ``plugin.path`` directory holding one plugin folder, ``debezium-connector-postgres``: the
    archive Maven Central serves as ``io.debezium:debezium-connector-postgres:<version>:tar.gz:plugin``,
    unpacked as Debezium's install guide does with ``tar xzf`` (Maven's ``dependency:unpack`` reads the
    archive's PAX headers as files named ``*.jar``)."""
    return fetch(
        [f"io.debezium:debezium-connector-postgres:{version}:tar.gz:plugin"],
        plugin_path_folder() / f"debezium-postgres-{version}",
        transitive=False,
        unpack=True,
    )
