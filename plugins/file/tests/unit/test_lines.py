"""LineBuffer: complete lines out of chunked reads, linear in the bytes, with byte-exact positions."""

from __future__ import annotations

import time

from kconnect_file.lines import LineBuffer


def _drain(lines: LineBuffer) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    while (line := lines.next_line()) is not None:
        out.append((line, lines.position))
    return out


def test_positions_are_the_byte_after_each_newline() -> None:
    lines = LineBuffer()
    lines.feed(b"a\nbb\r\n\nccc\n")
    assert _drain(lines) == [("a", 2), ("bb", 6), ("", 7), ("ccc", 11)]


def test_a_partial_last_line_waits_for_its_newline() -> None:
    lines = LineBuffer()
    lines.feed(b"one\ntw")
    assert _drain(lines) == [("one", 4)]
    assert lines.pending == 2
    lines.feed(b"o")
    assert _drain(lines) == []
    lines.feed(b"\nthree")
    assert _drain(lines) == [("two", 8)]
    assert lines.pending == len(b"three")


def test_resuming_counts_from_the_committed_position() -> None:
    lines = LineBuffer(position=100)
    lines.feed(b"x\ny\n")
    assert _drain(lines) == [("x", 102), ("y", 104)]


def test_utf8_characters_split_across_reads_come_out_whole() -> None:
    data = "été ☃ 𝄞\nnaïve\n".encode()
    for cut in range(1, len(data)):
        lines = LineBuffer()
        lines.feed(data[:cut])
        first = _drain(lines)
        lines.feed(data[cut:])
        assert first + _drain(lines) == [("été ☃ 𝄞", 15), ("naïve", len(data))], cut


def test_crlf_split_between_reads_drops_the_cr() -> None:
    lines = LineBuffer()
    lines.feed(b"a\r")
    assert _drain(lines) == []
    lines.feed(b"\n")
    assert _drain(lines) == [("a", 3)]


def test_two_hundred_thousand_lines_in_one_chunk_split_in_linear_time() -> None:
    # Slicing the rest of the buffer off after every line copies ~1.3 MB per line here: about
    # 260 GB in all, minutes of work. Linear splitting takes a fraction of a second; the bound
    # leaves room for a loaded machine and still fails the quadratic version by far.
    count = 200_000
    chunk = b"".join(b"line %d\n" % i for i in range(count))
    lines = LineBuffer()
    started = time.perf_counter()
    lines.feed(chunk)
    got = _drain(lines)
    elapsed = time.perf_counter() - started
    assert len(got) == count
    assert got[-1] == (f"line {count - 1}", len(chunk))
    assert elapsed < 10, f"splitting took {elapsed:.1f} s: not linear"


def test_a_long_line_fed_in_many_small_reads_is_not_rescanned() -> None:
    lines = LineBuffer()
    for _ in range(50_000):
        lines.feed(b"x" * 20)
        assert lines.next_line() is None
    lines.feed(b"\n")
    assert lines.next_line() == "x" * 1_000_000
    assert lines.position == 1_000_001


def test_take_returns_at_most_limit_lines_with_the_positions_next_line_gives() -> None:
    data = "a\r\nbb\n\nΩx\ncc\npartial".encode()
    one_by_one, in_batches = LineBuffer(10), LineBuffer(10)
    one_by_one.feed(data)
    in_batches.feed(data)
    first, second, third = in_batches.take(2), in_batches.take(2), in_batches.take(2)
    assert (len(first), len(second), len(third)) == (2, 2, 1)
    assert (
        first + second + third
        == _drain(one_by_one)
        == [
            ("a", 13),
            ("bb", 16),
            ("", 17),
            ("Ωx", 21),
            ("cc", 24),
        ]
    )
    assert in_batches.take(5) == [] and in_batches.position == 24 and in_batches.pending == len(b"partial")


def test_take_lines_gives_takes_lines_and_leaves_the_position_after_the_last() -> None:
    with_positions, without = LineBuffer(5), LineBuffer(5)
    for lines in (with_positions, without):
        lines.feed(b"a\nbb\r\n\nccc\ndd")
    taken = with_positions.take(3)
    assert without.take_lines(3) == [line for line, _ in taken] == ["a", "bb", ""]
    assert without.position == with_positions.position == taken[-1][1] == 12
    assert without.take_lines(5) == ["ccc"] and without.position == 16 and without.pending == 2
