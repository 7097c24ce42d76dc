"""Whole-file JSON writes that are atomic: a crash leaves the old file or the new one, never half of one.

Steps of `write_json`: write a temporary file in the same directory, flush and fsync it,
`os.replace` it over the target (atomic on POSIX and Windows), then fsync the directory so the
rename itself survives a power cut.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

from kconnect.storage.base import StoreError

log = logging.getLogger(__name__)


def read_json(path: Path, what: str) -> Any | None:
    """The JSON content of `path`, or None if it does not exist; StoreError names the file if corrupt."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StoreError(f"{path}: cannot read the {what}: {exc.strerror or exc}") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise StoreError(
            f"{path}: the {what} file is corrupt (not valid JSON: {exc.msg} at line {exc.lineno}); "
            "restore it from a backup or delete it to start empty"
        ) from exc


def write_json(path: Path, content: Any) -> None:
    """Replace `path` with `content` as JSON, atomically and durably (see the module docstring)."""
    data = json.dumps(content, indent=1, sort_keys=True).encode("utf-8")
    directory = path.parent
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise StoreError(f"{path}: cannot write: {exc.strerror or exc}") from exc
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        replace(tmp, path)
        _fsync_directory(directory)
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise StoreError(f"{path}: cannot write: {exc.strerror or exc}") from exc
        raise


def replace(source: Path, target: Path) -> None:
    """Rename `source` over `target` atomically (a separate function so a crash can be simulated)."""
    os.replace(source, target)


def _fsync_directory(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return  # Windows cannot open directories; its rename is already durable enough
    try:
        os.fsync(fd)
    except OSError as exc:
        log.debug("fsync of directory %s failed: %s", directory, exc)
    finally:
        os.close(fd)
