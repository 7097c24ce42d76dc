"""Where the WebHDFS of an HDFS URL answers: `webhdfs_address` (pure, reads only ``hdfs-site.xml``).

kconnect reaches HDFS over WebHDFS, the namenode's HTTP API: the RPC protocol of ``hdfs://`` URLs
needs Hadoop's native ``libhdfs`` (and a JVM), which a Python worker does not have. Confluent's
users write ``hdfs.url=hdfs://namenode:8020`` and point ``hadoop.conf.dir`` at their cluster's
configuration; Hadoop's clients find the namenode's HTTP address the same way as here:

* ``webhdfs://host:port/path`` and ``swebhdfs://`` (HTTPS) name it directly;
* ``hdfs://host:port/path``: ``dfs.namenode.http-address`` (``https-address`` when
  ``dfs.http.policy`` is ``HTTPS_ONLY``) of ``<hadoop.conf.dir>/hdfs-site.xml``, its ``0.0.0.0``
  host read as the URL's host; without it, Hadoop's default port 9870 (9871 for HTTPS) on the
  URL's host. ``dfs.webhdfs.enabled=false`` and HA nameservices (which need a client that fails
  over between namenodes) are refused with a message saying what to write instead.
"""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from kconnect.config import ConfigException

HTTP_PORT = 9870
HTTPS_PORT = 9871
SCHEMES = ("hdfs", "webhdfs", "swebhdfs")


@dataclass(frozen=True, slots=True)
class WebHdfsAddress:
    """A namenode's WebHDFS endpoint and the folder of the URL it was found for."""

    host: str
    port: int
    https: bool
    root: str

    @property
    def url(self) -> str:
        """``http(s)://host:port``, for messages."""
        return f"{'https' if self.https else 'http'}://{self.host}:{self.port}"


def hadoop_properties(conf_dir: str, file_name: str = "hdfs-site.xml") -> dict[str, str]:
    """The properties of a Hadoop XML configuration file in `conf_dir`; {} if there is none.

    Raises `ConfigException` for ``hadoop.conf.dir`` if the folder is missing or the file unreadable.
    """
    folder = Path(conf_dir)
    if not folder.is_dir():
        raise ConfigException.invalid("hadoop.conf.dir", conf_dir, "Not a directory")
    path = folder / file_name
    if not path.is_file():
        return {}
    try:
        tree = ElementTree.parse(path)
    except (OSError, ElementTree.ParseError) as e:
        raise ConfigException.invalid("hadoop.conf.dir", conf_dir, f"Could not read {path}: {e}") from e
    properties: dict[str, str] = {}
    for element in tree.getroot().iter("property"):
        name, value = element.findtext("name"), element.findtext("value")
        if name is not None and value is not None:
            properties[name.strip()] = value.strip()
    return properties


def webhdfs_address(url: str, *, key: str, hadoop_conf_dir: str = "") -> WebHdfsAddress:
    """Where the WebHDFS of `url` (the value of config key `key`) answers; see the module docstring.

    Raises `ConfigException` naming `key` (or ``hadoop.conf.dir``) for a URL or configuration that
    does not lead to a WebHDFS endpoint.
    """
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    if scheme not in SCHEMES or not parts.hostname:
        raise ConfigException.invalid(
            key,
            url,
            "Expected hdfs://namenode:port[/path], webhdfs://namenode:http-port[/path] or swebhdfs://...",
        )
    try:
        port = parts.port
    except ValueError as e:
        raise ConfigException.invalid(key, url, str(e)) from e
    root = parts.path or "/"
    if scheme != "hdfs":
        https = scheme == "swebhdfs"
        return WebHdfsAddress(parts.hostname, port or (HTTPS_PORT if https else HTTP_PORT), https, root)
    properties = hadoop_properties(hadoop_conf_dir) if hadoop_conf_dir else {}
    if properties.get("dfs.webhdfs.enabled", "true").lower() == "false":
        raise ConfigException.invalid(
            "hadoop.conf.dir",
            hadoop_conf_dir,
            "dfs.webhdfs.enabled is false there; kconnect writes to HDFS over WebHDFS",
        )
    nameservices = {n.strip() for n in properties.get("dfs.nameservices", "").split(",") if n.strip()}
    if parts.hostname in nameservices:
        raise ConfigException.invalid(
            key,
            url,
            f"{parts.hostname} is an HA nameservice, which kconnect's WebHDFS client cannot fail over; "
            "name the active namenode (hdfs://<namenode host>:<port>)",
        )
    https = properties.get("dfs.http.policy", "HTTP_ONLY").upper() == "HTTPS_ONLY"
    configured = properties.get("dfs.namenode.https-address" if https else "dfs.namenode.http-address")
    host, http_port = parts.hostname, HTTPS_PORT if https else HTTP_PORT
    if configured:
        configured_host, _, configured_port = configured.rpartition(":")
        if not configured_port.isdigit():
            raise ConfigException.invalid(
                "hadoop.conf.dir",
                hadoop_conf_dir,
                f"Bad namenode HTTP address in hdfs-site.xml: {configured}",
            )
        http_port = int(configured_port)
        if configured_host and configured_host != "0.0.0.0":
            host = configured_host
    return WebHdfsAddress(host, http_port, https, root)
