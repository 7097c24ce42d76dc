"""A class-data archive of the worker's Spark JVM, so that Spark starts in about half the time.

Most of a SparkSession's start is the driver JVM loading and verifying thousands of Spark classes.
The JDK can save the loaded classes in an archive (AppCDS: ``-XX:ArchiveClassesAtExit``) and map
it at the next start (``-XX:SharedArchiveFile``). On a 2-core machine that takes the session from
about 5 s to about 2.5 s, which is most of what stands between a worker's start and its first
record.

An archive fits one JDK, one Spark and one class path, so its name carries a digest of those
(`archive_path`). The worker adds ``-XX:SharedArchiveFile`` when the archive exists
(`driver_java_options`); when it does not, it starts `build` in a background process at the lowest
CPU priority (``python -m kconnect_spark.class_archive``), which starts a throwaway session, runs
one job, lets its JVM write the archive to a temporary file and renames it into place only once the
JVM has exited, so no JVM ever maps a half-written archive (the JDK crashes on one). A lock file
keeps concurrent workers from building it twice.

The archives live in ``$XDG_CACHE_HOME/kconnect`` (default ``~/.cache/kconnect``), about 120 MB
each. ``executor.spark.class.archive=false`` turns all of this off.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

#: Worker key: ``true`` (default) or ``false``.
CLASS_ARCHIVE = "executor.spark.class.archive"

#: The JDK's own messages about archive classes it skips are noise to a user.
_QUIET = "-Xlog:cds*=off"

#: A build that has not finished after this long is taken for dead, and its lock is taken over.
_STALE_LOCK_S = 600


def enabled(props: Mapping[str, str], source: str) -> bool:
    """Whether the worker uses the archive; ConfigFileError naming the file on a value not true/false."""
    from kconnect.worker_config import ConfigFileError

    raw = props.get(CLASS_ARCHIVE, "true").strip().lower()
    if raw not in ("true", "false"):
        raise ConfigFileError(f"{source}: {CLASS_ARCHIVE}: invalid value {raw!r}: must be true or false")
    return raw == "true"


def cache_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Where archives are kept: ``$XDG_CACHE_HOME/kconnect``, else ``~/.cache/kconnect``."""
    environ = os.environ if environ is None else environ
    base = environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kconnect"


def _java(environ: Mapping[str, str]) -> str:
    home = environ.get("JAVA_HOME")
    java = str(Path(home) / "bin" / "java") if home else shutil.which("java") or "java"
    return os.path.realpath(java)


def archive_path(conf: Mapping[str, str], environ: Mapping[str, str] | None = None) -> Path:
    """The archive that fits this JDK, this pyspark and the class path `conf` gives the driver."""
    import pyspark

    environ = os.environ if environ is None else environ
    java = _java(environ)
    stamp = os.stat(java).st_mtime_ns if os.path.exists(java) else 0
    parts = [
        java,
        str(stamp),
        pyspark.__version__,
        os.path.dirname(pyspark.__file__),
        environ.get("SPARK_HOME", ""),
        *(conf.get(k, "") for k in ("spark.jars", "spark.jars.packages", "spark.driver.extraClassPath")),
    ]
    digest = hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]
    return cache_dir(environ) / f"spark-{pyspark.__version__}-{digest}.jsa"


def driver_java_options(conf: Mapping[str, str], archive: Path) -> dict[str, str]:
    """`conf`'s ``spark.driver.extraJavaOptions`` with the archive added, when it exists; else {}."""
    if not archive.is_file():
        return {}
    options = conf.get("spark.driver.extraJavaOptions", "").strip()
    ours = f"-XX:SharedArchiveFile={archive} {_QUIET}"
    return {"spark.driver.extraJavaOptions": f"{options} {ours}".strip()}


def build_in_background(conf: Mapping[str, str], archive: Path) -> None:
    """Start `build` for `archive` in a process of its own at the lowest CPU priority, unless one runs."""
    archive.parent.mkdir(parents=True, exist_ok=True)
    lock = archive.with_suffix(".lock")
    if lock.exists() and time.time() - lock.stat().st_mtime < _STALE_LOCK_S:
        return
    try:
        lock.unlink(missing_ok=True)
        fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return
    os.close(fd)
    args = [sys.executable, "-m", "kconnect_spark.class_archive", str(archive)]
    for key in ("spark.jars", "spark.jars.packages", "spark.driver.extraClassPath"):
        if conf.get(key):
            args += ["--conf", f"{key}={conf[key]}"]
    subprocess.Popen(
        args,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    log.info("Building the Spark class-data archive %s in the background; later starts are faster", archive)


def build(archive: Path, conf: Mapping[str, str]) -> None:
    """Start a session that writes `archive` when its JVM exits; rename it into place after the exit."""
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    partial = archive.with_name(f"{archive.name}.{os.getpid()}.partial")
    builder = SparkSession.builder.master("local[1]").appName("kconnect-class-archive")
    for key, value in {**conf, "spark.ui.enabled": "false"}.items():
        builder = builder.config(key, value)
    builder = builder.config("spark.driver.extraJavaOptions", f"-XX:ArchiveClassesAtExit={partial} {_QUIET}")
    session = builder.getOrCreate()
    try:
        session.sparkContext.parallelize([1], 1).map(lambda x: x).collect()
    finally:
        session.stop()
    gateway: Any = SparkContext._gateway
    jvm = gateway.proc
    jvm.stdin.close()  # the gateway JVM exits when its stdin closes, and writes the archive then
    if jvm.wait(timeout=300) == 0 and partial.is_file():
        os.replace(partial, archive)
    else:
        partial.unlink(missing_ok=True)


def main(argv: list[str] | None = None) -> int:
    """``python -m kconnect_spark.class_archive ARCHIVE [--conf key=value ...]``."""
    import argparse

    parser = argparse.ArgumentParser(description="Build kconnect's Spark class-data archive.")
    parser.add_argument("archive", type=Path)
    parser.add_argument("--conf", action="append", default=[])
    args = parser.parse_args(argv)
    # Lowered here, not through Popen's preexec_fn, which is unsafe in the worker's threaded process.
    os.nice(19)
    conf = dict(item.split("=", 1) for item in args.conf)
    try:
        build(args.archive, conf)
    finally:
        args.archive.with_suffix(".lock").unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
