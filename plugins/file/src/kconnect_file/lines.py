"""Complete lines out of bytes read in chunks, in time linear in the bytes read.

`LineBuffer` is what FileStreamSourceTask reads through, and the pattern to copy for a source that
reads a stream: feed each chunk you read, take lines out while there are complete ones, and keep
the byte position after the last complete line as the source offset. The unread rest of the
buffer is moved to the front once per `feed`, never once per line (slicing the rest off after
every line copies the whole buffer per line: quadratic in the chunk size).

Lines end at ``\\n``; a ``\\r`` before it is dropped (``\\r\\n`` files). A last line without its
newline stays in the buffer until the newline arrives, so a half-written line is never emitted.
Splitting on the byte ``\\n`` is safe for UTF-8: it never occurs inside a multi-byte character,
so a character split across two reads is whole again by the time its line is decoded.
"""

from __future__ import annotations


class LineBuffer:
    """Bytes read so far that are not yet returned as lines, and the position of the next line."""

    def __init__(self, position: int = 0) -> None:
        """Start at byte `position` of the stream (the committed offset when resuming)."""
        self._buffer = bytearray()
        #: Where the next line starts in `_buffer`.
        self._start = 0
        #: Where to look for the next newline: bytes before it were already searched.
        self._scan = 0
        self.position = position

    def feed(self, chunk: bytes) -> None:
        """Append bytes just read; first drops the lines already returned (one move per read)."""
        if self._start:
            del self._buffer[: self._start]
            self._scan -= self._start
            self._start = 0
        self._buffer += chunk

    def next_line(self) -> str | None:
        """The next complete line, decoded as UTF-8 (undecodable bytes replaced), or None.

        After it returns a line, `position` is the byte offset just past that line's newline.
        """
        end = self._buffer.find(b"\n", self._scan)
        if end < 0:
            self._scan = len(self._buffer)
            return None
        stop = end - 1 if end > self._start and self._buffer[end - 1] == 0x0D else end
        line = self._buffer[self._start : stop].decode("utf-8", errors="replace")
        self.position += end + 1 - self._start
        self._start = self._scan = end + 1
        return line

    @property
    def pending(self) -> int:
        """Bytes of an incomplete last line waiting for their newline."""
        return len(self._buffer) - self._start
