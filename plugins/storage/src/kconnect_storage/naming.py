"""File and directory names of the storage sink: what a committed file is called and where it lives.

A committed file is ``<topics.dir>/<topic>/<encoded partition>/<topic>+<partition>+<first>+<last><ext>``
(Confluent's HDFS sink's name; the offsets are the first and last Kafka offset of the records in the
file, zero-padded to ``filename.offset.zero.pad.width``). The names are what makes the sink exactly
once: after a crash, the highest last offset among a partition's committed files is where it resumes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kconnect import TopicPartition

#: <topic>+<partition>+<first>+<last>[.ext]; the topic may itself hold '+', so the numbers are matched last.
_COMMITTED = re.compile(
    r"^(?P<topic>.+)\+(?P<partition>\d+)\+(?P<first>\d+)\+(?P<last>\d+)(?P<ext>\.[^/]*)?$"
)


@dataclass(frozen=True, slots=True)
class CommittedFile:
    """What a committed file's name says."""

    topic: str
    partition: int
    first_offset: int
    last_offset: int


def name_prefix(tp: TopicPartition) -> str:
    """The start of every file name of one Kafka partition: ``<topic>+<partition>+``."""
    return f"{tp.topic}+{tp.partition}+"


def committed_name(tp: TopicPartition, first: int, last: int, extension: str, pad_width: int) -> str:
    """``<topic>+<partition>+<first>+<last><extension>``, offsets zero-padded to `pad_width`."""
    return f"{tp.topic}+{tp.partition}+{first:0{pad_width}d}+{last:0{pad_width}d}{extension}"


def parse_committed(path: str) -> CommittedFile | None:
    """The topic, partition and offsets in a committed file's name (the last path segment), or None."""
    match = _COMMITTED.match(path.rsplit("/", 1)[-1])
    if match is None:
        return None
    return CommittedFile(match["topic"], int(match["partition"]), int(match["first"]), int(match["last"]))


def join(*parts: str) -> str:
    """Store path segments joined with ``/``, without empty segments or outer slashes."""
    return "/".join(p.strip("/") for p in parts if p.strip("/"))


def temp_directory(topics_dir: str) -> str:
    """Where rename stores stage files: ``<topics.dir>/+tmp`` (Confluent's HDFS sink's place)."""
    return join(topics_dir, "+tmp")


def topic_directory(topics_dir: str, topic: str) -> str:
    """Every committed file of `topic` is below this directory."""
    return join(topics_dir, topic)


def commit_log_path(logs_dir: str, tp: TopicPartition) -> str:
    """The commit-log entry of one Kafka partition: ``<logs.dir>/<topic>/<partition>/commit.json``."""
    return join(logs_dir, tp.topic, str(tp.partition), "commit.json")
