"""Builds kconnect's Java part (``plugins/java/jvm``, a Maven project) on demand, once per source hash.

The facade jar and its runtime dependencies land in ``<cache>/java-facade-<hash>/lib``, where
``<hash>`` covers the pom and every Java source, so an edit rebuilds and an unchanged tree never
does. The cache is ``$KCONNECT_CACHE`` when set, else ``$XDG_CACHE_HOME/kconnect``
(``~/.cache/kconnect``). Maven runs normally (it reaches Maven Central the first time), through
`kconnect_java.maven`, whose lock makes concurrent workers build once. One log line says a build is
under way and one that it ended.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import subprocess
import time
from pathlib import Path

from kconnect_java.maven import MavenError, cache_root, cached_folder, run_maven

log = logging.getLogger(__name__)

#: The Maven project, beside this package in the source tree (an editable install).
JVM_PROJECT = Path(__file__).resolve().parents[2] / "jvm"
FACADE_CLASS = "dev.kconnect.java.PluginFacade"
#: The Spark entry of Java tasks: compiled against the Spark jars that run it (`spark_entry_jar`).
SPARK_ENTRY = JVM_PROJECT / "spark-entry" / "ExecutorTask.java"
SPARK_ENTRY_CLASS = "dev.kconnect.java.spark.ExecutorTask"


class JavaBuildError(RuntimeError):
    """Java or Maven is missing, or the Maven build failed; the message says what to install or read."""


def source_hash(project: Path = JVM_PROJECT) -> str:
    """A hash of the pom and every file under ``src/``: the key of a build in the cache."""
    digest = hashlib.sha256()
    files = [project / "pom.xml", *sorted(p for p in (project / "src").rglob("*") if p.is_file())]
    for path in files:
        digest.update(str(path.relative_to(project)).encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def tool(name: str) -> str:
    """The path of `name` (``java``, ``javac``, ``jar`` or ``mvn``): ``$JAVA_HOME/bin`` for the JDK's
    tools, else PATH."""
    java_home = os.environ.get("JAVA_HOME")
    if name != "mvn" and java_home and (Path(java_home) / "bin" / name).is_file():
        return str(Path(java_home) / "bin" / name)
    found = shutil.which(name)
    if found is None:
        raise JavaBuildError(
            f"{name!r} is not on PATH: Java plugins on plugin.path need Java 17 and Maven "
            "(Debian: apt-get install openjdk-17-jdk-headless maven)"
        )
    return found


def facade_classpath(project: Path = JVM_PROJECT) -> list[Path]:
    """The facade jar and its runtime dependencies, built first when the cache has none for this source.

    Steps: hash the sources; return the jars of ``<build>/lib`` when it is there; else, under a lock
    (`kconnect_java.maven.cached_folder`), copy the project to ``<build>/project``, run ``mvn package
    dependency:copy-dependencies`` there into the partial ``lib`` and add the facade jar to it.
    """
    lib = cache_root() / f"java-facade-{source_hash(project)}" / "lib"
    try:
        cached_folder(lib, lambda partial: _build(project, partial))
    except MavenError as exc:
        raise JavaBuildError(str(exc)) from exc
    return sorted(lib.glob("*.jar"))


def _build(project: Path, lib: Path) -> None:
    tool("mvn")  # the error that says what to install
    copy = lib.parent / "project"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(project, copy, ignore=shutil.ignore_patterns("target"))
    goals = ["package", "dependency:copy-dependencies", "-DincludeScope=runtime", f"-DoutputDirectory={lib}"]
    log.info(
        "Building kconnect's Java part with Maven into %s (the first time fetches Kafka's jars)", lib.parent
    )
    started = time.monotonic()
    run_maven(["-f", str(copy / "pom.xml"), *goals], lib, f"building {project}")
    shutil.copy2(copy / "target" / "kconnect-java-facade.jar", lib / "kconnect-java-facade.jar")
    log.info("Built kconnect's Java part in %.1f s", time.monotonic() - started)


def spark_entry_jar(spark_jars: Path, source: Path = SPARK_ENTRY) -> Path:
    """The jar of ``ExecutorTask`` (`SPARK_ENTRY`), compiled with javac against the Spark jars in
    `spark_jars` (PySpark's ``jars`` folder) once per source and Spark version, as the facade is.

    It implements Spark's ``FlatMapFunction``, so it is built against the Spark that runs it; Maven
    is not needed (Spark's jars are already here).
    """
    digest = hashlib.sha256(source.read_bytes())
    for jar in sorted(spark_jars.glob("spark-core*.jar")):
        digest.update(jar.name.encode())
    jar = cache_root() / f"java-spark-entry-{digest.hexdigest()[:16]}" / "lib" / "kconnect-java-spark.jar"

    def make(lib: Path) -> None:
        classes = lib / "classes"
        javac = [tool("javac"), "--release", "17", "-cp", str(spark_jars / "*"), "-d", str(classes)]
        _run([*javac, str(source)], "javac")
        _run([tool("jar"), "cf", str(lib / jar.name), "-C", str(classes), "."], "jar")
        shutil.rmtree(classes)

    cached_folder(jar.parent, make)
    return jar


def _run(command: list[str], what: str) -> None:
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise JavaBuildError(f"{what} exited with {result.returncode}: {result.stdout}{result.stderr}")
