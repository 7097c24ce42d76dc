"""Source offsets are committable only for an acknowledged prefix of each source partition."""

from kconnect.runtime.submitted_records import SubmittedRecords

A = {"filename": "a.txt"}
B = {"filename": "b.txt"}


def test_nothing_acked_commits_nothing() -> None:
    records = SubmittedRecords()
    records.submit(A, {"position": 1})
    assert records.committable() == []
    assert records.pending == 1


def test_out_of_order_ack_waits_for_the_gap() -> None:
    records = SubmittedRecords()
    first = records.submit(A, {"position": 1})
    second = records.submit(A, {"position": 2})
    records.ack(second)
    assert records.committable() == []
    records.ack(first)
    assert records.committable() == [(A, {"position": 2})]
    assert records.committable() == []
    assert records.pending == 0


def test_partitions_are_independent() -> None:
    records = SubmittedRecords()
    a1 = records.submit(A, {"position": 1})
    records.submit(B, {"position": 10})
    a2 = records.submit(A, {"position": 2})
    records.ack(a1)
    records.ack(a2)
    assert records.committable() == [(A, {"position": 2})]
    assert records.pending == 1


def test_null_partition_is_never_committed() -> None:
    records = SubmittedRecords()
    record = records.submit(None, None)
    records.ack(record)
    assert records.committable() == []


def test_double_ack_counts_once() -> None:
    records = SubmittedRecords()
    record = records.submit(A, {"position": 1})
    records.ack(record)
    records.ack(record)
    assert records.pending == 0


def test_a_partition_submitted_again_after_its_queue_was_emptied_is_still_committed() -> None:
    records = SubmittedRecords()
    records.ack(records.submit(A, {"position": 1}))
    assert records.committable() == [(A, {"position": 1})]
    records.ack(records.submit(A, {"position": 2}))  # the same partition dict, its queue dropped
    assert records.committable() == [(A, {"position": 2})]


def test_a_batch_sharing_one_offset_commits_once_all_its_records_are_acked() -> None:
    records = SubmittedRecords()
    first = records.submit(A, {"position": 1})
    batch = records.submit(A, {"position": 40}, count=3)
    assert records.pending == 4
    records.ack(first)
    records.ack(batch, 2)
    assert records.committable() == [(A, {"position": 1})], "two of the batch's three records"
    records.ack(batch, 5)  # more than it has left: only what is left counts
    assert records.pending == 0
    assert records.committable() == [(A, {"position": 40})]


def test_a_batch_of_no_records_is_acked_at_once() -> None:
    records = SubmittedRecords()
    records.submit(A, {"position": 9}, count=0)
    assert records.pending == 0
    assert records.committable() == [(A, {"position": 9})]
