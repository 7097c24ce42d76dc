"""Apache Kafka's jars, fetched once with Maven into a cache, and the Java that runs them: a broker
(`kconnect_testkit.broker`) or Java Kafka Connect standalone (`java_connect_command`).

The jars of a Kafka broker (and of Kafka Connect's runtime, ``connect-file`` and ``connect-json``) come
from Maven Central through ``mvn`` and are kept in ``<cache>/kafka-<version>/libs``: the cache is
``$KCONNECT_CACHE`` when set, else the root given to `set_default_cache_root`, else
``$XDG_CACHE_HOME/kconnect`` (``~/.cache/kconnect``). Concurrent test processes fetch them once
(`kconnect_java.maven`).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from kconnect_java import maven
from kconnect_java.maven import locked, tail

__all__ = [
    "CONNECT_STANDALONE",
    "KAFKA_VERSION",
    "LOG4J_VERSION",
    "KafkaBrokerError",
    "cache_dir",
    "cache_root",
    "console_log4j_config",
    "fetch_jars",
    "java_connect_classpath",
    "java_connect_command",
    "java_executable",
    "libs_dir",
    "locked",
    "set_default_cache_root",
    "tail",
]

KAFKA_VERSION = "4.3.1"
LOG4J_VERSION = "2.24.3"

# Kafka 4.3 still links slf4j-api 1.7.x, which finds its binding through StaticLoggerBinder: that is
# log4j-slf4j-impl. The slf4j2 binding would leave Kafka's own logging silently on the NOP logger.
_ARTIFACTS = (
    f"org.apache.kafka:kafka_2.13:{KAFKA_VERSION}",
    f"org.apache.kafka:kafka-tools:{KAFKA_VERSION}",
    f"org.apache.kafka:connect-runtime:{KAFKA_VERSION}",
    f"org.apache.kafka:connect-file:{KAFKA_VERSION}",
    f"org.apache.kafka:connect-json:{KAFKA_VERSION}",
    f"org.apache.logging.log4j:log4j-slf4j-impl:{LOG4J_VERSION}",
    f"org.apache.logging.log4j:log4j-core:{LOG4J_VERSION}",
)

CONNECT_STANDALONE = "org.apache.kafka.connect.cli.ConnectStandalone"

_LOG4J2_CONSOLE = """\
# Written by kconnect_testkit: console logging, level from -Dkconnect.log.level (default WARN).
status = warn
appender.console.type = Console
appender.console.name = console
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = ${sys:kconnect.log.level:-WARN}
rootLogger.appenderRef.console.ref = console
"""


class KafkaBrokerError(RuntimeError):
    """Fetching jars, formatting storage or starting the broker failed; the message says where to look."""


_default_root: Path | None = None


def set_default_cache_root(root: str | Path) -> None:
    """Keep the jars under `root` when ``$KCONNECT_CACHE`` is unset: a project with a cache of its own
    (kconnect's ``scripts/kafka_broker.py`` keeps ``<repo>/.cache``) calls this once at import."""
    global _default_root
    _default_root = Path(root)


def cache_root() -> Path:
    """Return the cache folder: ``$KCONNECT_CACHE``, the `set_default_cache_root` root, or the user's."""
    return maven.cache_root(_default_root)


def cache_dir(version: str = KAFKA_VERSION) -> Path:
    """Return the folder holding ``libs/`` for a Kafka version (under `cache_root`)."""
    return cache_root() / f"kafka-{version}"


def libs_dir() -> Path:
    """Return the folder that holds (or will hold) Kafka's jars."""
    return cache_dir() / "libs"


def fetch_jars() -> Path:
    """Fetch Kafka's jars with Maven into the cache once and return the libs folder.

    `kconnect_java.maven.fetch` does it under a lock and logs each download at INFO (the first fetch
    takes a while); a failed fetch raises KafkaBrokerError ending with Maven's log.
    """
    try:
        return maven.fetch(_ARTIFACTS, libs_dir())
    except maven.MavenError as exc:
        raise KafkaBrokerError(str(exc)) from exc


def java_connect_classpath(*, fetch: bool = True) -> str:
    """Return the classpath glob (``<libs>/*``) for ``java -cp`` to run a Kafka broker or Kafka Connect."""
    libs = fetch_jars() if fetch else libs_dir()
    return str(libs / "*")


def java_executable() -> str:
    """Return the ``java`` on PATH; KafkaBrokerError naming what is needed when there is none."""
    java = shutil.which("java")
    if java is None:
        raise KafkaBrokerError("Java ('java') is not on PATH; Kafka 4.3 needs Java 17 or newer")
    return java


def console_log4j_config() -> Path:
    """Return a log4j2 config logging to the console, level from ``-Dkconnect.log.level`` (default WARN)."""
    path = cache_dir() / "log4j2-console.properties"
    if not path.is_file() or path.read_text(encoding="utf-8") != _LOG4J2_CONSOLE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_LOG4J2_CONSOLE, encoding="utf-8")
    return path


def java_connect_command(
    worker_properties: str | Path,
    *connector_properties: str | Path,
    heap: str = "512m",
    log_level: str = "WARN",
) -> list[str]:
    """Build the ``java`` command that runs Kafka Connect standalone (`CONNECT_STANDALONE`)."""
    return [
        java_executable(),
        f"-Xmx{heap}",
        f"-Dlog4j2.configurationFile={console_log4j_config()}",
        f"-Dkconnect.log.level={log_level}",
        "-cp",
        java_connect_classpath(),
        CONNECT_STANDALONE,
        str(worker_properties),
        *(str(p) for p in connector_properties),
    ]
