"""Confluent's subject name strategies: under which subject a key or value schema is registered.

=========================  ======================================  =========================
strategy                   subject                                 for
=========================  ======================================  =========================
TopicNameStrategy          ``<topic>-key`` / ``<topic>-value``     one schema per topic
RecordNameStrategy         ``<record name>``                       one record type, any topic
TopicRecordNameStrategy    ``<topic>-<record name>``               several record types a topic
=========================  ======================================  =========================
"""

from __future__ import annotations

from kconnect.errors import DataError

_PACKAGE = "io.confluent.kafka.serializers.subject."
TOPIC_NAME_STRATEGY = _PACKAGE + "TopicNameStrategy"
RECORD_NAME_STRATEGY = _PACKAGE + "RecordNameStrategy"
TOPIC_RECORD_NAME_STRATEGY = _PACKAGE + "TopicRecordNameStrategy"

#: The strategy names a config may give: Confluent's class names and their short forms.
SUBJECT_NAME_STRATEGIES: tuple[str, ...] = (
    TOPIC_NAME_STRATEGY,
    RECORD_NAME_STRATEGY,
    TOPIC_RECORD_NAME_STRATEGY,
    "TopicNameStrategy",
    "RecordNameStrategy",
    "TopicRecordNameStrategy",
)


def subject_name(strategy: str, topic: str, is_key: bool, record_name: str | None) -> str:
    """The subject `strategy` gives a schema named `record_name` written to `topic`."""
    short = strategy.rsplit(".", 1)[-1]
    if short == "TopicNameStrategy":
        return f"{topic}-key" if is_key else f"{topic}-value"
    if not record_name:
        raise DataError(f"{short} needs a named schema (a record or message); this schema has no name")
    if short == "RecordNameStrategy":
        return record_name
    if short == "TopicRecordNameStrategy":
        return f"{topic}-{record_name}"
    raise DataError(f"Unknown subject name strategy {strategy}")
