"""Where rename stores (local disk, HDFS) keep files before publication, and their tokens.

A staged file for ``<directory>/<name>`` is written to ``<temp directory>/<directory>/<name
prefix><uuid>.tmp``: the final directory mirrored under the temporary one, so
`discard_unpublished` finds a crashed task's leftovers by walking one folder, and `list_files`
hides them by skipping the temporary directory. Sealing gives a *rename token*; publishing it is a
rename, and a rename that already happened is recognised by the temporary file being gone and the
final one being there. Pure path logic, no I/O.
"""

from __future__ import annotations

import posixpath
import uuid
from collections.abc import Iterable

from kconnect_storage.naming import join
from kconnect_storage.stores import StoreError, Token

RENAME_KIND = "rename"
TEMP_SUFFIX = ".tmp"


def staging_directory(temp_directory: str, directory: str) -> str:
    """The folder holding the staged files of final folder `directory`."""
    return join(temp_directory, directory)


def staged_path(temp_directory: str, directory: str, name_prefix: str) -> str:
    """A new, unique staged file's path for a file of `directory` named ``<name_prefix>...``."""
    return join(staging_directory(temp_directory, directory), f"{name_prefix}{uuid.uuid4().hex}{TEMP_SUFFIX}")


def whole_temp_path(temp_directory: str, path: str) -> str:
    """Where `write_whole` writes `path` before renaming it into place."""
    return join(temp_directory, f"{path}.{uuid.uuid4().hex}{TEMP_SUFFIX}")


def is_unpublished(name: str, name_prefix: str) -> bool:
    """Whether a file name in a staging folder is a staged file of `name_prefix`."""
    return name.startswith(name_prefix) and name.endswith(TEMP_SUFFIX)


def rename_token(temp: str, final: str) -> Token:
    """The token that publishes staged file `temp` as `final`."""
    return {"kind": RENAME_KIND, "temp": temp, "final": final}


def parse_rename_token(token: Token, store: str) -> tuple[str, str]:
    """``(temp, final)`` of a rename token; `StoreError` naming `store` if it is not one."""
    if (
        token.get("kind") != RENAME_KIND
        or not isinstance(token.get("temp"), str)
        or not isinstance(token.get("final"), str)
    ):
        raise StoreError(f"Could not publish on {store}: {dict(token)!r} is not a rename token")
    return str(token["temp"]), str(token["final"])


def is_visible(path: str, temp_directory: str) -> bool:
    """Whether `path` is a published file, i.e. not under the temporary directory."""
    temp = temp_directory.strip("/")
    return not temp or (path != temp and not path.startswith(temp + "/"))


def visible_files(paths: Iterable[str], temp_directory: str) -> list[str]:
    """The published files among `paths`, sorted."""
    return sorted(p for p in paths if is_visible(p, temp_directory))


def parent(path: str) -> str:
    """The folder of a relative store path (``""`` for the root)."""
    return posixpath.dirname(path)
