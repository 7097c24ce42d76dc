"""The commit log: how one Kafka partition's files become visible together, even across a crash.

A rotation seals every open file of the partition (each under its final name), then writes one entry
``<logs.dir>/<topic>/<partition>/commit.json`` holding their publication tokens, publishes each
file and deletes the entry. A crash before the entry is written leaves only unpublished files
(thrown away at recovery: their records are read from Kafka again); a crash after it leaves an entry
that recovery replays (publication is idempotent). So the files of one rotation appear all or none,
and the committed files' names always tell where the partition's output ends.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from kconnect import TopicPartition

from kconnect_storage.naming import commit_log_path
from kconnect_storage.stores import Store, Token


class CommitLog:
    """Entries of pending publications, one per Kafka partition, in ``logs.dir`` of a store."""

    def __init__(self, store: Store, logs_dir: str) -> None:
        """A log in `logs_dir` of `store`."""
        self.store = store
        self.logs_dir = logs_dir

    def publish(self, tp: TopicPartition, tokens: Sequence[Token]) -> None:
        """Make the sealed files of one rotation visible, all or (after a crash, until replayed) none."""
        if not tokens:
            return
        path = commit_log_path(self.logs_dir, tp)
        self.store.write_whole(path, json.dumps({"files": list(tokens)}).encode())
        for token in tokens:
            self.store.publish(token)
        self.store.delete(path)

    def replay(self, tp: TopicPartition) -> int:
        """Finish a publication a crash interrupted; returns how many files it covered (0: none pending).

        Also throws away what a crash in the middle of writing an entry left (the store's temporary
        copy of it, which never became the entry).
        """
        path = commit_log_path(self.logs_dir, tp)
        directory, name = path.rsplit("/", 1)
        self.store.discard_unpublished(directory, name + ".")
        if not any(p == path for p in self.store.list_files(directory)):
            return 0
        tokens: list[Token] = json.loads(self.store.read(path))["files"]
        for token in tokens:
            self.store.publish(token)
        self.store.delete(path)
        return len(tokens)
