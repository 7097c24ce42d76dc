"""`LocalStore`: files on this machine's disk, published by an atomic rename.

A staged file is a real file under the temporary directory (`kconnect_storage.stores.staging`);
`seal` fsyncs and closes it, `publish` renames it into place with `os.replace` and fsyncs the
folder, so a published file survives a power loss and a reader never sees half of one.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import BinaryIO

from kconnect_storage.stores import StoreError, Token
from kconnect_storage.stores.errors import store_error
from kconnect_storage.stores.staging import (
    is_unpublished,
    parse_rename_token,
    rename_token,
    staged_path,
    staging_directory,
    visible_files,
    whole_temp_path,
)


def _fsync_directory(directory: Path) -> None:
    """Make a rename in `directory` durable (POSIX keeps it in the folder's own metadata)."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class LocalStagedFile:
    """A file being written under the temporary directory of a `LocalStore`."""

    def __init__(self, store: LocalStore, temp: str) -> None:
        """Create the file `temp` (a path relative to the store's root) and its folders."""
        self._store = store
        self._temp = temp
        path = store.absolute(temp)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._file: BinaryIO = path.open("wb")
        except OSError as e:
            raise store_error(f"create {temp}", store.description, e) from e

    def write(self, data: bytes) -> int:
        """Append bytes to the file."""
        try:
            return self._file.write(data)
        except (OSError, ValueError) as e:
            raise store_error(f"write {self._temp}", self._store.description, e) from e

    def tell(self) -> int:
        """How many bytes were written so far."""
        return self._file.tell()

    def flush(self) -> None:
        """Hand Python's buffer to the operating system."""
        try:
            self._file.flush()
        except OSError as e:
            raise store_error(f"write {self._temp}", self._store.description, e) from e

    def seal(self, final_path: str) -> Token:
        """Flush, fsync and close the file; return the token that renames it to `final_path`."""
        try:
            self._file.flush()
            os.fsync(self._file.fileno())
            self._file.close()
        except OSError as e:
            raise store_error(f"finish {self._temp}", self._store.description, e) from e
        return rename_token(self._temp, final_path)

    def discard(self) -> None:
        """Close and delete the file."""
        self._file.close()
        self._store.delete(self._temp)


class LocalStore:
    """Files under a root folder of the local disk; see the module docstring."""

    def __init__(self, root: str | os.PathLike[str], temp_directory: str) -> None:
        """`root` is the folder all paths are relative to; `temp_directory` is relative to it."""
        self._root = Path(root).absolute()
        self._temp_directory = temp_directory.strip("/")

    @property
    def description(self) -> str:
        """``file:///<root>``."""
        return f"file://{self._root.as_posix()}"

    def absolute(self, path: str) -> Path:
        """The local path of a path relative to the root."""
        return self._root / path.strip("/")

    def stage(self, directory: str, name_prefix: str) -> LocalStagedFile:
        """A new file under the temporary directory (see `kconnect_storage.stores.staging`)."""
        return LocalStagedFile(self, staged_path(self._temp_directory, directory, name_prefix))

    def publish(self, token: Token) -> None:
        """Rename the sealed file into place; done already if it is gone and the final file is there."""
        temp, final = parse_rename_token(token, self.description)
        source, target = self.absolute(temp), self.absolute(final)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.replace(source, target)
            except FileNotFoundError:
                if target.is_file() and not source.exists():
                    return
                raise
            _fsync_directory(target.parent)
        except OSError as e:
            raise store_error(f"rename {temp} to {final}", self.description, e) from e

    def discard(self, token: Token) -> None:
        """Delete a sealed, unpublished file."""
        temp, _ = parse_rename_token(token, self.description)
        self.delete(temp)

    def discard_unpublished(self, directory: str, name_prefix: str) -> int:
        """Delete the staged files under `directory` (recursively) whose names start with `name_prefix`."""
        folder = staging_directory(self._temp_directory, directory)
        errors: list[OSError] = []
        leftovers: list[str] = []
        for here, _, files in os.walk(self.absolute(folder), onerror=errors.append):
            relative = Path(here).relative_to(self._root).as_posix()
            leftovers += [f"{relative}/{name}" for name in files if is_unpublished(name, name_prefix)]
        real_errors = [e for e in errors if not isinstance(e, FileNotFoundError)]
        if real_errors:
            raise store_error(f"list {folder}", self.description, real_errors[0])
        for path in leftovers:
            self.delete(path)
        return len(leftovers)

    def list_files(self, directory: str) -> list[str]:
        """Every published file under `directory`, recursively, as paths from the root."""
        top = self.absolute(directory)
        found: list[str] = []
        errors: list[OSError] = []
        for folder, _, files in os.walk(top, onerror=errors.append):
            relative = Path(folder).relative_to(self._root).as_posix()
            found.extend(name if relative == "." else f"{relative}/{name}" for name in files)
        real_errors = [e for e in errors if not isinstance(e, FileNotFoundError)]
        if real_errors:
            raise store_error(f"list {directory}", self.description, real_errors[0])
        return visible_files(found, self._temp_directory)

    def read(self, path: str) -> bytes:
        """A file's bytes."""
        try:
            return self.absolute(path).read_bytes()
        except OSError as e:
            raise store_error(f"read {path}", self.description, e) from e

    def write_whole(self, path: str, data: bytes) -> None:
        """Write `data` to a temporary file, fsync it, and rename it over `path`."""
        temp = self.absolute(whole_temp_path(self._temp_directory, path))
        target = self.absolute(path)
        try:
            temp.parent.mkdir(parents=True, exist_ok=True)
            with temp.open("wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(temp, target)
            _fsync_directory(target.parent)
        except OSError as e:
            with contextlib.suppress(OSError):
                temp.unlink(missing_ok=True)
            raise store_error(f"write {path}", self.description, e) from e

    def delete(self, path: str) -> None:
        """Remove a file; nothing to do if there is none."""
        try:
            self.absolute(path).unlink(missing_ok=True)
        except OSError as e:
            raise store_error(f"delete {path}", self.description, e) from e

    def close(self) -> None:
        """Nothing to release: staged files are closed by their owners."""

    def probe(self) -> None:
        """Check that the root folder exists or can be made, and is writable."""
        try:
            self._root.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise store_error("create the root folder", self.description, e) from e
        if not os.access(self._root, os.W_OK | os.X_OK):
            raise StoreError(f"Could not write on {self.description}: permission denied")
