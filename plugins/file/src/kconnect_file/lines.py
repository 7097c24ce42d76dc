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

    def take(self, limit: int) -> list[tuple[str, int]]:
        """Up to `limit` complete lines, decoded as UTF-8 (undecodable bytes replaced), each with
        the byte offset just past its newline; empty when no complete line is buffered.

        `position` is then the offset past the last line taken. One call takes a whole poll's
        lines: the per-line work stays inside this loop.
        """
        positions: list[int] = []
        return list(zip(self._take(limit, positions), positions, strict=True))

    def take_lines(self, limit: int) -> list[str]:
        """Up to `limit` complete lines, as `take` gives them, without the position of each:
        `position` is the offset past the last one (all a batch of lines needs as its offset)."""
        return self._take(limit, None)

    def _take(self, limit: int, positions: list[int] | None) -> list[str]:
        buffer, start, scan, position = self._buffer, self._start, self._scan, self.position
        find = buffer.find
        taken: list[str] = []
        append = taken.append
        for _ in range(limit):
            end = find(b"\n", scan)
            if end < 0:
                scan = len(buffer)
                break
            stop = end - 1 if end > start and buffer[end - 1] == 0x0D else end
            position += end + 1 - start
            append(buffer[start:stop].decode("utf-8", errors="replace"))
            if positions is not None:
                positions.append(position)
            start = scan = end + 1
        self._start, self._scan, self.position = start, scan, position
        return taken

    def next_line(self) -> str | None:
        """The next complete line, or None (`take` of one line); `position` is then past it."""
        taken = self.take(1)
        return taken[0][0] if taken else None

    @property
    def pending(self) -> int:
        """Bytes of an incomplete last line waiting for their newline."""
        return len(self._buffer) - self._start
