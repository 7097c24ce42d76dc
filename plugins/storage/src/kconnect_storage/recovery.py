"""Where a Kafka partition's output ends, read back from the store (on open, and after a store error).

Recovery finishes a publication the commit log says was interrupted, throws away staged files no
entry names (their records were never committed: Kafka delivers them again), and returns the offset
after the highest last offset in the partition's committed file names: the task seeks its consumer
there, so nothing committed is written twice and nothing uncommitted is lost.
"""

from __future__ import annotations

import logging

from kconnect import TopicPartition

from kconnect_storage.commit_log import CommitLog
from kconnect_storage.naming import name_prefix, parse_committed, topic_directory
from kconnect_storage.stores import Store

log = logging.getLogger(__name__)


def recover(store: Store, commit_log: CommitLog, topics_dir: str, tp: TopicPartition) -> int | None:
    """Settle `tp`'s files and return the offset to resume from (None: the partition has no files)."""
    replayed = commit_log.replay(tp)
    if replayed:
        log.info("Published %d files of %s whose commit was interrupted", replayed, tp)
    directory = topic_directory(topics_dir, tp.topic)
    discarded = store.discard_unpublished(directory, name_prefix(tp))
    if discarded:
        log.info("Threw away %d unpublished files of %s (their records are read again)", discarded, tp)
    last: int | None = None
    for path in store.list_files(directory):
        committed = parse_committed(path)
        if committed is None or committed.topic != tp.topic or committed.partition != tp.partition:
            continue
        if last is None or committed.last_offset > last:
            last = committed.last_offset
    return None if last is None else last + 1
