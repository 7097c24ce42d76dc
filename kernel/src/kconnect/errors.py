"""Errors the kernel raises.

Kernel errors know nothing of HTTP: the REST layer maps each class to a status code in one place
(`kconnect_rest.errors`). Plugin authors raise `ConnectError` (or `DataError` / `RetriableError`).
"""

from __future__ import annotations


class ConnectError(Exception):
    """Base class of every error kconnect or a plugin raises on purpose."""

    #: The Kafka exception this one stands for: error reports (DLQ headers) name it, as Java's do.
    java_class_name = "org.apache.kafka.connect.errors.ConnectException"


class DataError(ConnectError):
    """A value does not match its schema, or bytes cannot be converted (Kafka's DataException)."""

    java_class_name = "org.apache.kafka.connect.errors.DataException"


class SchemaBuilderError(DataError):
    """A schema was built inconsistently (Kafka's SchemaBuilderException)."""

    java_class_name = "org.apache.kafka.connect.errors.SchemaBuilderException"


class SchemaProjectorError(DataError):
    """A value cannot be projected onto another schema (Kafka's SchemaProjectorException).

    Raised by `kconnect.data.projector.project` when the schemas are incompatible.
    """

    java_class_name = "org.apache.kafka.connect.errors.SchemaProjectorException"


class RetriableError(ConnectError):
    """A transient failure: the framework retries the operation instead of failing the task."""

    java_class_name = "org.apache.kafka.connect.errors.RetriableException"


class IllegalWorkerStateError(ConnectError):
    """An operation was asked of a worker component in a state that does not allow it."""


class NotFoundError(ConnectError):
    """A named connector, task, plugin or logger does not exist."""


class AlreadyExistsError(ConnectError):
    """A connector with that name already exists."""


class BadRequestError(ConnectError):
    """The request itself is wrong (bad config, bad offsets body, wrong state for the operation)."""


class ConflictError(ConnectError):
    """The request cannot be served right now (herder busy, rebalance); the caller should retry."""


class PluginError(ConnectError):
    """A plugin could not be found, loaded or instantiated."""


class RequestTimeoutError(ConnectError):
    """A write to the herder did not complete within the request timeout (Kafka's 500 "Request timed
    out"); the change itself may still complete later."""


class RebalanceInProgressError(ConflictError):
    """The worker's group is rebalancing (distributed mode): REST answers 409 with Kafka's text
    ("Cannot complete request because of a conflicting operation (e.g. worker rebalance)")."""


class NotLeaderError(ConnectError):
    """A write only the group's leader may apply reached another worker (distributed mode).

    The REST layer forwards the request to `leader_url` (Kafka's ``?forward=`` behaviour) in one
    place; the kernel never speaks HTTP. `leader_url` is None while no leader is known (REST then
    answers 409, as during a rebalance).
    """

    def __init__(self, message: str, leader_url: str | None) -> None:
        super().__init__(message)
        self.leader_url = leader_url
