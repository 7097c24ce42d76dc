"""Apache Kafka's jars, fetched once with Maven into a cache, and the Java that runs them.

The jars of a Kafka broker (and of Kafka Connect's runtime, ``connect-file`` and ``connect-json``) come
from Maven Central through ``mvn`` and are kept in ``<cache>/kafka-<version>/libs``: the cache is
``$KCONNECT_CACHE`` when set, else the root given to `set_default_cache_root`, else
``$XDG_CACHE_HOME/kconnect`` (``~/.cache/kconnect``). Concurrent test processes fetch them once.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

KAFKA_VERSION = "4.3.1"
LOG4J_VERSION = "2.24.3"

# Kafka 4.3 still links slf4j-api 1.7.x, which finds its binding through StaticLoggerBinder: that is
# log4j-slf4j-impl. The slf4j2 binding would leave Kafka's own logging silently on the NOP logger.
_ARTIFACTS = (
    ("org.apache.kafka", "kafka_2.13", KAFKA_VERSION),
    ("org.apache.kafka", "kafka-tools", KAFKA_VERSION),
    ("org.apache.kafka", "connect-runtime", KAFKA_VERSION),
    ("org.apache.kafka", "connect-file", KAFKA_VERSION),
    ("org.apache.kafka", "connect-json", KAFKA_VERSION),
    ("org.apache.logging.log4j", "log4j-slf4j-impl", LOG4J_VERSION),
    ("org.apache.logging.log4j", "log4j-core", LOG4J_VERSION),
)
_MARKER = "libs.complete"
_POM = """\
<?xml version="1.0" encoding="UTF-8"?>
<!-- Written by kconnect_testkit: the jars of a Kafka broker and of Kafka Connect standalone. -->
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>kconnect.dev</groupId>
  <artifactId>kafka-broker-libs</artifactId>
  <version>{version}</version>
  <packaging>pom</packaging>
  <dependencies>
{dependencies}
  </dependencies>
</project>
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
    root = os.environ.get("KCONNECT_CACHE")
    if root:
        return Path(root).expanduser()
    if _default_root is not None:
        return _default_root
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "kconnect"


def cache_dir(version: str = KAFKA_VERSION) -> Path:
    """Return the folder holding ``pom.xml`` and ``libs/`` for a Kafka version (under `cache_root`)."""
    return cache_root() / f"kafka-{version}"


def libs_dir() -> Path:
    """Return the folder that holds (or will hold) Kafka's jars."""
    return cache_dir() / "libs"


def _jars_complete(cache: Path) -> bool:
    marker = cache / _MARKER
    if not marker.is_file():
        return False
    names = marker.read_text(encoding="utf-8").split()
    return bool(names) and all((cache / "libs" / name).is_file() for name in names)


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` so concurrent test workers fetch the jars once."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def fetch_jars(*, progress: bool = True) -> Path:
    """Download Kafka's jars with Maven into the cache and return the libs folder; a no-op once complete.

    Steps: write ``pom.xml``; run ``mvn dependency:copy-dependencies`` into ``libs.partial/``; rename it to
    ``libs/``; write the marker listing every jar. The marker comes last, so an interrupted fetch is redone.
    """
    cache = cache_dir()
    if _jars_complete(cache):
        return cache / "libs"
    with locked(cache / ".fetch.lock"):
        if _jars_complete(cache):
            return cache / "libs"
        mvn = shutil.which("mvn")
        if mvn is None:
            raise KafkaBrokerError("Maven ('mvn') is not on PATH; it is needed once to fetch Kafka's jars")
        dependencies = "\n".join(
            f"    <dependency><groupId>{g}</groupId><artifactId>{a}</artifactId>"
            f"<version>{v}</version></dependency>"
            for g, a, v in _ARTIFACTS
        )
        (cache / "pom.xml").write_text(_POM.format(version=KAFKA_VERSION, dependencies=dependencies))
        partial, libs, mvn_log = cache / "libs.partial", cache / "libs", cache / "mvn.log"
        shutil.rmtree(partial, ignore_errors=True)
        command = [mvn, "-B", "-f", str(cache / "pom.xml"), "dependency:copy-dependencies"]
        command.append(f"-DoutputDirectory={partial}")
        progress_line(progress, f"fetching Kafka {KAFKA_VERSION} jars with Maven into {libs}")
        started = time.monotonic()
        with (
            mvn_log.open("w", encoding="utf-8") as log,
            subprocess.Popen(
                command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=cache
            ) as proc,
        ):
            assert proc.stdout is not None
            for line in proc.stdout:
                log.write(line)
                if line.startswith("Downloaded from"):
                    progress_line(progress, "  downloaded " + line.split()[-3].rsplit("/", 1)[-1])
        if proc.returncode != 0:
            raise KafkaBrokerError(
                f"mvn exited with {proc.returncode} while fetching Kafka's jars; "
                f"see {mvn_log}\n{tail(mvn_log)}"
            )
        shutil.rmtree(libs, ignore_errors=True)
        partial.rename(libs)
        jars = sorted(p.name for p in libs.glob("*.jar"))
        (cache / _MARKER).write_text("\n".join(jars) + "\n", encoding="utf-8")
        progress_line(progress, f"fetched {len(jars)} jars in {time.monotonic() - started:.1f} s")
        return libs


def java_connect_classpath(*, fetch: bool = True) -> str:
    """Return the classpath glob (``<libs>/*``) for ``java -cp`` to run a Kafka broker or Kafka Connect."""
    libs = fetch_jars(progress=False) if fetch else libs_dir()
    return str(libs / "*")


def progress_line(enabled: bool, message: str) -> None:
    """Print `message` on stderr when `enabled` (a fetch's progress, for a user waiting on it)."""
    if enabled:
        print(message, file=sys.stderr, flush=True)


def java_executable() -> str:
    """Return the ``java`` on PATH; KafkaBrokerError naming what is needed when there is none."""
    java = shutil.which("java")
    if java is None:
        raise KafkaBrokerError("Java ('java') is not on PATH; Kafka 4.3 needs Java 17 or newer")
    return java


def tail(path: Path, lines: int = 20) -> str:
    """Return the last `lines` lines of a log file, for an error message."""
    try:
        return "\n".join(path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])
    except OSError:
        return f"(no log at {path})"
