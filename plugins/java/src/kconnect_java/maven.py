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
import os
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
{body}
</project>
"""
#: With their dependencies: the project's, copied by ``dependency:copy-dependencies``.
_DEPENDENCIES = """\
  <dependencies>
{items}
  </dependencies>"""
_DEPENDENCY = """\
    <dependency>
      {coordinate}
      <exclusions>{exclusions}</exclusions>
    </dependency>"""
#: Alone: ``dependency:copy``'s artifact items, which Maven copies without reading their poms (the
#: parent pom of Apicurio Registry's app archive is not on Maven Central).
_ARTIFACT_ITEMS = """\
  <build>
    <plugins>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-dependency-plugin</artifactId>
        <configuration>
          <artifactItems>
{items}
          </artifactItems>
        </configuration>
      </plugin>
    </plugins>
  </build>"""
_ARTIFACT_ITEM = "            <artifactItem>{coordinate}</artifactItem>"
_COORDINATE_TAGS = ("groupId", "artifactId", "version", "type", "classifier")
_UNPACKED = (".tar.gz", ".tgz")


class MavenError(RuntimeError):
    """Maven is not on PATH, or ``mvn`` failed; the message names the log and ends with its tail."""


def cache_root(default: Path | None = None) -> Path:
    """The folder of every cache kconnect keeps: ``$KCONNECT_CACHE``, else `default` (a project's own,
    such as a checkout's ``.cache``), else ``$XDG_CACHE_HOME/kconnect`` or ``~/.cache/kconnect``."""
    root = os.environ.get("KCONNECT_CACHE")
    if root:
        return Path(root).expanduser()
    if default is not None:
        return default
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "kconnect"


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
    gets their files beside the ``pom.xml`` that asked for them and Maven's log: when `transitive`,
    with their runtime dependencies less `exclusions` (``group:artifact``, either part ``*``), by
    ``mvn dependency:copy-dependencies``; else the files alone, by ``mvn dependency:copy``. With
    `unpack`, each ``.tar.gz`` is unpacked into the folder, as ``tar xzf`` does, and not kept.
    Steps: `cached_folder`; write the pom; `run_maven`; unpack.
    """
    if exclusions and not transitive:
        raise ValueError("exclusions apply to dependencies, and a fetch that is not transitive has none")
    what = coordinates[0] + (f" and {len(coordinates) - 1} more" if len(coordinates) > 1 else "")
    goal = ["dependency:copy-dependencies", "-DincludeScope=runtime"] if transitive else ["dependency:copy"]
    pom_text = _pom(destination.name, coordinates, exclusions, transitive)

    def make(partial: Path) -> None:
        log.info("fetching %s with Maven into %s", what, destination)
        started = time.monotonic()
        pom = partial / "pom.xml"
        pom.write_text(pom_text, encoding="utf-8")
        into = partial / "download" if unpack else partial
        run_maven(["-f", str(pom), *goal, f"-DoutputDirectory={into}"], partial, f"fetching {what}")
        log.info("fetched %s in %.1f s", what, time.monotonic() - started)
        if unpack:
            for archive in sorted(into.iterdir()):
                if archive.name.endswith(_UNPACKED):
                    with tarfile.open(archive) as tar:
                        tar.extractall(partial, filter="data")
            shutil.rmtree(into)

    return cached_folder(destination, make)


def _pom(name: str, coordinates: Sequence[str], exclusions: Sequence[str], transitive: bool) -> str:
    items = []
    for coordinate in coordinates:
        parts = coordinate.split(":")
        if not 3 <= len(parts) <= len(_COORDINATE_TAGS):
            raise ValueError(f"{coordinate!r} is not group:artifact:version[:type[:classifier]]")
        tags = zip(_COORDINATE_TAGS, parts, strict=False)
        xml = "".join(f"<{tag}>{value}</{tag}>" for tag, value in tags)
        if transitive:
            excluded = "".join(
                f"<exclusion><groupId>{g}</groupId><artifactId>{a}</artifactId></exclusion>"
                for g, a in (exclusion.split(":") for exclusion in exclusions)
            )
            items.append(_DEPENDENCY.format(coordinate=xml, exclusions=excluded))
        else:
            items.append(_ARTIFACT_ITEM.format(coordinate=xml))
    body = (_DEPENDENCIES if transitive else _ARTIFACT_ITEMS).format(items="\n".join(items))
    return _POM.format(name=name, body=body)


def tail(path: Path, lines: int = 20) -> str:
    """Return the last `lines` lines of a log file, for an error message."""
    try:
        return "\n".join(path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])
    except OSError:
        return f"(no log at {path})"
