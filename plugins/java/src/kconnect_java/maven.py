"""Folders of jars made once, with Maven: the one way kconnect, its tests and its benchmarks run ``mvn``.

`fetch` puts artifacts from Maven Central (with or without their dependencies, unpacked or not) into a
folder; `run_maven` runs ``mvn`` for a caller that builds a project of its own (`kconnect_java.build`);
`cached_folder` is what both rest on, and what a build without Maven uses too: the folder is made under
a lock in ``<folder>.partial`` and renamed into place when complete, so its existence is the mark that
it is done, an interrupted attempt is made again, and two test sessions fetching at once (pytest-xdist)
fetch once. Maven's log is kept in the folder (``mvn.log``); a failed run raises `MavenError` ending
with its tail.

This module lives in the Java plugin because the plugin builds its facade with Maven at run time and
the product must not depend on the test kit; the kit (``kconnect_testkit.jars``,
``kconnect_testkit.plugin_jars``) imports it from here. It uses the standard library only, so
``scripts/kafka_broker.py`` can import it from a bare checkout.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import shutil
import subprocess
import tarfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

log = logging.getLogger(__name__)

LOG_NAME = "mvn.log"
_POM = """\
<?xml version="1.0" encoding="UTF-8"?>
<!-- Written by kconnect_java.maven: what Maven copies into this folder. -->
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>kconnect.fetch</groupId>
  <artifactId>{name}</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
{dependencies}
  </dependencies>
</project>
"""
_DEPENDENCY = """\
    <dependency>
      <groupId>{group}</groupId><artifactId>{artifact}</artifactId><version>{version}</version>{kind}
      <exclusions>{exclusions}</exclusions>
    </dependency>"""
_UNPACKED = (".tar.gz", ".tgz")


class MavenError(RuntimeError):
    """Maven is not on PATH, or ``mvn`` failed; the message names the log and ends with its tail."""


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on the file `path` (made with its folder if missing) while in the block."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def cached_folder(destination: Path, make: Callable[[Path], None]) -> Path:
    """Return `destination`, made first by ``make(partial)`` when it does not exist yet.

    Steps: return at once if `destination` is a folder; else take the lock ``.<name>.lock`` beside it
    and look again (another process may have made it meanwhile); empty ``<name>.partial``; call `make`
    with it; rename it to `destination`. An exception from `make` leaves the partial folder (and its
    log) for a reader and the next attempt starts it again.
    """
    if destination.is_dir():
        return destination
    with locked(destination.parent / f".{destination.name}.lock"):
        if destination.is_dir():
            return destination
        partial = destination.with_name(destination.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        make(partial)
        partial.rename(destination)
    return destination


def run_maven(arguments: Sequence[str], folder: Path, doing: str) -> None:
    """Run ``mvn -B <arguments>`` in `folder`, its output in ``<folder>/mvn.log``; MavenError if it fails.

    `doing` says what for, in the errors (``fetching a:b:1``, ``building plugins/java/jvm``).

    Each artifact Maven downloads is logged at INFO, so a user waiting on a first fetch sees it move.
    """
    mvn = shutil.which("mvn")
    if mvn is None:
        raise MavenError(f"Maven ('mvn') is not on PATH; it is needed once for {doing}")
    mvn_log = folder / LOG_NAME
    with (
        mvn_log.open("w", encoding="utf-8") as out,
        subprocess.Popen(
            [mvn, "-B", *arguments], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=folder
        ) as process,
    ):
        assert process.stdout is not None
        for line in process.stdout:
            out.write(line)
            if line.startswith("Downloaded from"):
                log.info("  downloaded %s", line.split()[-3].rsplit("/", 1)[-1])
    if process.returncode != 0:
        raise MavenError(f"mvn exited with {process.returncode} {doing}; see {mvn_log}\n{tail(mvn_log)}")


def fetch(
    coordinates: Sequence[str],
    destination: Path,
    *,
    exclusions: Sequence[str] = (),
    transitive: bool = True,
    unpack: bool = False,
) -> Path:
    """Fetch `coordinates` with Maven into the folder `destination` once; return `destination`.

    Each coordinate is ``group:artifact:version[:type[:classifier]]`` (``...:tar.gz:plugin``). The folder
    gets their files and those of their runtime dependencies (none when not `transitive`), less
    `exclusions` (``group:artifact``, either part ``*``), beside the ``pom.xml`` that asked for them
    and Maven's log. With `unpack`, each ``.tar.gz`` is unpacked into the folder, as ``tar xzf`` does,
    and not kept. Steps: `cached_folder`; write the pom; ``mvn dependency:copy-dependencies``.
    """
    excluded = [*exclusions, *([] if transitive else ["*:*"])]
    what = coordinates[0] + (f" and {len(coordinates) - 1} more" if len(coordinates) > 1 else "")

    def make(partial: Path) -> None:
        log.info("fetching %s with Maven into %s", what, destination)
        started = time.monotonic()
        (partial / "pom.xml").write_text(_pom(destination.name, coordinates, excluded), encoding="utf-8")
        into = partial / "download" if unpack else partial
        goal = ["dependency:copy-dependencies", "-DincludeScope=runtime", f"-DoutputDirectory={into}"]
        run_maven(["-f", str(partial / "pom.xml"), *goal], partial, f"fetching {what}")
        log.info("fetched %s in %.1f s", what, time.monotonic() - started)
        if unpack:
            for archive in sorted(into.iterdir()):
                if archive.name.endswith(_UNPACKED):
                    with tarfile.open(archive) as tar:
                        tar.extractall(partial, filter="data")
            shutil.rmtree(into)

    return cached_folder(destination, make)


def _pom(name: str, coordinates: Sequence[str], exclusions: Sequence[str]) -> str:
    excluded = "".join(
        f"<exclusion><groupId>{group}</groupId><artifactId>{artifact}</artifactId></exclusion>"
        for group, artifact in (exclusion.split(":") for exclusion in exclusions)
    )
    dependencies = []
    for coordinate in coordinates:
        group, artifact, version, *rest = coordinate.split(":")
        kind = "".join(
            f"<{tag}>{value}</{tag}>" for tag, value in zip(("type", "classifier"), rest, strict=False)
        )
        dependencies.append(
            _DEPENDENCY.format(
                group=group, artifact=artifact, version=version, kind=kind, exclusions=excluded
            )
        )
    return _POM.format(name=name, dependencies="\n".join(dependencies))


def tail(path: Path, lines: int = 20) -> str:
    """Return the last `lines` lines of a log file, for an error message."""
    try:
        return "\n".join(path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])
    except OSError:
        return f"(no log at {path})"
