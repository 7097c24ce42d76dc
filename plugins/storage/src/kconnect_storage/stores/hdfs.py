"""`HdfsStore`: files on HDFS through the namenode's WebHDFS REST API (fsspec's ``WebHDFS``).

Same scheme as local disk (`kconnect_storage.stores.staging`): a staged file is an HDFS file under
the temporary directory, streamed block by block (``CREATE`` then ``APPEND`` of `BLOCK_SIZE`
bytes, so a large file is never held in memory), and published by a ``RENAME``. WebHDFS answers a
rename whose target exists with ``{"boolean": false}`` and changes nothing; `HdfsStore.publish`
reads that answer (fsspec's ``mv`` does not) to tell a publication done before from a failure, and
`HdfsStore.write_whole` renames with ``renameoptions=OVERWRITE``, HDFS's atomic replace.

Every request has a time limit (`HdfsStore` ``timeout``, connect and read), so a namenode or
datanode that stops answering fails the operation instead of hanging the task.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

from fsspec.implementations.webhdfs import WebHDFS

from kconnect_storage.naming import join
from kconnect_storage.stores import StoreError, Token
from kconnect_storage.stores.errors import store_error
from kconnect_storage.stores.staging import (
    is_unpublished,
    parent,
    parse_rename_token,
    rename_token,
    staged_path,
    staging_directory,
    visible_files,
    whole_temp_path,
)

#: Bytes buffered per staged file before they are sent as one ``APPEND``.
BLOCK_SIZE = 8 * 1024 * 1024

#: What fsspec and requests raise: HTTP and connection errors (requests' are `OSError`s), and the
#: `RuntimeError`/`ValueError` fsspec makes of a WebHDFS ``RemoteException``.
_FAILURES = (OSError, RuntimeError, ValueError, KeyError)

_T = TypeVar("_T")

log = logging.getLogger(__name__)


def _limit_requests(session: Any, timeout: float) -> None:
    """Give every request of a requests `session` that sets no timeout this one (fsspec sets none);
    redirects to datanodes go through the same ``send``."""
    send = session.send

    def send_with_timeout(request: Any, **kwargs: Any) -> Any:
        if kwargs.get("timeout") is None:
            kwargs["timeout"] = timeout
        return send(request, **kwargs)

    session.send = send_with_timeout


def _cause(error: BaseException) -> BaseException:
    """The root of a requests error: urllib3's reason (``Connection refused``, ``Read timed out``)
    rather than requests' wrapping of it."""
    inner = getattr(error.args[0], "reason", None) if error.args else None
    return inner if isinstance(inner, BaseException) else error


class HdfsStagedFile:
    """A file being streamed to HDFS under the temporary directory of an `HdfsStore`."""

    def __init__(self, store: HdfsStore, temp: str) -> None:
        """Open `temp` for writing; nothing reaches HDFS before the first block is full."""
        self._store = store
        self._temp = temp
        self._file = store.call(
            f"create {temp}", store.fs.open, store.absolute(temp), "wb", block_size=BLOCK_SIZE
        )

    def write(self, data: bytes) -> int:
        """Append bytes; a full block is sent to HDFS."""
        return int(self._store.call(f"write {self._temp}", self._file.write, data))

    def tell(self) -> int:
        """How many bytes were written so far."""
        return int(self._file.tell())

    def flush(self) -> None:
        """Send the buffer if it holds a full block (smaller appends would make HDFS slow)."""
        self._store.call(f"write {self._temp}", self._file.flush)

    def seal(self, final_path: str) -> Token:
        """Send the rest and close the file; return the token that renames it to `final_path`."""
        self._store.call(f"finish {self._temp}", self._file.close)
        return rename_token(self._temp, final_path)

    def discard(self) -> None:
        """Drop the buffer and delete what was sent, if anything."""
        started = self._file.offset is not None
        self._file.closed = True  # fsspec would upload the buffer on close() and on garbage collection
        if started:
            self._store.delete(self._temp)

    def __del__(self) -> None:
        # A file dropped without seal or discard (its task failed) is not uploaded by fsspec's own
        # finalizer, which would make requests during garbage collection; discard_unpublished
        # removes whatever was sent before.
        file = getattr(self, "_file", None)
        if file is not None:
            file.closed = True


class HdfsStore:
    """Files under a folder of HDFS, reached over WebHDFS; see the module docstring."""

    def __init__(
        self,
        *,
        host: str,
        port: int,
        root: str,
        temp_directory: str,
        user: str,
        timeout: float,
        https: bool = False,
        description: str | None = None,
    ) -> None:
        """Talk to the WebHDFS of namenode `host`:`port` as `user`; paths are relative to folder
        `root`; `timeout` seconds bound every request."""
        self.fs = WebHDFS(host=host, port=port, user=user, use_https=https, skip_instance_cache=True)
        _limit_requests(self.fs.session, timeout)
        self._root = "/" + root.strip("/")
        self._temp_directory = temp_directory.strip("/")
        scheme = "swebhdfs" if https else "webhdfs"
        self._description = description or f"{scheme}://{host}:{port}{self._root}"

    @property
    def description(self) -> str:
        """``webhdfs://host:port/root`` (or the ``hdfs://`` URL it was configured with)."""
        return self._description

    def absolute(self, path: str) -> str:
        """The HDFS path of a path relative to the root."""
        return "/" + join(self._root, path)

    def failure(self, action: str, error: BaseException) -> StoreError:
        """The `StoreError` for a failed `action`, naming this store and the cause."""
        return store_error(action, self._description, _cause(error))

    def call(self, action: str, function: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
        """Run a WebHDFS operation; a failure becomes a `StoreError` saying `action`."""
        try:
            return function(*args, **kwargs)
        except _FAILURES as e:
            raise self.failure(action, e) from e

    def _exists(self, path: str) -> bool:
        """Whether `path` exists; an unreachable store raises (fsspec's ``exists`` says False)."""
        try:
            self.fs.info(self.absolute(path))
        except FileNotFoundError:
            return False
        except _FAILURES as e:
            raise self.failure(f"look up {path or '/'}", e) from e
        return True

    def _rename(self, source: str, target: str, *, overwrite: bool) -> bool:
        """WebHDFS ``RENAME``; False when HDFS refused it (the target exists, or the source does not)."""
        options = {"renameoptions": "OVERWRITE"} if overwrite else {}
        answer = self.call(
            f"rename {source} to {target}",
            # fsspec's mv() drops the answer, which is the only sign of a refused rename.
            self.fs._call,
            "RENAME",
            method="put",
            path=self.absolute(source),
            destination=self.absolute(target),
            **options,
        )
        if overwrite:  # the rename with options answers nothing on success and an error otherwise
            return True
        return bool(answer.json().get("boolean"))

    def _mkdirs(self, directory: str) -> None:
        self.call(f"create folder {directory}", self.fs.mkdir, self.absolute(directory))

    def stage(self, directory: str, name_prefix: str) -> HdfsStagedFile:
        """A new file under the temporary directory (see `kconnect_storage.stores.staging`)."""
        return HdfsStagedFile(self, staged_path(self._temp_directory, directory, name_prefix))

    def publish(self, token: Token) -> None:
        """Rename the sealed file into place; done already if it is gone and the final file is there."""
        temp, final = parse_rename_token(token, self._description)
        self._mkdirs(parent(final))
        if self._rename(temp, final, overwrite=False):
            return
        final_exists, temp_exists = self._exists(final), self._exists(temp)
        if final_exists and not temp_exists:
            return
        if final_exists:
            # The name carries the offsets, so the file there holds the same records.
            log.warning(
                "%s was published before; deleting the second copy %s on %s", final, temp, self._description
            )
            self.delete(temp)
            return
        what = "it is missing" if not temp_exists else "HDFS refused the rename"
        raise StoreError(f"Could not rename {temp} to {final} on {self._description}: {what}")

    def discard(self, token: Token) -> None:
        """Delete a sealed, unpublished file."""
        temp, _ = parse_rename_token(token, self._description)
        self.delete(temp)

    def discard_unpublished(self, directory: str, name_prefix: str) -> int:
        """Delete the staged files under `directory` (recursively) whose names start with `name_prefix`."""
        folder = staging_directory(self._temp_directory, directory)
        leftovers: list[str] = []
        pending = [folder]
        while pending:
            here = pending.pop()
            try:
                entries = self.fs.ls(self.absolute(here), detail=True)
            except FileNotFoundError:
                continue
            except _FAILURES as e:
                raise self.failure(f"list {here}", e) from e
            for entry in entries:
                name = entry["pathSuffix"]
                if entry["type"] == "directory":
                    pending.append(f"{here}/{name}")
                elif is_unpublished(name, name_prefix):
                    leftovers.append(f"{here}/{name}")
        for path in leftovers:
            self.delete(path)
        return len(leftovers)

    def list_files(self, directory: str) -> list[str]:
        """Every published file under `directory`, recursively, as paths from the root.

        Walks with ``LISTSTATUS`` itself: fsspec's ``find`` takes a failed listing for an empty one,
        which would make an unreachable store look as if it held no committed file.
        """
        found: list[str] = []
        pending = [directory.strip("/")]
        while pending:
            folder = pending.pop()
            try:
                entries = self.fs.ls(self.absolute(folder), detail=True)
            except FileNotFoundError:
                if folder == directory.strip("/"):
                    return []
                continue  # removed while walking
            except _FAILURES as e:
                raise self.failure(f"list {folder or '/'}", e) from e
            for entry in entries:
                path = join(folder, entry["pathSuffix"])
                if entry["type"] == "directory":
                    pending.append(path)
                elif entry["type"] == "file":
                    found.append(path)
        return visible_files(found, self._temp_directory)

    def read(self, path: str) -> bytes:
        """A file's bytes."""
        return bytes(self.call(f"read {path}", self.fs.cat_file, self.absolute(path)))

    def write_whole(self, path: str, data: bytes) -> None:
        """Write `data` to a temporary file and rename it over `path` (HDFS's atomic overwrite)."""
        temp = whole_temp_path(self._temp_directory, path)
        self.call(f"write {temp}", self.fs.pipe_file, self.absolute(temp), data)
        self._mkdirs(parent(path))
        self._rename(temp, path, overwrite=True)

    def delete(self, path: str) -> None:
        """Remove a file; nothing to do if there is none (WebHDFS answers false then)."""
        self.call(f"delete {path}", self.fs.rm, self.absolute(path))

    def close(self) -> None:
        """Close the HTTP connections."""
        self.fs.session.close()

    def probe(self) -> None:
        """Check that WebHDFS answers (the root folder need not exist yet)."""
        self._exists("")
