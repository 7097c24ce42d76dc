"""Kafka's ``connect-file`` jar of a version, fetched from Maven Central with Maven for the tests."""

from __future__ import annotations

from pathlib import Path

from plugins.java.tests.integration.maven_plugin import fetched, plugin_path_folder


def fetch_connect_file(version: str) -> Path:
    """A folder holding only ``connect-file-<version>.jar``, fetched once with Maven into the cache."""
    folder = plugin_path_folder() / f"connect-file-{version}"
    return fetched(folder, f"org.apache.kafka:connect-file:{version}")
