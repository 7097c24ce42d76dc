"""Where the files go: the `Store` protocol and its implementations (local disk, HDFS, S3).

A store makes a file visible under its final path only when the sink publishes it, so a reader
never sees half a file, and publication can be repeated after a crash (it is idempotent):

* `Store.stage` returns a `StagedFile` to write into; nothing shows under the final path yet;
* `StagedFile.seal` finishes writing, gives the file its final path and returns a *token*: a
  JSON-able dict that lets any process (also after a crash) publish or discard it;
* `Store.publish(token)` makes it visible: a rename on local disk and HDFS, the completion of the
  multipart upload on S3. Publishing a token that was already published does nothing.

Paths are relative to the store's root (a directory, an HDFS URL's path, a bucket), always with
``/`` and without a leading ``/``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

#: A sealed file's publication token: JSON-able, written into the commit log before publication.
Token = Mapping[str, Any]


class StoreError(Exception):
    """A store operation failed (unreachable, refused, I/O error); the message names the store and
    what was being done, e.g. ``Could not rename /topics/+tmp/... on hdfs://nn:9870: ...``."""


class StagedFile(Protocol):
    """A file being written, invisible under any final path until published."""

    def write(self, data: bytes) -> int:
        """Append bytes (pyarrow and fastavro write through this)."""
        ...

    def tell(self) -> int:
        """How many bytes were written so far."""
        ...

    def flush(self) -> None:
        """Hand buffered bytes on (a no-op where the store buffers until `seal`)."""
        ...

    def seal(self, final_path: str) -> Token:
        """Finish writing and return the token that publishes the file under `final_path`."""
        ...

    def discard(self) -> None:
        """Throw the file away (a partition was revoked, the task stops): nothing becomes visible."""
        ...


class Store(Protocol):
    """A place files are written to; every method raises `StoreError` on failure."""

    @property
    def description(self) -> str:
        """The store for messages: ``file:///data``, ``hdfs://nn:9870/``, ``s3://bucket`` (no secrets)."""
        ...

    def stage(self, directory: str, name_prefix: str) -> StagedFile:
        """A new staged file for a final path in `directory` whose name starts with `name_prefix`
        (``<topic>+<partition>+``), so `discard_unpublished` can find it after a crash."""
        ...

    def publish(self, token: Token) -> None:
        """Make a sealed file visible under its final path; nothing to do if it already is."""
        ...

    def discard(self, token: Token) -> None:
        """Throw a sealed, unpublished file away."""
        ...

    def discard_unpublished(self, directory: str, name_prefix: str) -> int:
        """Throw away every staged or sealed file left (by a crash) for `directory` or any directory
        below it, with names starting with `name_prefix`; returns how many. Call only after pending
        tokens were published."""
        ...

    def list_files(self, directory: str) -> list[str]:
        """Every visible file under `directory`, recursively, as paths from the root; [] if none."""
        ...

    def read(self, path: str) -> bytes:
        """A visible file's bytes."""
        ...

    def write_whole(self, path: str, data: bytes) -> None:
        """Write a small file that appears whole or not at all, replacing any file of that path."""
        ...

    def delete(self, path: str) -> None:
        """Remove a file; nothing to do if there is none."""
        ...

    def close(self) -> None:
        """Release connections and local spool space."""
        ...
